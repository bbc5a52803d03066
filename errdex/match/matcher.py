"""The matching engine: pasted text in, the records it contains out, with the values the
text puts in each template's holes.

Built once from every template, immutable afterwards; matching never changes it. A
Matcher owns the indexes built from its entries and runs one text through the steps,
each in a module of its own: reading the paste (`paste`), exact matches at anchor
occurrences (`index`, `verify`), Debug variants and bare exception types (`variants`),
near misses (`approximate`, `near`), and ordering (`rank`). It holds no matching logic
of its own beyond that sequence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from errdex.errors import EmptyInputError
from errdex.match.approximate import explained, find_approximate
from errdex.match.compiled import Compiled, compile_entry
from errdex.match.found import Found, MatchStats
from errdex.match.index import AnchorIndex, AnchorParts
from errdex.match.near import NearIndex, NearParts
from errdex.match.paste import parse_paste
from errdex.match.prefilter import plausible_hits, scan_keys
from errdex.match.rank import best_matches, convincing
from errdex.match.truncated import find_cut
from errdex.match.variants import NameIndex, NameParts
from errdex.match.verify import find_exact
from errdex.memory import release_free_memory
from errdex.models import Match, MatchEntry

TRIM_AFTER: Final = 10_000  # templates from which a build gives its freed memory back


@dataclass(frozen=True)
class SavedParts:
    """A matcher as errdex.match.saved reads it back: lazy entries and compiled
    templates, and each index's saved parts."""

    entries: Sequence[MatchEntry]
    compiled: Sequence[Compiled]
    anchors: AnchorParts
    names: NameParts
    near: NearParts


class Matcher:
    """Every template compiled into one automaton plus a word index for near misses."""

    def __init__(self, entries: Iterable[MatchEntry], saved: SavedParts | None = None) -> None:
        # What other modules build from this matcher once and keep with it (a log scan's
        # automaton): the matcher itself never changes, so neither do they.
        self.derived: dict[str, object] = {}
        if saved is not None:
            # Restored (errdex.match.saved): `entries` and `saved.compiled` are sequences
            # that decode and compile an entry when it is first read.
            self.entries: Sequence[MatchEntry] = saved.entries
            self._compiled: Sequence[Compiled] = saved.compiled
            self._index = AnchorIndex(self._compiled, saved.anchors)
            self._names = NameIndex(self.entries, self._compiled, saved.names)
            self._near = NearIndex((), saved=saved.near)
            return
        self.entries = tuple(entries)
        interned: dict[Any, Any] = {}
        self._compiled = tuple(compile_entry(entry, interned) for entry in self.entries)
        del interned
        self._index = AnchorIndex(self._compiled)
        self._names = NameIndex(self.entries, self._compiled)
        self._near = NearIndex(tuple(c.literals for c in self._compiled))
        if len(self.entries) >= TRIM_AFTER:
            release_free_memory()  # what building left in the C heap: 140 MB at 1M templates

    def parts(self) -> tuple[AnchorParts, NameParts, NearParts]:
        """What a restored matcher needs besides its entries (errdex.match.saved)."""
        return self._index.parts(), self._names.parts(), self._near.parts()

    def scan_keys(self) -> list[tuple[str, int]]:
        """What makes one log line worth a closer look (see `prefilter.scan_keys`)."""
        return scan_keys(self._index, self._names.variants)

    def plausible_hits(self, line: str, key_ids: Iterable[int]) -> bool:
        """False only if `match_with_stats(line, exact_only=True)` can't find an exact
        match anchored at any of `key_ids` (see `prefilter.plausible_hits`)."""
        return plausible_hits(self._index, self._compiled, line, key_ids)

    def match(self, text: str, limit: int = 10) -> list[Match]:
        """The records found in `text`, best first (see `match_with_stats`)."""
        return self.match_with_stats(text, limit)[0]

    def match_with_stats(
        self, text: str, limit: int = 10, *, exact_only: bool = False
    ) -> tuple[list[Match], MatchStats]:
        """Each record found in `text` once, at its best occurrence, best first (the order
        is `rank.best_matches`'); exact matches come before near misses. `exact_only`
        skips the nearest-record lookup and matches by exception type alone (what a log
        scan wants)."""
        if not text or not text.strip():
            raise EmptyInputError("nothing to explain: the input is blank")
        stats = MatchStats()
        paste = parse_paste(text)
        budget = 40 * len(text) + 2_000_000
        hit_cap = len(text) // 2 + 100_000
        found: list[Found] = []
        for doc in paste.docs:
            if stats.exhausted:
                break
            found.extend(find_exact(self._index, self._compiled, doc, stats, budget, hit_cap))
        for hit in paste.debug:
            found.extend(self._names.find_variant(hit, paste))
        if not exact_only:
            found.extend(self._names.find_by_type(paste))
            found.extend(self._names.find_by_frame(paste, self._compiled))
            sure = [f for f in found if convincing(f, self._compiled[f.entry],
                                                   self.entries[f.entry], paste)]
            matched = explained(paste, sure)
            found.extend(find_approximate(self._near, paste, matched, stats))
            found.extend(find_cut(self._near, self._compiled, paste, matched, stats))
        if not found:
            return [], stats
        return best_matches(found, self.entries, self._compiled, paste, text, limit), stats
