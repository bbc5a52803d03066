"""Exact matches in one document of a paste: at each anchor occurrence the anchor index
names, the template's literal pieces are found in order around it, and the text between
them is bound to the holes.

Plain substring search in windows of bounded size, no regular expressions (so no
backtracking), and a work budget per call: hostile text stays linear. Reading the paste
into documents and messages is `errdex.match.paste`'s job; what a hole may hold,
`errdex.match.holes`'; how a found template ranks, `errdex.match.rank`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from errdex.match.compiled import WEAK_COVERAGE, Compiled
from errdex.match.found import Found, MatchStats
from errdex.match.holes import TYPE_CHECKS
from errdex.match.index import CLOSES_LINE, LINE_FLAGS, OPENS_LINE, POSTING, AnchorIndex
from errdex.match.paste import Doc
from errdex.match.prefixes import after_context, position_tail

CHECK_TEXT: Final = 1 << 14  # texts up to this long are searched for check words
MAX_HOLE: Final = 20_000  # longest value a hole may take
MAX_OCCURRENCES: Final = 64  # anchor occurrences verified per anchor fragment per document
EMPTY_PENALTY: Final = 0.9  # score factor per empty hole
# Marks a line wraps a message in when it is pasted as Markdown: inline code (`..`, ```..```),
# bold or italics (**..**, *..*), struck through (~~..~~). Quotes are not among them: a
# value's repr ends with its own.
MARKS: Final = frozenset("`*~")


def find_exact(
    index: AnchorIndex, compiled: Sequence[Compiled], doc: Doc, stats: MatchStats,
    budget: int, hit_cap: int
) -> list[Found]:
    """Every template that `doc` holds exactly, once per place it starts; stops (and says
    so in `stats.exhausted`) past `hit_cap` anchor hits or `budget` characters scanned."""
    out: list[Found] = []
    occurrences: dict[int, int] = {}
    seen: set[tuple[int, int]] = set()
    text = doc.text
    post_start, postings = index.post_start, index.postings
    # check word -> in the text, looked for once; a long text has no room for
    # a search through all of it per word, and is verified without them.
    check_words = index.check_words
    present: dict[int, bool] = {}
    crowded = index.crowded
    # crowded key -> the postings of it to read here, found once (see crowd_postings)
    crowd_found: dict[int, list[int] | None] = {}
    size = len(text)
    checked = size <= CHECK_TEXT
    hits = 0
    for key_id, anchor_start, anchor_end in index.anchor_hits(text):
        hits += 1
        if hits > hit_cap or stats.scanned > budget:
            stats.exhausted = True
            break
        seen_here = occurrences.get(key_id, 0) + 1
        occurrences[key_id] = seen_here
        if seen_here > MAX_OCCURRENCES:
            continue
        crowd: list[int] | None = None
        if checked and key_id in crowded:
            crowd = crowd_found.get(key_id)
            if crowd is None:
                stats.scanned += len(text)
                crowd = crowd_found[key_id] = index.crowd_postings(key_id, text)
        for p in crowd if crowd is not None else range(
                post_start[key_id], post_start[key_id + 1]):
            if stats.scanned > budget:
                stats.exhausted = True
                break
            at = POSTING * p
            entry = postings[at]
            literal_start = anchor_start - postings[at + 2]
            if literal_start < 0 or (entry, literal_start) in seen:
                continue
            ends = postings[at + 4]
            if ends:
                # The anchor's literal must fit the text at both ends: part of what
                # verify tests first, made from the posting alone. A key shared by
                # templates of like wording is mostly found inside another's literal.
                literal_end = literal_start + (ends >> 16)
                if literal_end > size:
                    continue
                first, last = ends >> 8 & 0xFF, ends & 0xFF
                if first and ord(text[literal_start]) != first:
                    continue
                if last and ord(text[literal_end - 1]) != last:
                    continue
            literal_index = postings[at + 1]
            if literal_index & LINE_FLAGS:
                # bind's test that the match is its whole line, made before reading
                # the template: most of these occurrences are words inside a sentence.
                if literal_index & OPENS_LINE and not opens_message(
                        text, doc.line_at(literal_start).content_start, literal_start):
                    continue
                if literal_index & CLOSES_LINE and not ends_message(
                        text, anchor_end, doc.line_at(anchor_end - 1).content_end):
                    continue
                literal_index &= ~LINE_FLAGS
            check = postings[at + 3] - 1
            if check >= 0 and checked and crowd is None:
                there = present.get(check)
                if there is None:
                    stats.scanned += len(text)
                    there = present[check] = check_words[check] in text
                if not there:
                    continue
            seen.add((entry, literal_start))
            stats.verifications += 1
            item = verify(compiled[entry], entry, literal_index, literal_start, doc, stats)
            if item is not None:
                out.append(item)
    stats.anchor_hits += hits
    return out


def verify(
    c: Compiled, entry: int, index: int, start: int, doc: Doc, stats: MatchStats
) -> Found | None:
    """Find the template's literals around one anchor occurrence, in linear time."""
    text, lits = doc.text, c.literals
    anchor = lits[index]
    stats.scanned += len(anchor)
    if not text.startswith(anchor, start):
        return None
    n = len(lits)
    if n == 1:
        return bind(c, entry, [start], doc, stats)
    starts = [0] * n
    starts[index] = start
    pos = start + len(anchor)
    size = len(text)
    last_window: tuple[int, int] | None = None  # where the last literal was looked for
    for k in range(index + 1, n):
        lit = lits[k]
        if k == n - 1 and not lit:
            break  # a trailing hole: runs to the end of the line
        limit = pos + MAX_HOLE
        if limit > size:
            limit = size
        if c.single_line[k - 1]:
            newline = text.find("\n", pos, limit)
            if newline >= 0:
                limit = newline
        stats.scanned += limit - pos + len(lit)
        found = text.find(lit, pos, limit + len(lit))
        if found < 0:
            return None
        if k == n - 1:
            last_window = (pos, limit + len(lit))
        starts[k] = found
        pos = found + len(lit)
    right = start
    for k in range(index - 1, -1, -1):
        lit = lits[k]
        if k == 0 and not lit:
            break  # a leading hole: runs from the start of the line's message
        low = right - MAX_HOLE
        if low < 0:
            low = 0
        if c.single_line[k]:
            newline = text.rfind("\n", low, right)
            if newline >= 0:
                low = newline + 1
        low = max(0, low - len(lit))
        stats.scanned += right - low
        found = text.rfind(lit, low, right)
        if found < 0:
            return None
        starts[k] = right = found
    item = _bind(c, entry, starts, doc, stats)
    if item is None and last_window is not None:
        # The last literal may occur inside the value before it too (`.` after
        # 'model.safetensors'): one more try at its last occurrence in the window.
        later = text.rfind(lits[-1], *last_window)
        if later > starts[-1]:
            stats.scanned += last_window[1] - last_window[0]
            starts[-1] = later
            return _bind(c, entry, starts, doc, stats)
    return item


