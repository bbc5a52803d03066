"""Wrapped errors in one message: `a: b: c`, where each error's text holds the next one's
(`While parsing config: yaml: line 89: did not find expected key`, an exception type
whose message is another error's, `error decoding response body: EOF while parsing a
value`). Each segment is its own exact match; the innermost one is the cause and comes
first, each wrapper after the error it wraps, and each says which part of the chain it is.

Reads what ranking left (`Found.rank`, `why`) and reorders the exact matches of one
message among the places they already hold; it finds nothing and drops nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.match.compiled import Compiled
from errdex.match.found import Found
from errdex.match.near import near_detail
from errdex.match.paste import Paste
from errdex.models import MatchEntry

# Fewer literal non-space characters and a match inside another error's text is more
# likely a word of that text than an error of its own.
MIN_INNER_SOLID = 8
MAX_CLOSING = 16  # characters of a wrapper's text after the error its hole holds
_JOIN = re.compile(r"\s*:\s*")  # how one error's text is put after another's: `a: b`


def order_chains(
    ordered: list[Found], entries: Sequence[MatchEntry], compiled: Sequence[Compiled],
    paste: Paste,
) -> None:
    """Put each chain's innermost exact match first among the places its segments hold
    in `ordered` (sorted by rank), its wrappers after it, outermost last; say so in each
    one's `why`. A chain whose segments disagree on a traceback frame keeps its order:
    a frame is stronger evidence than the text's nesting."""
    exact = [f for f in ordered if f.exact and not f.cut and len(f.rank) > 1 and f.rank[1] <= 1]
    if len(exact) < 2:
        return
    outers: dict[int, list[int]] = {}  # index in `exact` -> indexes of what wraps it
    for i, inner in enumerate(exact):
        for j, outer in enumerate(exact):
            if i != j and _wraps(outer, inner, entries, compiled, paste):
                outers.setdefault(i, []).append(j)
    if not outers:
        return
    depth = [_depth(i, outers, set()) for i in range(len(exact))]
    members = sorted({i for i in outers} | {j for js in outers.values() for j in js})
    if len({exact[i].rank[0] for i in members}) > 1:
        return
    places = sorted(ordered.index(exact[i]) for i in members)
    chain = sorted(members, key=lambda i: (-depth[i], places.index(ordered.index(exact[i]))))
    for place, i in zip(places, chain, strict=True):
        ordered[place] = exact[i]
    for i in members:
        item = exact[i]
        wrapped_by = [entries[exact[j].entry].template.message for j in outers.get(i, ())]
        wraps = [entries[exact[k].entry].template.message for k, js in outers.items() if i in js]
        parts = [item.why or item.detail or near_detail(item.words, item.score)]
        if not wraps:
            parts.append(f"the innermost error of a chain, the cause; wrapped by {wrapped_by[0]!r}")
        elif wrapped_by:
            parts.append(f"a wrapper in a chain: wraps {wraps[0]!r}, wrapped by {wrapped_by[0]!r}")
        else:
            parts.append(f"the outermost error of a chain: wraps {wraps[0]!r}, the cause is inside")
        item.why = "; ".join(parts)


def in_chain(found: Found) -> bool:
    """Whether `order_chains` placed this match in a chain (its `why` says so)."""
    return "error of a chain" in found.why or "a wrapper in a chain" in found.why


def _wraps(
    outer: Found, inner: Found, entries: Sequence[MatchEntry], compiled: Sequence[Compiled],
    paste: Paste,
) -> bool:
    """Whether `inner` is an error of its own inside `outer`'s text: in one of its holes,
    or put after it with `: ` (a source's text added by another Display)."""
    if outer.group != inner.group or entries[outer.entry].record_id == entries[
            inner.entry].record_id:
        return False
    c_in, c_out = compiled[inner.entry], compiled[outer.entry]
    if c_in.solid_chars < MIN_INNER_SOLID or inner.variant:
        return False
    group = paste.groups[inner.group]
    text = paste.docs[group.doc].text
    (o_start, o_end), (i_start, i_end) = outer.span, inner.span
    if not c_out.literal_length:
        # The text's exception type, found by its name, whose message is made at run
        # time: the message it holds is another error's (`raise InvalidRequirement(str(e))`),
        # which may run on past the type's line.
        return c_in.literal_length > 0 and o_start <= i_start < o_end
    if o_start <= i_start and i_end <= o_end and (o_start, o_end) != (i_start, i_end):
        # The wrapped error ends its hole: at the wrapper's end or just before its closing
        # text (`<urlopen error ...>`), not somewhere inside a hole that ran on over
        # later lines of a log kept on one line (`...: {e}` then `\n...Retrying ...`).
        tail = text[i_end:o_end]
        if len(tail.strip()) > MAX_CLOSING or "\\n" in text[o_start:i_end] or "\n" in tail:
            return False
        piece = text[i_start:i_end]
        # Its own trailing hole may run on over the wrapper's closing text (the `>` of
        # `<urlopen error Tunnel connection failed: 407 ...>`).
        return any(piece in value or (value.strip() and piece.startswith(value))
                   for _, value in outer.values)
    return o_end <= i_start and _JOIN.fullmatch(text[o_end:i_start]) is not None


def _depth(i: int, outers: dict[int, list[int]], seen: set[int]) -> int:
    """How many errors wrap match `i`, on the longest way out."""
    if i in seen:
        return 0
    seen = seen | {i}
    return max((1 + _depth(j, outers, seen) for j in outers.get(i, ())), default=0)
