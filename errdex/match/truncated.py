"""Pastes that hold only part of a message: the beginning of a long template (the rest
cut by the user, a terminal or the issue tracker, or added by a later version), a
message cut mid-word or mid-value, a multi-line message re-indented or hard-wrapped, or
one whose last line differs. Such a paste has no exact match (a literal is missing or
its whitespace differs), and its words may be too few of the template's for a near miss.

Candidates are the templates sharing word pairs with the message at a low word share
(`near.NearIndex.nearest` at CUT_WORD_SHARE); each is then read against the message, both
with whitespace collapsed: from the template's start, every literal in order, a hole
taking the text up to the next literal, until the message ends (inside a literal: cut
mid-word; inside a hole: cut mid-value) or the two part (the message's last line
differs, or other text follows; inside the template's first literal only once the text
holds PARTED_MIN_CHARS of it: a shared opening phrase is no sign of the same message).
What counts is how much of the template the text holds in order, in literal non-space
characters: a candidate holding fewer than CUT_MIN_CHARS of them is dropped. The score
is the share of the template's literal characters held. Such records are flagged not
exact. Knows nothing of ranking.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Final

from errdex.match.compiled import Compiled
from errdex.match.found import Found, MatchStats
from errdex.match.near import NearIndex
from errdex.match.paste import Doc, Group, Paste

CUT_WORD_SHARE: Final = 0.15  # idf-weighted word share of a candidate (see near.py)
CUT_MIN_CHARS: Final = 20  # literal non-space characters the text must hold in order
PARTED_MIN_CHARS: Final = 40  # ... where it goes on otherwise inside the first literal
CUT_MAX_MESSAGE: Final = 4_000  # characters of a message (and the lines after it) read
CUT_MAX_GROUPS: Final = 64  # messages read this way per paste
_SPACE: Final = re.compile(r"\s+")


def held_in_order(literals: tuple[str, ...], message: str) -> tuple[int, int] | None:
    """(literal non-space characters of the template the message holds in order from
    its start, all of them), or None if the message doesn't start as the template
    does. Both are compared with every run of whitespace as one space."""
    text = _SPACE.sub(" ", message).strip()
    pieces = [_SPACE.sub(" ", lit) for lit in literals]
    total = sum(_solid(p) for p in pieces)
    if not text or not total:
        return None
    held, pos = 0, 0
    for k, piece in enumerate(pieces):
        if k == 0:
            piece = piece.lstrip()
            if not piece:
                continue  # a leading hole: the message starts inside its value
            if not text.startswith(piece):
                # A message that goes on otherwise inside the first literal (not cut
                # there) may only share an opening phrase with it (`Unhandled exception
                # in task 5b84...`, `Unhandled exception in client_connected_cb`): it
                # must hold more of it than one that ends there.
                common = _common_prefix(text, piece)
                held = _solid(piece[:common])
                parted = common < len(text) and piece[common:].strip()
                if not common or (parted and held < PARTED_MIN_CHARS):
                    return None
                return held, total
            held, pos = _solid(piece), len(piece)
            continue
        if not piece:
            continue  # a trailing hole
        if pos == 0:
            piece = piece.lstrip()
        at = text.find(piece, pos)
        if at < 0:
            # Cut inside this literal (its beginning ends the message), or in the hole
            # before it, or the message goes on otherwise from here.
            for cut in range(min(len(piece), len(text) - pos), 0, -1):
                if text.endswith(piece[:cut]):
                    return held + _solid(piece[:cut]), total
            return held, total
        held += _solid(piece)
        pos = at + len(piece)
    return held, total


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _solid(text: str) -> int:
    return len(text) - text.count(" ")


def find_cut(
    near: NearIndex, compiled: Sequence[Compiled], paste: Paste, matched: set[int],
    stats: MatchStats,
) -> list[Found]:
    """Records whose template's beginning the unexplained messages of `paste` hold."""
    out: list[Found] = []
    seen: set[str] = set()
    stops: dict[int, list[int]] = {}
    for group in paste.groups:
        if len(seen) >= CUT_MAX_GROUPS:
            break
        if group.index in matched or group.debug or group.end <= group.start:
            continue
        message, end = _message_and_following(paste, group, stops)
        if message in seen:
            continue
        seen.add(message)
        candidates, read = near.nearest(message[:2_000], CUT_WORD_SHARE)
        stats.approximate += read
        for i, _, words, _ in candidates:
            held = held_in_order(compiled[i].literals, message)
            if held is None or held[0] < CUT_MIN_CHARS:
                continue
            share = held[0] / held[1]
            detail = (f"partial paste: the text holds {held[0]} of the template's {held[1]}"
                      " literal characters, in order from its start")
            out.append(Found(i, False, (), (group.start, end), share, group.index, detail,
                             order=share, words=words, cut=True))
    return out


def _message_and_following(paste: Paste, group: Group,
                            stops: dict[int, list[int]]) -> tuple[str, int]:
    """A message and the message lines right after it in its doc (a hard-wrapped or
    multi-line message is several messages to the paste reader), up to a line that is
    structure (a traceback frame, code), across blank lines. `stops`: each doc's
    structure lines, found once, so a paste of many message lines costs one pass."""
    doc = paste.docs[group.doc]
    text = doc.text
    limit = min(len(text), group.start + CUT_MAX_MESSAGE)
    if group.doc not in stops:
        stops[group.doc] = _structure_after(doc)
    newline = text.find("\n", group.end)
    if newline < 0 or newline + 1 >= limit:
        return text[group.start : group.end], group.end
    line = bisect_right(doc.line_starts, newline + 1) - 1
    stop = min(doc.lines[stops[group.doc][line]].start - 1
               if stops[group.doc][line] < len(doc.lines) else len(text), limit)
    if stop <= newline:  # the next message line is structure: the message ends here
        return text[group.start : group.end], group.end
    end = len(text[:stop].rstrip())  # read on past the message: its own trailing spaces too
    return text[group.start : end], end


def _structure_after(doc: Doc) -> list[int]:
    """For each line of the doc, the first line at or after it that is structure and not
    blank (the number of lines when none is)."""
    out = [len(doc.lines)] * (len(doc.lines) + 1)
    for i in range(len(doc.lines) - 1, -1, -1):
        line = doc.lines[i]
        blank = not doc.text[line.start : line.end].strip()
        out[i] = i if line.group < 0 and not blank else out[i + 1]
    return out
