"""A store in plain dictionaries, for unit tests: no file, no SQL, the same answers as
the SQLite store for every method of the `Store` protocol (the contract test holds both).

Where SQLite has an engine's work to bound, this one is simply thorough: text search is
a whole-word match with the same term cap (in the order of the listing, not ranked), and
the key index is the same keys (`errdex.store.keys`) kept in a dict. Nothing here is
tuned for size or speed; it must not grow features the SQLite store lacks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from errdex.contract import record_from_dict, record_to_dict, template_from_dict
from errdex.models import IndexSummary, Listing, MatchEntry, Record, Repository, Snapshot
from errdex.store import keys
from errdex.store.base import (
    SEARCH_STEP_BUDGET,
    Backend,
    TextSearch,
    mapped,
    not_found,
    search_terms,
)


@dataclass
class _Stored:
    """One record as the SQLite store keeps it: its listing row, its contract's JSON
    text and what the matcher needs."""

    listing: dict[str, Any]
    data: str
    match_data: dict[str, Any]


class MemoryStore(Backend):
    """A store that lives as long as the object. Writes replace whole snapshots, as in
    SQLite; `data_version` changes with every write."""

    def __init__(self) -> None:
        self._snapshots: dict[str, dict[str, Any]] = {}
        self._records: dict[str, _Stored] = {}
        self._keys: dict[str, set[str]] = {}  # key -> record ids
        self._vocabulary: dict[str, frozenset[str]] = {}
        self._cache: dict[str, str] = {}
        self._version = 0

    # -- writing ------------------------------------------------------------------------

    @mapped("write")
    def replace_snapshot(
        self,
        snapshot: Snapshot,
        summary: IndexSummary,
        records: Sequence[Record],
        vocabulary: frozenset[str] | None = None,
    ) -> None:
        """A repository's records and keys swapped at once (the vocabulary too, when
        given; otherwise the one stored before is kept, as in SQLite)."""
        stored: dict[str, _Stored] = {}
        for record in records:
            data = record_to_dict(record)
            first = record.sites[0]
            listing = {
                "id": record.id, "repo": record.repo, "language": record.language.value,
                "kind": record.kind.value, "exception": record.exception,
                "message": record.template.message, "path": first.path, "line": first.line,
                "site_count": len(record.sites),
            }
            match_data = {
                "template": data["template"], "message": data["message"],
                "placeholders": data["placeholders"],
                "sites": [[s.path, s.line] for s in record.sites],
                "variant": first.variant, "variant_fields": list(first.variant_fields),
            }
            stored[record.id] = _Stored(listing, json.dumps(data, ensure_ascii=False),
                                        match_data)
        gone = {rid for rid, kept in self._records.items()
                if kept.listing["repo"] == snapshot.repo}
        for rid in gone:
            del self._records[rid]
        for holders in self._keys.values():
            holders -= gone
        self._snapshots[snapshot.repo] = {
            "repo": snapshot.repo, "commit_sha": snapshot.commit,
            "commit_date": snapshot.commit_date, "version": snapshot.version,
            "root": snapshot.root, "summary": json.dumps(asdict(summary)),
            "indexed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self._records.update(stored)
        keyed = keys.record_keys(
            (rid, template_from_dict(kept.match_data), kept.listing["exception"],
             kept.match_data["variant"], kept.listing["language"])
            for rid, kept in stored.items()
        )
        for key, rid in keyed:
            self._keys.setdefault(key, set()).add(rid)
        if vocabulary is not None:
            self._vocabulary[snapshot.repo] = frozenset(vocabulary)
        self._version += 1

    @mapped("write")
    def update_record_data(self, records: Sequence[Record]) -> None:
        """Rewrite stored records' contract (their prose), keeping everything else."""
        for record in records:
            if record.id in self._records:
                self._records[record.id].data = json.dumps(record_to_dict(record),
                                                           ensure_ascii=False)
        self._version += 1

    @mapped("write")
    def cache_put(self, key: str, data: str) -> None:
        self._cache[key] = data
        self._version += 1

    # -- reading ------------------------------------------------------------------------

    def _listed(self) -> list[_Stored]:
        """Every record, ordered by repository, path and line."""
        return sorted(self._records.values(), key=lambda kept: (
            kept.listing["repo"], kept.listing["path"], kept.listing["line"]))

    @mapped("read")
    def record_json(self, record_id: str) -> str:
        kept = self._records.get(record_id)
        if kept is None:
            raise not_found(record_id)
        return kept.data

    def record(self, record_id: str) -> Record:
        return record_from_dict(json.loads(self.record_json(record_id)))

    @mapped("read")
    def records(self, repo: str | None = None) -> list[Listing]:
        return [Listing(**kept.listing) for kept in self._listed()
                if repo is None or kept.listing["repo"] == repo]

    @mapped("read")
    def records_in_class(self, slug: str) -> list[Listing]:
        out = []
        for kept in self._listed():
            failure_class = json.loads(kept.data).get("failure_class")
            if isinstance(failure_class, dict) and failure_class.get("slug") == slug:
                out.append(Listing(**kept.listing))
        return out

    @mapped("read")
    def repos(self) -> list[Repository]:
        counts: dict[str, int] = {}
        for kept in self._records.values():
            counts[kept.listing["repo"]] = counts.get(kept.listing["repo"], 0) + 1
        return [
            Repository(**{name: snapshot[name] for name in
                          ("repo", "commit_sha", "commit_date", "version", "indexed_at")},
                       records=counts.get(repo, 0))
            for repo, snapshot in sorted(self._snapshots.items())
        ]

    @mapped("read")
    def has_repo(self, repo: str) -> bool:
        return repo in self._snapshots

    @mapped("read")
    def vocabulary(self, repo: str) -> frozenset[str]:
        return self._vocabulary.get(repo, frozenset())

    @mapped("read")
    def cache_get(self, key: str) -> str | None:
        return self._cache.get(key)

    def search_text(self, words: str, limit: int = 20) -> list[Listing]:
        """Every word must appear (see `text_search`)."""
        return self.text_search(words, limit).rows

    @mapped("read")
    def text_search(self, words: str, limit: int = 20, *,
                    budget: int = SEARCH_STEP_BUDGET) -> TextSearch:
        """The records whose message holds every term as a whole word; a step is one
        message looked at, and past `budget` steps there are no rows (`complete` False)."""
        terms = search_terms(words)
        if not terms:
            return TextSearch(rows=[], terms=(), steps=0, complete=True)
        rows: list[Listing] = []
        steps = 0
        for kept in self._listed():
            if len(rows) >= limit:
                break
            steps += 1
            if steps > budget:
                return TextSearch(rows=[], terms=terms, steps=steps, complete=False)
            message_words = set(_words(kept.listing["message"]))
            if all(term in message_words for term in terms):
                rows.append(Listing(**kept.listing))
        return TextSearch(rows=rows, terms=terms, steps=steps, complete=True)

    @mapped("read")
    def data_version(self) -> int:
        return self._version

    # -- matching -----------------------------------------------------------------------

    def _entries(self, chosen: list[_Stored]) -> list[MatchEntry]:
        """Entries built as the SQLite store builds them, from the same match data."""
        return keys.entries_from_rows(
            (kept.listing["id"], kept.listing["repo"], kept.listing["exception"],
             kept.listing["language"], json.dumps(kept.match_data),
             self._snapshots[kept.listing["repo"]]["version"])
            for kept in chosen
        )

    @mapped("read")
    def match_entries(self) -> list[MatchEntry]:
        return self._entries(self._listed())

    @mapped("read")
    def match_candidates(
        self, text: str, near: bool = False, limit: int | None = None,
        near_only: bool = False,
    ) -> list[MatchEntry] | None:
        """The same keys as SQLite's index, probed in the same order: at most `limit`
        key hits, the records they name in listing order. Never None: this index is
        always complete."""
        probe = list(keys.text_keys(text, near, near_only))
        if limit is not None:
            probe = keys.probe_order(probe)
        hit: set[str] = set()
        hits = 0
        for key in probe:
            for rid in sorted(self._keys.get(key, ())):
                if limit is not None and hits >= limit:
                    break
                hit.add(rid)
                hits += 1
        return self._entries([kept for kept in self._listed() if kept.listing["id"] in hit])


def _words(text: str) -> list[str]:
    """A message's words as the text search counts them (letters, digits, `_`)."""
    return "".join(c.lower() if c.isalnum() or c == "_" else " " for c in text).split()