def _bind(
    c: Compiled, entry: int, starts: list[int], doc: Doc, stats: MatchStats
) -> Found | None:
    """`bind`, with holes written side by side (`%q%s`, `%d%s`) read each way the text
    between their literals splits: the first hole taking it all and the next empty (an
    optional suffix, the usual case), the first taking the longest start its kind can
    hold (`12` of `12MB`), the first empty."""
    lits, n = c.literals, len(c.literals)
    side = [k for k in range(1, n - 1) if not lits[k]]
    if not side or not lits[0]:  # a leading hole beside another: as it is found
        return bind(c, entry, starts, doc, stats)
    spans: dict[int, tuple[int, int]] = {}
    for k in side:
        before = max(j for j in range(k) if lits[j] or j == 0)
        after = min(j for j in range(k + 1, n) if lits[j] or j == n - 1)
        lo = starts[before] + len(lits[before])
        if lits[after]:
            hi = starts[after]
        else:  # a trailing hole: to the end of the line's content
            line = doc.line_at(lo)
            hi = line.content_end if lo <= line.content_end else lo
        spans[k] = (lo, hi)
    text = doc.text
    readings: list[dict[int, int]] = [{k: hi for k, (lo, hi) in spans.items()}]
    typed: dict[int, int] = {}
    for k, (lo, hi) in spans.items():
        check = TYPE_CHECKS.get(c.types[k - 1])
        held = check.match(text, lo, hi) if check is not None and hi > lo else None
        typed[k] = held.end() if held is not None else lo
    readings += [typed, {k: lo for k, (lo, hi) in spans.items()}]
    tried: list[dict[int, int]] = []
    for reading in readings:
        if reading in tried:
            continue
        tried.append(reading)
        for k, at in reading.items():
            starts[k] = at
        item = bind(c, entry, starts, doc, stats)
        if item is not None:
            return item
    return None


