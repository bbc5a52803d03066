"""Near misses for a paste: the nearest records of each message no exact match explains
(a message from a nearby version, or pasted only in part), flagged not exact.

Which messages are explained is decided here; how the nearest records of one message
are found and scored is `errdex.match.near`'s job. Each distinct message is looked up
once, and the number of lookups per paste is bounded.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Final

from errdex.match.found import Found, MatchStats
from errdex.match.near import NearIndex
from errdex.match.paste import Group, Paste

APPROX_MAX_GROUPS: Final = 1_000  # messages that get a nearest-record lookup, per input


def explained(paste: Paste, found: list[Found]) -> set[int]:
    """The messages exact matches account for: each match's own, and every other that
    lies inside a match (the later lines of a multi-line message, each a message of its
    own to the paste reader). A nearest record is looked up for none of them."""
    explained = {f.group for f in found if f.exact}
    if len(explained) == len(paste.groups):
        return explained
    spans = sorted((paste.groups[f.group].doc, f.span[0], f.span[1])
                   for f in found if f.exact and f.span[1] > f.span[0])
    if not spans:
        return explained
    reach: list[int] = []  # the furthest end of a match starting here or earlier in its doc
    for k, (doc, _, end) in enumerate(spans):
        reach.append(max(end, reach[-1]) if k and spans[k - 1][0] == doc else end)
    for group in paste.groups:
        if group.index not in explained:
            i = bisect_right(spans, (group.doc, group.start, 1 << 62)) - 1
            if i >= 0 and spans[i][0] == group.doc and group.end <= reach[i]:
                explained.add(group.index)
    return explained


def find_approximate(
    near: NearIndex, paste: Paste, matched: set[int], stats: MatchStats
) -> list[Found]:
    """Nearest records for messages with no exact match (`errdex.match.near` says how
    they are found and what their score means), each distinct message looked up once."""
    out: list[Found] = []
    if len(matched) >= len(paste.groups):
        return out  # every message has its exact match (most pastes)
    budget = 20 * sum(len(doc.text) for doc in paste.docs) + 1_000_000
    done: dict[str, list[tuple[tuple[int, float, tuple[int, int], float], float]]] = {}
    for group in paste.groups:  # a message repeated later was already matched
        if group.index in matched:
            done[_message(paste, group)] = []
    for group in paste.groups:
        if group.index in matched or group.debug or group.end <= group.start:
            continue
        message = _message(paste, group)
        if message not in done:
            if len(done) > APPROX_MAX_GROUPS or stats.approximate > budget:
                break
            nearest, read = near.nearest(message)
            stats.approximate += read
            shares = near.message_shares(message, [n[0] for n in nearest])
            done[message] = list(zip(nearest, shares, strict=True))
        for (i, score, words, order), covers in done[message]:
            span = (group.start, group.end)
            out.append(Found(i, False, (), span, score, group.index, "", order=order,
                             words=words, covers=covers))
    return out


def _message(paste: Paste, group: Group) -> str:
    doc = paste.docs[group.doc]
    return doc.text[group.start : min(group.end, group.start + 2_000)]
