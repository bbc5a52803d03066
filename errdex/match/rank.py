"""Ordering what a paste was found to hold: each found template's rank and reasons, its
best occurrence, and each record once, best first, as the Matches a caller sees.

Ranking reads what finding left (`Found`) and the traceback's evidence
(`errdex.match.evidence`); it finds nothing itself and drops nothing but repeats and
what is past the limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from errdex.languages import languages_that
from errdex.match.chains import in_chain, order_chains
from errdex.match.compiled import Compiled
from errdex.match.evidence import components, library_rank, path_agrees, text_libraries, type_tail
from errdex.match.found import Found
from errdex.match.near import near_detail
from errdex.match.paste import Frame, Group, Paste
from errdex.models import Match, MatchEntry, SiteKind

_IDENTITY = ((0, 0),)  # a Doc's offsets are the input's own
# Languages that print an exception's type before its message: there a type the text
# names that differs from the record's says the record is not this error.
_NAMED = frozenset(languages_that("exception_named_in_output"))
_new_object = object.__new__
_set_attribute = object.__setattr__


def best_matches(
    found: list[Found], entries: Sequence[MatchEntry], compiled: Sequence[Compiled],
    paste: Paste, text: str, limit: int
) -> list[Match]:
    """Rank: exact matches first; then a site a traceback frame points at (path and
    line, then path only); then the exception type agreeing with the text's `Type:`
    prefix; then more literal characters; then a match that accounts for its whole
    line over one that leaves text over; then the record of the library (and
    version) the text's frames come from; then fewer holes; then score. Each record
    appears once, at its best occurrence."""
    libraries = text_libraries(text)
    # In a traceback, the exception that ended it comes first; its causes follow.
    final = next((g.index for g in reversed(paste.groups) if g.frame is not None), None)
    # Each entry's best occurrence, then, best first, each record's first entry: a
    # record is one entry from a store, so this reads the entries of what is shown.
    best: dict[int, Found] = {}
    for item in found:
        rank(item, compiled[item.entry], entries[item.entry], paste, final, libraries)
        if item.entry not in best or item.rank < best[item.entry].rank:
            best[item.entry] = item
    ordered = list(best.values())
    if len(ordered) > 1:
        ordered.sort(key=_rank_of)
        order_chains(ordered, entries, compiled, paste)
        _say_if_ambiguous(ordered, entries)
    matches: list[Match] = []
    shown: set[str] = set()
    for f in ordered:
        if len(matches) >= limit:
            break
        record_id = entries[f.entry].record_id
        if record_id in shown:
            continue
        shown.add(record_id)
        doc = paste.docs[paste.groups[f.group].doc]
        span = f.span if doc.pieces == _IDENTITY else doc.span_to_original(*f.span)
        score = round(min(1.0, max(0.0, f.score)), 4)
        matches.append(_new_match(record_id, score, f.exact, f.values, span,
                                  f.why or _detail(f), f.site_index))
    return matches


def _say_if_ambiguous(ordered: list[Found], entries: Sequence[MatchEntry]) -> None:
    """Two exact matches that nothing but the text ranks (no frame, no library path, no
    type): the first one says the text can't tell them apart, naming the other library,
    or, for two records of one library over the same text, the other one's site."""
    first = ordered[0]
    repo = entries[first.entry].repo
    if not first.exact or "traceback" in first.why or "exception type" in first.why:
        return
    for other in ordered[1:6]:
        if not other.exact or other.rank[:5] != first.rank[:5]:
            continue
        if in_chain(first) and other.span != first.span:
            continue  # its wrapper or the error it wraps, not another reading of its text
        entry = entries[other.entry]
        if entry.repo != repo:
            first.why = (f"{first.why or _detail(first)}; the text alone fits a record of "
                         f"{entry.repo} too: a traceback would tell them apart")
            return
        if other.group == first.group and other.span[0] < first.span[1] and (
                first.span[0] < other.span[1]) and entry.record_id != entries[
                first.entry].record_id:
            where = f"{entry.sites[0][0]}:{entry.sites[0][1]}" if entry.sites else "elsewhere"
            first.why = (f"{first.why or _detail(first)}; the text alone fits another record"
                         f" of {repo} too ({where}): a traceback would tell them apart")
            return