def bind(
    c: Compiled, entry: int, starts: list[int], doc: Doc, stats: MatchStats
) -> Found | None:
    """The template whose literals start at `starts`, with its holes' values, if each
    value is one the hole may hold and the match covers as much of its line as the
    template's shape asks."""
    text, lits, n = doc.text, c.literals, len(c.literals)
    match_start, match_end = starts[0], starts[n - 1] + len(lits[n - 1])
    bounds = [(starts[k] + len(lits[k]), starts[k + 1]) for k in range(n - 1)]
    if n > 1 and not lits[0]:
        line = doc.line_at(starts[1])
        match_start = line.content_start if line.content_start <= starts[1] else line.start
        bounds[0] = (match_start, starts[1])
    if n > 1 and not lits[-1]:
        last = starts[n - 2] + len(lits[n - 2])
        line = doc.line_at(last)
        match_end = line.content_end if last <= line.content_end else max(last, line.end)
        match_end = unwrapped_end(text, line.content_start, match_start, last, match_end)
        bounds[-1] = (last, match_end)
    first_line = doc.line_at(match_start)
    last_line = first_line if match_end <= first_line.end else doc.line_at(match_end - 1)
    if first_line.group < 0:
        return None  # inside a traceback frame, code line or header
    whole = opens_message(text, first_line.content_start, match_start) and ends_message(
        text, match_end, last_line.content_end
    )
    if c.whole_line and not whole:
        return None
    values: list[tuple[str, str]] = []
    empties = 0
    if n > 1:
        names = c.names
        for k, (lo, hi) in enumerate(bounds):
            if hi - lo > MAX_HOLE or hi < lo:
                return None
            stats.scanned += hi - lo
            value = text[lo:hi]
            if (k == 0 and not lits[0]) or lits[k][-1:].isspace():
                value = value.lstrip()
            if (k == n - 2 and not lits[-1]) or lits[k + 1][:1].isspace():
                value = value.rstrip()
            if not value:
                if not c.empty_ok[k]:
                    return None
                empties += 1
            else:
                check = TYPE_CHECKS.get(c.types[k])
                if check is not None and not check.fullmatch(value.strip()):
                    return None
            values.append((names[k], value))
    covered = max(1, last_line.content_end - first_line.content_start)
    coverage = min(1.0, c.literal_length / covered)
    score = coverage * EMPTY_PENALTY**empties
    exact = not c.weak or coverage >= WEAK_COVERAGE
    if not exact:
        fixed = " ".join(" ".join(lits).split())
        detail = (f"template fits, but its only fixed text {fixed!r} is {coverage:.0%} of"
                  " the line: too little to be sure")
    elif empties:
        detail = f"exact template ({empties} empty hole(s))"
    else:
        detail = "exact template"
    return Found(
        entry, exact, tuple(values), (match_start, match_end), score, first_line.group,
        detail, partial=not whole,
    )


def unwrapped_end(text: str, content_start: int, match_start: int, start: int,
                  end: int) -> int:
    """Where a trailing hole's value (from `start`) ends on a line that wraps its message
    in Markdown marks (`` `("Connection broken: X(..)", X(..))` ``): before the closing
    marks when the line opens with the same ones before the match, else at `end`."""
    opened = content_start
    while opened < match_start and text[opened] in MARKS:
        opened += 1
    marks = text[content_start:opened]
    if not marks:
        return end
    closing = marks[::-1]
    if end - len(closing) > start and text.startswith(closing, end - len(closing)):
        return end - len(closing)
    return end


def opens_message(text: str, content_start: int, start: int) -> bool:
    """Whether a message starting at `start` begins its line's content: nothing but space
    before it, or a context and the separator that joins it to the error it wraps."""
    return blank(text, content_start, start) or after_context(text, content_start, start)


def ends_message(text: str, end: int, content_end: int) -> bool:
    """Whether a message ending at `end` ends its line's content: nothing but space after
    it, or the position in the input that its error type appends."""
    return blank(text, end, content_end) or position_tail(text, end, content_end)


def blank(text: str, start: int, end: int) -> bool:
    """Only whitespace between two offsets (short gaps only: a long one isn't blank)."""
    return end <= start or (end - start <= 64 and not text[start:end].strip())
