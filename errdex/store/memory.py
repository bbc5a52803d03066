"""A store in plain dictionaries, for unit tests: no file, no SQL, the same answers as
the SQLite store for every method of the `Store` protocol (the contract test holds both).

Where SQLite has an engine's work to bound, this one is simply thorough: text search is
a whole-word match with the same term cap (in the order of the listing, not ranked), and
the key index is the same keys (`errdex.store.keys`) kept in a dict. Nothing here is
tuned for size or speed; it must not grow features the SQLite store lacks.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from errdex.contract import record_from_dict, record_to_dict, template_from_dict
from errdex.models import (
    IndexSummary,
    Listing,
    MatchEntry,
    Record,
    RecordVersion,
    Repository,
    Snapshot,
)
from errdex.store import keys
from errdex.store.base import (
    SEARCH_STEP_BUDGET,
    Backend,
    TextSearch,
    mapped,
    not_found,
    record_versions_of,
    repo_rows,
    search_terms,
    snapshot_ref,
)


@dataclass
class _Stored:
    """One record as the SQLite store keeps it: its listing row, its contract's JSON
    text and what the matcher needs."""

    listing: dict[str, Any]
    data: str
    match_data: dict[str, Any]


class MemoryStore(Backend):
    """A store that lives as long as the object. Writes replace whole snapshots (one
    version of a repository), as in SQLite; `data_version` changes with every write."""

    def __init__(self) -> None:
        self._snapshots: dict[int, dict[str, Any]] = {}  # id (index order) -> its row
        self._records: dict[tuple[int, str], _Stored] = {}  # (snapshot, id) -> record
        self._keys: dict[str, set[tuple[int, str]]] = {}  # key -> (snapshot, record id)
        self._vocabulary: dict[int, frozenset[str]] = {}
        self._snapshot_writes = 0  # and the matcher saved at a state (errdex.match.load)
        self._saved_matcher: tuple[str, bytes] | None = None
        self._cache: dict[str, str] = {}
        self._extractions: dict[str, dict[str, bytes]] = {}  # repo -> key -> bytes
        self._version = 0
        self._next = 1

    # -- which snapshots a read sees ----------------------------------------------------

    def _snapshot_rows(self, repo: str | None = None) -> list[dict[str, Any]]:
        counts: dict[int, int] = {}
        for sid, _ in self._records:
            counts[sid] = counts.get(sid, 0) + 1
        rows = [row | {"records": counts.get(sid, 0)}
                for sid, row in self._snapshots.items() if repo is None or row["repo"] == repo]
        return sorted(rows, key=lambda row: (row["repo"], -row["id"]))


    def _record(self, record_id: str, version: str | None) -> _Stored:
        """As SQLite's `_record_row`: that version, else the chosen snapshot, else the
        newest snapshot holding the record."""
        holders = sorted(sid for sid, rid in self._records if rid == record_id)
        if not holders:
            raise not_found(record_id)
        repo = self._records[(holders[0], record_id)].listing["repo"]
        kept = self._records.get((self._snapshot_id(repo, version) or 0, record_id))
        if kept is None and version is not None:
            raise not_found(record_id, version)
        return kept or self._records[(holders[-1], record_id)]

    # -- writing ------------------------------------------------------------------------

    @mapped("write")
    def replace_snapshot(
        self,
        snapshot: Snapshot,
        summary: IndexSummary,
        records: Sequence[Record],
        vocabulary: frozenset[str] | None = None,
    ) -> list[str]:
        """One version's records and keys swapped at once (the vocabulary too, when
        given; otherwise the one stored before is kept, as in SQLite). Returns the
        records' contract texts."""
        ref = snapshot_ref(snapshot)
        sid = next((sid for sid, row in self._snapshots.items()
                    if (row["repo"], row["ref"]) == (snapshot.repo, ref)), None)
        if sid is None:
            sid, self._next = self._next, self._next + 1
        stored: dict[tuple[int, str], _Stored] = {}
        texts: list[str] = []
        for record in records:
            data = record_to_dict(record)
            first = record.sites[0]
            listing = {
                "id": record.id, "repo": record.repo, "language": record.language.value,
                "kind": record.kind.value, "exception": record.exception,
                "message": record.template.message, "path": first.path, "line": first.line,
                "site_count": len(record.sites),
            }
            match_data = keys.match_data(record, data)
            texts.append(json.dumps(data, ensure_ascii=False))
            stored[(sid, record.id)] = _Stored(listing, texts[-1], match_data)
        gone = {key for key in self._records if key[0] == sid}
        for key in gone:
            del self._records[key]
        for holders in self._keys.values():
            holders -= gone
        self._snapshots[sid] = {
            "id": sid, "repo": snapshot.repo, "ref": ref, "commit_sha": snapshot.commit,
            "commit_date": snapshot.commit_date, "version": snapshot.version,
            "root": snapshot.root, "summary": json.dumps(asdict(summary)),
            "indexed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self._records.update(stored)
        keyed = keys.record_keys(
            (rid, template_from_dict(kept.match_data), kept.listing["exception"],
             kept.match_data["variant"], kept.listing["language"])
            for (_, rid), kept in stored.items()
        )
        for word, rid in keyed:
            self._keys.setdefault(word, set()).add((sid, rid))
        if vocabulary is not None:
            self._vocabulary[sid] = frozenset(vocabulary)
        self._version += 1
        self._snapshot_writes += 1
        self._saved_matcher = None
        return texts

    @mapped("write")
    def update_record_data(self, records: Sequence[Record],
                           version: str | None = None) -> None:
        """Rewrite stored records' contract (their prose), keeping everything else."""
        for record in records:
            key = (self._snapshot_id(record.repo, version) or 0, record.id)
            if key in self._records:
                self._records[key].data = json.dumps(record_to_dict(record),
                                                      ensure_ascii=False)
        self._version += 1

    @mapped("write")
    def cache_put(self, key: str, data: str) -> None:
        self._cache[key] = data
        self._version += 1

    @mapped("write")
    def keep_extractions(self, repo: str, entries: Mapping[str, bytes],
                         keep: Collection[str] = ()) -> None:
        held = self._extractions.get(repo, {})
        kept = {key: data for key, data in held.items() if key in set(keep)}
        self._extractions[repo] = kept | {key: bytes(data) for key, data in entries.items()}

    def cached_extractions(self, repo: str, keys: Sequence[str]) -> dict[str, bytes]:
        held = self._extractions.get(repo, {})
        return {key: held[key] for key in keys if key in held}

    # -- reading ------------------------------------------------------------------------

    def _listed(self, snapshots: Sequence[int] | None = None) -> list[_Stored]:
        """The records of `snapshots` (default: the chosen ones), ordered by repository,
        path and line."""
        chosen = set(self._chosen() if snapshots is None else snapshots)
        return sorted((kept for (sid, _), kept in self._records.items() if sid in chosen),
                      key=lambda kept: (kept.listing["repo"], kept.listing["path"],
                                        kept.listing["line"]))

    @mapped("read")
    def record_json(self, record_id: str, version: str | None = None) -> str:
        return self._record(record_id, version).data

    def record(self, record_id: str, version: str | None = None) -> Record:
        return record_from_dict(json.loads(self.record_json(record_id, version)))

    @mapped("read")
    def record_versions(self, record_id: str) -> list[RecordVersion]:
        kept = self._record(record_id, None)
        held = {sid: (json.loads(stored.data).get("status") or "current",
                      stored.match_data["sites"])
                for (sid, rid), stored in self._records.items() if rid == record_id}
        return record_versions_of(self._snapshot_rows(kept.listing["repo"]), held)

    @mapped("read")
    def records(self, repo: str | None = None,
                version: str | None = None) -> list[Listing]:
        snapshots = self._listed_snapshots(repo, version)
        return [Listing(**kept.listing) for kept in self._listed(snapshots)]

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
        return repo_rows(self._snapshot_rows(), self._chosen())

    @mapped("read")
    def snapshots(self, repo: str | None = None) -> list[Repository]:
        return repo_rows(self._snapshot_rows(repo))

    @mapped("read")
    def has_repo(self, repo: str) -> bool:
        return any(row["repo"] == repo for row in self._snapshots.values())

    @mapped("read")
    def vocabulary(self, repo: str, version: str | None = None) -> frozenset[str]:
        return self._vocabulary.get(self._snapshot_id(repo, version) or 0, frozenset())

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

    def _entries(self, chosen: list[tuple[int, _Stored]]) -> list[MatchEntry]:
        """Entries built as the SQLite store builds them, from the same match data."""
        return keys.entries_from_rows(
            (kept.listing["id"], kept.listing["repo"], kept.listing["exception"],
             kept.listing["language"], json.dumps(kept.match_data),
             self._snapshots[sid]["version"])
            for sid, kept in chosen
        )

    def _listed_with_snapshot(self) -> list[tuple[int, _Stored]]:
        chosen = set(self._chosen())
        return sorted(((sid, kept) for (sid, _), kept in self._records.items() if sid in chosen),
                      key=lambda pair: (pair[1].listing["repo"], pair[1].listing["path"],
                                        pair[1].listing["line"]))

    @mapped("read")
    def matcher_state(self) -> str:
        chosen = set(self._chosen())
        shown = [(r["id"], r["indexed_at"]) for r in self._snapshot_rows() if r["id"] in chosen]
        return json.dumps(["memory", self._snapshot_writes, sorted(shown)])

    @mapped("read")
    def saved_matcher(self, state: str) -> bytes | None:
        saved = self._saved_matcher
        return saved[1] if saved and saved[0] == state and not self.pins else None

    @mapped("write")
    def save_matcher(self, state: str, data: bytes) -> bool:
        if self.pins or state != self.matcher_state():
            return False
        self._saved_matcher = (state, data)
        return True

    @mapped("read")
    def match_entries(self) -> list[MatchEntry]:
        return self._entries(self._listed_with_snapshot())

    @mapped("read")
    def match_candidates(
        self, text: str, near: bool = False, limit: int | None = None,
        near_only: bool = False,
    ) -> list[MatchEntry] | None:
        """The same keys as SQLite's index, probed in the same order: at most `limit`
        key hits among the chosen snapshots, the records they name in listing order.
        Never None: this index is always complete."""
        chosen = set(self._chosen())
        probe = list(keys.text_keys(text, near, near_only))
        if limit is not None:
            probe = keys.probe_order(probe)
        hit: set[tuple[int, str]] = set()
        hits = 0
        for key in probe:
            for held in sorted(self._keys.get(key, ())):
                if held[0] not in chosen:
                    continue
                if limit is not None and hits >= limit:
                    break
                hit.add(held)
                hits += 1
        return self._entries([(sid, kept) for sid, kept in self._listed_with_snapshot()
                              if (sid, kept.listing["id"]) in hit])


def _words(text: str) -> list[str]:
    """A message's words as the text search counts them (letters, digits, `_`)."""
    return "".join(c.lower() if c.isalnum() or c == "_" else " " for c in text).split()