def rank(
    item: Found,
    c: Compiled,
    entry: MatchEntry,
    paste: Paste,
    final: int | None,
    libraries: frozenset[tuple[str, str | None]],
) -> None:
    """Fill `item.rank` (smaller is better), `item.why` and `item.site_index`."""
    group: Group = paste.groups[item.group]
    reasons: list[str] = []  # besides item.detail
    frame_rank = 2
    frame: Frame | None = group.frame
    if frame is not None:
        frame_path = components(frame.path)
        for i, (path, line) in enumerate(c.sites):
            if path_agrees(path, frame_path):
                if line == frame.line:
                    frame_rank, item.site_index = 0, i
                    break
                frame_rank = 1
        where = f"{'/'.join(frame_path[-2:])}:{frame.line}"
        if frame_rank == 0:
            reasons.append(f"traceback frame {where}")
        elif frame_rank == 1:
            reasons.append(f"same file as frame {where}, other line")
    text_type = type_tail(group.exception) if group.exception else None
    agrees = text_type is not None and text_type == c.exception
    if agrees:
        reasons.append(f"exception type {text_type} agrees")
    holes = len(c.specs)
    # A traceback's final exception, else a message that is not a `Caused by:` line.
    # Text inside a Debug value's quotes is matched again, unescaped, in a doc of its own.
    last = int(group.cause or (group.debug and not item.variant))
    if final is not None:
        last = 0 if item.group == final else 1
    library = 2
    if libraries:
        library = library_rank(entry.repo, entry.version, libraries)
        if library < 2:
            reasons.append("traceback comes from " + entry.repo
                           + (f" {entry.version}" if library == 0 else ""))
    # Frames first: the site the traceback's innermost frame names, of the type the
    # text names (or none named), comes before any text similarity elsewhere.
    framed = 0 if frame_rank == 0 and (agrees or text_type is None) else 1
    # A line the library prints (a log record, a usage hint) comes after an error it
    # raises in the same paste: the error is what the user asks about.
    printed = int(entry.kind == SiteKind.LOG.value)
    disagrees = text_type is not None and c.exception is not None and not agrees and (
        entry.language in _NAMED)
    if item.exact and not disagrees and explains_content(item, c, group):
        item.rank = (framed, 0, last, printed, frame_rank, 0 if agrees else 1, -c.solid_chars,
                     item.partial, library, holes, -item.score)
    elif item.exact or item.cut:
        # A paste cut short, or an exact match that the text's own type contradicts or
        # whose fixed text is all outside the message (`ReadError: {message}` on
        # `tarfile.ReadError: ...`): by how much of the template the text holds.
        if disagrees:
            reasons.append(f"the text names {text_type}, the record raises {c.exception}")
        held = item.score if item.cut else float(explains_content(item, c, group))
        item.rank = (framed, 1, last, printed, frame_rank, 0 if agrees else 1, -held, library,
                     holes, -c.solid_chars)
    else:
        # A near miss both ways: how much of the template the message holds, and how much
        # of the message the template explains (a short template inside a longer message
        # holds all of itself, and explains little).
        both = (item.score + item.covers) / 2
        item.rank = (framed, 2, last, printed, frame_rank, 0 if agrees else 1, -both, -item.score,
                     -item.order, library, -c.solid_chars, holes)
    if reasons:  # else the detail alone, made when shown (_detail)
        item.why = "; ".join([_detail(item), *reasons])


def explains_content(item: Found, c: Compiled, group: Group) -> bool:
    """Whether some of a match's fixed text lies inside its message, not all of it in
    the prefix before it (the exception's name: `ReadError: {message}` on
    `tarfile.ReadError: ...`)."""
    if not c.literal_length:
        # A record found by its type alone: a value-only message is all explained
        # (score 1), a sentence not (score 0, see `NameIndex.find_by_type`).
        return item.score > 0.0 or not item.exact
    if group.end <= group.start:
        return True
    return c.literal_length - max(0, group.start - item.span[0]) > 0


def convincing(
    item: Found, c: Compiled, entry: MatchEntry, paste: Paste
) -> bool:
    """An exact match that leaves its message explained: one neither contradicted by
    the type the text names nor made of fixed text outside the message. Messages with
    no convincing match get the partial-paste and nearest-record lookups too."""
    if not item.exact:
        return False
    group = paste.groups[item.group]
    text_type = type_tail(group.exception) if group.exception else None
    if (text_type is not None and c.exception is not None and text_type != c.exception
            and entry.language in _NAMED):
        return False
    return explains_content(item, c, group)


def _detail(found: Found) -> str:
    """How a found template fits; for a near miss, made only for those shown."""
    return found.detail or near_detail(found.words, found.score)


def _rank_of(found: Found) -> tuple[int | float, ...]:
    return found.rank


def _new_match(
    record_id: str, score: float, exact: bool, values: tuple[tuple[str, str], ...],
    span: tuple[int, int], why: str, site_index: int | None,
) -> Match:
    """A Match, as Match(...) makes it: a frozen dataclass sets each field through
    object.__setattr__, which cost a fifth of matching a one-line message; this sets them
    at once. tests/test_match.py checks it covers every field."""
    match = _new_object(Match)
    _set_attribute(match, "__dict__", {
        "record_id": record_id, "score": score, "exact": exact, "values": values,
        "span": span, "why": why, "site_index": site_index,
    })
    return match
