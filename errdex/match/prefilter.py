"""What makes a log line worth matching: the keys a log scanner looks for in raw blocks
(`scan_keys`), and a cheap, sound test of the few lines that hold one (`plausible_hits`).

Both read the anchor index and answer for the full matcher without running it: a line
`plausible_hits` turns away has no exact match there. Reading the log itself (blocks,
lines, JSON fields, counts) is `errdex.match.scan`'s job.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from errdex.match.compiled import Compiled
from errdex.match.index import POSTING, AnchorIndex
from errdex.match.prefixes import CHAIN_SEPARATOR, POSITION_TAIL, strip_prefixes

MIN_SCAN_KEY: Final = 5  # anchors shorter than this are too common to pre-filter a log with
SCAN_ASK: Final = -1  # `scan_keys`' tag for a line only the matcher can judge (a Debug value)
_DEBUG_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\t": "\\t", "\r": "\\r"})


def scan_keys(index: AnchorIndex, variants: Iterable[str]) -> list[tuple[str, int]]:
    """What makes one log line worth a closer look, each with the tag to hand
    `plausible_hits`: every anchor of MIN_SCAN_KEY+ characters (tagged with its key
    id), also as a Rust Debug string escapes it, and every Rust variant name opening
    a Debug value, `Name(` or `Name {` (tagged SCAN_ASK). A log scanner finds
    these in big blocks with an automaton of its own, then asks about the few lines
    that hold one. Anchors holding a newline can't be in one line and are left out."""
    keys: list[tuple[str, int]] = []
    for key_id in range(index.keys()):
        key = index.anchor_key(key_id)
        if len(key) < MIN_SCAN_KEY or "\n" in key:
            continue
        keys.append((key, key_id))
        escaped = key.translate(_DEBUG_ESCAPES)
        if escaped != key:
            keys.append((escaped, key_id))
    for name in variants:
        keys += [(name + "(", SCAN_ASK), (name + " {", SCAN_ASK),
                 (name + "{", SCAN_ASK)]
    return keys


def plausible_hits(
    index: AnchorIndex, compiled: Sequence[Compiled], line: str, key_ids: Iterable[int]
) -> bool:
    """False only if `match_with_stats(line, exact_only=True)` can't find an exact
    match anchored at any of `key_ids` (tags of `scan_keys` found in the one line
    `line`): no template anchored there has its literals in order in the line, or,
    for a template that must be the whole message, at the message's ends. A line
    with a backslash (a Debug or JSON string, matched unescaped), a Debug value of a
    known variant, or more checking than a few dozen passes over it is left to the
    matcher: True. A cheap rejection for the many log lines that share a word with
    some template and are no error at all."""
    if "\\" in line or "\n" in line:
        return True
    budget = 40 * len(line) + 100_000  # linear in the line, whatever it holds
    content: tuple[int, int] | None = None
    for key_id in set(key_ids):
        if key_id < 0:
            return True
        crowd = index.crowd_postings(key_id, line)
        for p in crowd if crowd is not None else range(
                index.post_start[key_id], index.post_start[key_id + 1]):
            budget -= len(line)
            if budget < 0:
                return True
            check = index.postings[POSTING * p + 3] - 1
            if crowd is None and check >= 0 and index.check_words[check] not in line:
                continue
            template = compiled[index.postings[POSTING * p]]
            if not _in_order(line, template.literals):
                continue
            if not template.whole_line or '"' in line:
                return True  # a quoted string may be matched on its own, unescaped
            if content is None:
                prefixed = strip_prefixes(line.removesuffix("\r"))
                start = prefixed.end if prefixed.panic_header else prefixed.start
                content = (start, prefixed.end)
            if _may_cover(line, template.literals, *content):
                return True
    return False


def _in_order(line: str, literals: tuple[str, ...]) -> bool:
    """The literals appear in `line` one after another (leftmost first is enough)."""
    pos = 0
    for literal in literals:
        found = line.find(literal, pos)
        if found < 0:
            return False
        pos = found + len(literal)
    return True


def _may_cover(line: str, literals: tuple[str, ...], start: int, end: int) -> bool:
    """A template that must be the whole message can, in `line` whose message is
    line[start:end]: `verify.bind`'s test (only blanks between the message's ends and
    the match, or the match reaching past them) read as a condition on the first and
    last literals."""
    first, last = literals[0], literals[-1]
    if first and not (0 <= line.find(first) < start
                      or line[start:].lstrip().startswith(first.lstrip())
                      or CHAIN_SEPARATOR + first in line):  # after a context: `verify`'s too
        return False
    if not last:
        return True
    at = line.rfind(last)
    return ((at >= 0 and at + len(last) > end) or line[:end].rstrip().endswith(last.rstrip())
            or POSITION_TAIL.search(line, 0, end) is not None)  # a position may follow it
