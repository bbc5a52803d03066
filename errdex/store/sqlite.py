"""The default store: one SQLite file (WAL, FTS5 for text search).

A snapshot is one version of a repository (keyed by repository and ref: see
`errdex.store.base` for the rule, the order of versions and what "removed" means); writing
it again replaces its records in one transaction, so readers see the old records or the
new ones, never half, and the repository's other versions are left as they are. A
snapshot's integer id is the order it was first indexed in (kept when it is re-indexed).
Each record row (one per snapshot and record id) is kept as its JSON contract plus the few
columns that listing, searching and matching need.

A database of schema 1 (before versions side by side) is refused with one line (a
StoreError: exit 1) that says to index again into a new file. Every public
method goes through `errdex.store.base.mapped`, the one place sqlite3's exceptions become
StoreError. This module must not import the matcher.
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from errdex.contract import record_from_dict, record_to_dict
from errdex.errors import StoreError
from errdex.models import (
    IndexSummary,
    Listing,
    MatchEntry,
    Record,
    RecordVersion,
    Repository,
    Snapshot,
)
from errdex.store import extractions, keys
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
from errdex.store.packing import pack, unpack

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    repo TEXT NOT NULL,
    ref TEXT NOT NULL,
    commit_sha TEXT,
    commit_date TEXT,
    version TEXT,
    root TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    summary TEXT NOT NULL,
    UNIQUE (repo, ref)
);
CREATE TABLE IF NOT EXISTS records (
    snapshot INTEGER NOT NULL REFERENCES snapshots(id),
    id TEXT NOT NULL,
    repo TEXT NOT NULL,
    language TEXT NOT NULL,
    kind TEXT NOT NULL,
    exception TEXT,
    message TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    site_count INTEGER NOT NULL,
    data TEXT NOT NULL,  -- packed JSON (errdex.store.packing; text in older databases)
    match_data TEXT NOT NULL,
    PRIMARY KEY (snapshot, id)
);
CREATE INDEX IF NOT EXISTS records_by_place ON records (snapshot, path, line);
CREATE INDEX IF NOT EXISTS records_by_id ON records (id);
CREATE VIRTUAL TABLE IF NOT EXISTS records_text USING fts5 (
    id UNINDEXED, snapshot UNINDEXED, message, tokenize = 'unicode61'
);
CREATE TABLE IF NOT EXISTS match_keys (key TEXT NOT NULL, snapshot INTEGER NOT NULL,
    rid TEXT NOT NULL, PRIMARY KEY (key, snapshot, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_keys_by_snapshot ON match_keys (snapshot);
CREATE TABLE IF NOT EXISTS match_index (snapshot INTEGER PRIMARY KEY,
    version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vocabulary (snapshot INTEGER PRIMARY KEY, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, data TEXT NOT NULL);
"""
# The matcher saved for the current snapshots (errdex.match.saved), and a count of
# snapshot writes: each one counts itself and drops what was saved.
SAVED_MATCHER_TABLE = """CREATE TABLE IF NOT EXISTS saved_matcher (
    id INTEGER PRIMARY KEY CHECK (id = 0), writes INTEGER NOT NULL, state TEXT, data BLOB)"""
SCHEMA += SAVED_MATCHER_TABLE + ";\n" + extractions.SQLITE_TABLE + ";\n"
_SNAPSHOT_WRITTEN = ("INSERT INTO saved_matcher (id, writes) VALUES (0, 1) ON CONFLICT (id) "
                     "DO UPDATE SET writes = writes + 1, state = NULL, data = NULL")


# A text search's steps are counted by a progress handler every SEARCH_STEP_GRAIN steps
# (its bounds: `errdex.store.base.MAX_SEARCH_TERMS` and `SEARCH_STEP_BUDGET`).
SEARCH_STEP_GRAIN = 1_000

WRITE_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock
READ_TIMEOUT = 2.0  # seconds a reader waits by default (the CLI's --lock-wait)
# What sqlite3 says when it cannot write next to the file (read-only media, a directory
# the user can't write): a reader then opens the database read-only.
PAGE_SIZE = 8192  # a 4 KB page holds one packed record and wastes the rest: 4.0 -> 3.5 KB each
_CANNOT_WRITE = ("unable to open database file", "readonly database", "read-only file system")


def _cannot_write(exc: sqlite3.Error) -> bool:
    return any(text in str(exc).lower() for text in _CANNOT_WRITE)


class SQLiteStore(Backend):
    """The default store. Open for reading with `create=False`: a missing file is then
    an error rather than a new empty database, and a file errdex can't write next to
    (read-only media: WAL needs its -shm and -wal files) is opened read-only, and failing
    that as immutable. `timeout` is how long to wait for a lock another process holds;
    waiting longer ends in a one-line StoreError "... is locked"."""

    backend_errors = (sqlite3.Error,)

    @mapped("open")
    def __init__(
        self, path: str | Path, *, create: bool = True, timeout: float | None = None
    ) -> None:
        self.path = Path(path)
        self.timeout = (WRITE_TIMEOUT if create else READ_TIMEOUT) if timeout is None else timeout
        self.read_only = False  # opened read-only because the location can't be written
        memory = str(path) == ":memory:"
        if not memory:
            if not create and not self.path.exists():
                raise StoreError(f"no database at {self.path}: run `errdex index` first")
            if self.path.is_dir():
                raise StoreError(f"database path {self.path} is a directory")
            if create:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(
                        f"cannot create {self.path.parent}: {exc.strerror}") from None
        if create or memory or self._writable():
            self._conn = self._connect(str(path), uri=False)
            try:
                version = self._user_version()
            except sqlite3.OperationalError as exc:
                if create or not _cannot_write(exc):
                    raise
                self._conn.close()
                version = self._open_read_only()
        else:
            version = self._open_read_only()
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer errdex (schema {version})")
        if 0 < version < SCHEMA_VERSION:
            self._conn.close()
            raise StoreError(f"{self.path} was written by an older errdex (schema {version}, "
                             "one version per repository): index again into a new file")
        if create:
            if version == 0:  # a new file: packed records (~2 KB) fill 8 KB pages, not 4 KB
                self._conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(SCHEMA)
            if version != SCHEMA_VERSION:  # setting it again is a write: servers reload
                self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif version == 0:
            raise StoreError(f"{self.path} is not an errdex database")

    def _connect(self, target: str, *, uri: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=self.timeout, check_same_thread=False, uri=uri)
        conn.row_factory = sqlite3.Row
        # A record's data is packed (errdex.store.packing): SQL that reads into it unpacks.
        conn.create_function("errdex_unpack", 1, unpack, deterministic=True)
        return conn

    def _user_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _writable(self) -> bool:
        """Whether SQLite can write the file and make its -wal/-shm next to it."""
        return os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)

    def _open_read_only(self) -> int:
        """Open read-only (`mode=ro`, which still reads a WAL database's -wal when its
        -shm exists), else as immutable (no locks, no -shm: right for read-only media,
        where no one can be writing). Returns the schema version."""
        self.read_only = True
        base = "file:" + urllib.parse.quote(str(self.path.absolute()))
        try:
            self._conn = self._connect(base + "?mode=ro", uri=True)
            return self._user_version()
        except sqlite3.OperationalError as exc:
            if not _cannot_write(exc):
                raise
            self._conn.close()
        self._conn = self._connect(base + "?immutable=1", uri=True)
        return self._user_version()

    def describe_error(self, action: str, exc: Exception) -> StoreError:
        """One line for a failing database; a lock met opening or reading says whose and
        how long we waited (a failed write keeps sqlite3's own words after the path)."""
        if action != "write" and ("locked" in str(exc) or "busy" in str(exc)):
            return StoreError(f"database {self.path} is locked by another process (waited "
                              f"{self.timeout:g} s)")
        return StoreError(f"cannot {action} database {self.path}: {exc}")

    def close(self) -> None:
        if not self.is_view:
            self._conn.close()

    # -- which snapshots a read sees ------------------------------------------------------

    _SNAPSHOT_ROWS = ("SELECT s.id, s.repo, s.ref, s.version, s.commit_sha, s.commit_date, "
                      "s.indexed_at{} FROM snapshots s")
    _COUNT = ", (SELECT count(*) FROM records r WHERE r.snapshot = s.id) AS records"

    def _snapshot_rows(self, repo: str | None = None,
                       counts: bool = False) -> list[dict[str, Any]]:
        """Snapshot rows by repository, each repository's newest first; with `counts`,
        each with its number of records (a count over its rows: only listings ask)."""
        query = self._SNAPSHOT_ROWS.format(self._COUNT if counts else "")
        args: tuple[str, ...] = ()
        if repo is not None:
            query, args = query + " WHERE s.repo = ?", (repo,)
        rows = self._conn.execute(query + " ORDER BY s.repo, s.id DESC", args).fetchall()
        return [dict(row) for row in rows]


    def _record_row(self, record_id: str, version: str | None) -> sqlite3.Row:
        """The row of `record_id` a read returns: in `version` (NotFoundError when that
        version lacks it), else in the snapshot the repository's reads see, else (a
        message only an older version has) in the newest snapshot that holds it."""
        if version is None and not self.pins:
            # The newest snapshot has the highest id: the newest holding the record is it,
            # when it holds the record, else the one to fall back to. One query.
            row = self._conn.execute("SELECT data FROM records WHERE id = ? "
                                     "ORDER BY snapshot DESC LIMIT 1", (record_id,)).fetchone()
            if row is None:
                raise not_found(record_id)
            assert isinstance(row, sqlite3.Row)
            return row
        found = self._conn.execute("SELECT repo FROM records WHERE id = ? LIMIT 1",
                                   (record_id,)).fetchone()
        if found is None:
            raise not_found(record_id)
        snapshot = self._snapshot_id(str(found["repo"]), version)
        row = self._conn.execute("SELECT data FROM records WHERE snapshot = ? AND id = ?",
                                 (snapshot, record_id)).fetchone()
        if row is None and version is not None:
            raise not_found(record_id, version)
        if row is None:
            row = self._conn.execute("SELECT data FROM records WHERE id = ? "
                                     "ORDER BY snapshot DESC LIMIT 1", (record_id,)).fetchone()
        assert isinstance(row, sqlite3.Row)
        return row

    # -- writing ------------------------------------------------------------------------

    @mapped("write")
    def replace_snapshot(
        self,
        snapshot: Snapshot,
        summary: IndexSummary,
        records: Sequence[Record],
        vocabulary: frozenset[str] | None = None,
    ) -> list[str]:
        """One version's records, its match keys and (when given) the names of its code,
        swapped in one transaction: readers never see one without the other, and the
        repository's other versions are untouched. Returns the records' contract texts."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        rows, texts = [], []
        for record in records:
            data = record_to_dict(record)
            first = record.sites[0]
            match_data = keys.match_data(record, data)
            texts.append(json.dumps(data, ensure_ascii=False))
            rows.append((record.id, record.repo, record.language.value, record.kind.value,
                         record.exception, record.template.message, first.path, first.line,
                         len(record.sites), pack(texts[-1]),
                         json.dumps(match_data, ensure_ascii=False)))
        ref = snapshot_ref(snapshot)
        described = (snapshot.commit, snapshot.commit_date, snapshot.version, snapshot.root,
                     now, json.dumps(asdict(summary)))
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            found = self._conn.execute("SELECT id FROM snapshots WHERE repo = ? AND ref = ?",
                                       (snapshot.repo, ref)).fetchone()
            if found is None:
                sid = int(self._conn.execute(
                    "INSERT INTO snapshots (repo, ref, commit_sha, commit_date, version, root, "
                    "indexed_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (snapshot.repo, ref, *described)).lastrowid or 0)
            else:
                sid = int(found["id"])  # re-indexed: it keeps its place among the versions
                self._conn.execute(
                    "UPDATE snapshots SET commit_sha = ?, commit_date = ?, version = ?, "
                    "root = ?, indexed_at = ?, summary = ? WHERE id = ?", (*described, sid))
                keys.delete_snapshot(self._conn, sid)
                self._conn.execute("DELETE FROM records_text WHERE snapshot = ?", (sid,))
                self._conn.execute("DELETE FROM records WHERE snapshot = ?", (sid,))
            self._conn.executemany(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(sid, *row) for row in rows],
            )
            self._conn.executemany(
                "INSERT INTO records_text (id, snapshot, message) VALUES (?, ?, ?)",
                [(row[0], sid, row[5]) for row in rows],
            )
            keys.index_snapshot(self._conn, sid)
            self._conn.execute(_SNAPSHOT_WRITTEN)
            if vocabulary is not None:
                self._conn.execute("INSERT OR REPLACE INTO vocabulary VALUES (?, ?)",
                                   (sid, " ".join(sorted(vocabulary))))
        return texts

    # -- reading ------------------------------------------------------------------------

    @mapped("read")
    def record_json(self, record_id: str, version: str | None = None) -> str:
        """The stored contract text itself: the API serves it without a parse/dump."""
        return unpack(self._record_row(record_id, version)["data"])

    @mapped("read")
    def record_versions(self, record_id: str) -> list[RecordVersion]:
        """Every indexed version of the record's repository, oldest first, with the
        record's status there (see `errdex.store.base.record_versions_of`)."""
        found = self._conn.execute("SELECT repo FROM records WHERE id = ? LIMIT 1",
                                   (record_id,)).fetchone()
        if found is None:
            raise not_found(record_id)
        held = {
            int(row["snapshot"]): (str(row["status"] or "current"),
                                   json.loads(row["match_data"])["sites"])
            for row in self._conn.execute(
                "SELECT snapshot, json_extract(errdex_unpack(data), '$.status') AS status, "
                "match_data FROM records WHERE id = ?", (record_id,))
        }
        return record_versions_of(self._snapshot_rows(str(found["repo"])), held)

    @mapped("read")
    def records_in_class(self, slug: str) -> list[Listing]:
        """Listing rows of every record of one failure class, across repositories."""
        conn = self._conn
        rows = conn.execute(
            "SELECT id, repo, language, kind, exception, message, path, line, site_count "
            "FROM records WHERE snapshot IN (SELECT value FROM json_each(?)) "
            "AND json_extract(errdex_unpack(data), '$.failure_class.slug') = ? "
            "ORDER BY repo, path, line", (json.dumps(self._chosen()), slug)
        ).fetchall()
        return [Listing(**dict(row)) for row in rows]

    def record(self, record_id: str, version: str | None = None) -> Record:
        return record_from_dict(json.loads(self.record_json(record_id, version)))

    @mapped("read")
    def records(self, repo: str | None = None,
                version: str | None = None) -> list[Listing]:
        """Listing rows (no snippets) of each repository's newest snapshot (or of
        `version` of `repo`; `version` without `repo`: that version of every repository
        that has it), ordered by repository, path and line."""
        snapshots = self._listed_snapshots(repo, version)
        rows = self._conn.execute(
            "SELECT id, repo, language, kind, exception, message, path, line, site_count "
            "FROM records WHERE snapshot IN (SELECT value FROM json_each(?)) "
            "ORDER BY repo, path, line", (json.dumps(snapshots),)).fetchall()
        return [Listing(**dict(row)) for row in rows]

    @mapped("read")
    def repos(self) -> list[Repository]:
        """One row per repository: the snapshot its reads see, and `versions`, the refs
        of all its snapshots, newest first."""
        return repo_rows(self._snapshot_rows(counts=True), self._chosen())

    @mapped("read")
    def snapshots(self, repo: str | None = None) -> list[Repository]:
        """Every indexed version (of `repo`), by repository, newest first."""
        return repo_rows(self._snapshot_rows(repo, counts=True))

    # -- analysis (errdex.analyze.check, errdex.write.llm) ----------------------------------

    @mapped("read")
    def vocabulary(self, repo: str, version: str | None = None) -> frozenset[str]:
        snapshot = self._snapshot_id(repo, version)
        row = self._conn.execute("SELECT names FROM vocabulary WHERE snapshot = ?",
                                 (snapshot,)).fetchone()
        return frozenset(row["names"].split()) if row else frozenset()

    @mapped("write")
    def update_record_data(self, records: Sequence[Record],
                           version: str | None = None) -> None:
        """Rewrite stored records' contract (their prose), keeping everything else, in
        the snapshot reads of their repository see (or `version` of it)."""
        snapshots = {repo: self._snapshot_id(repo, version) for repo in {r.repo for r in records}}
        rows = [(pack(json.dumps(record_to_dict(r), ensure_ascii=False)), snapshots[r.repo], r.id)
                for r in records if snapshots[r.repo] is not None]
        with self._conn:
            self._conn.executemany("UPDATE records SET data = ? WHERE snapshot = ? AND id = ?",
                                   rows)

    @mapped("read")
    def cache_get(self, key: str) -> str | None:
        conn = self._conn
        row = conn.execute("SELECT data FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return str(row["data"]) if row else None

    @mapped("write")
    def cache_put(self, key: str, data: str) -> None:
        with self._conn:
            self._conn.execute("INSERT OR REPLACE INTO llm_cache VALUES (?, ?)", (key, data))

    @mapped("read")
    def cached_extractions(self, repo: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The extraction cache's bytes for those `keys` it holds (`errdex.store.extractions`)."""
        return extractions.sqlite_get(self._conn, repo, keys)

    @mapped("write")
    def keep_extractions(self, repo: str, entries: Mapping[str, bytes],
                         keep: Collection[str] = ()) -> None:
        """Cache `entries`; of the repository's older ones keep only those in `keep`."""
        extractions.sqlite_keep(self._conn, repo, entries, keep)

    @mapped("read")
    def has_repo(self, repo: str) -> bool:
        conn = self._conn
        row = conn.execute("SELECT 1 FROM snapshots WHERE repo = ?", (repo,)).fetchone()
        return row is not None

    def search_text(self, words: str, limit: int = 20) -> list[Listing]:
        """Full-text search over messages; every word must appear (see `text_search`)."""
        return self.text_search(words, limit).rows

    @mapped("read")
    def text_search(self, words: str, limit: int = 20, *,
                    budget: int = SEARCH_STEP_BUDGET) -> TextSearch:
        """Full-text search over messages, bounded whatever the text: FTS5 ANDs its terms
        and a repeated term costs as much as a new one (a pasted 15 KB "a a a ..." took
        minutes), so the words are deduplicated and at most MAX_SEARCH_TERMS kept, and the
        query stops after `budget` virtual-machine steps (then no rows, and `complete`
        is False)."""
        terms = search_terms(words)
        if not terms:
            return TextSearch(rows=[], terms=(), steps=0, complete=True)
        query = " ".join('"' + term + '"' for term in terms)
        grain = max(1, min(SEARCH_STEP_GRAIN, budget // 10))  # counted to within a tenth
        calls = 0

        def progress() -> int:
            nonlocal calls
            calls += 1
            return 1 if calls * grain > budget else 0

        conn = self._conn
        chosen = self._chosen()
        conn.set_progress_handler(progress, grain)
        try:
            rows = conn.execute(
                "SELECT r.id, r.repo, r.language, r.kind, r.exception, r.message, r.path, "
                "r.line, r.site_count "
                "FROM records_text t JOIN records r ON r.snapshot = t.snapshot AND r.id = t.id "
                "WHERE records_text MATCH ? AND t.snapshot IN (SELECT value FROM json_each(?)) "
                "ORDER BY bm25(records_text) LIMIT ?",
                (query, json.dumps(chosen), limit),
            ).fetchall()
            complete = True
        except sqlite3.OperationalError:
            if calls * grain <= budget:
                raise
            rows, complete = [], False
        finally:
            conn.set_progress_handler(None, 0)
        return TextSearch(rows=[Listing(**dict(row)) for row in rows], terms=terms,
                          steps=calls * grain, complete=complete)

    @mapped("read")
    def data_version(self) -> int:
        """A number that changes when another connection commits to the database: a
        server compares it to notice a re-index cheaply (one pragma, no table read). Only
        comparable between calls on the same store from the same thread."""
        conn = self._conn
        return int(conn.execute("PRAGMA data_version").fetchone()[0])

    @mapped("read")
    def match_candidates(
        self, text: str, near: bool = False, limit: int | None = None,
        near_only: bool = False,
    ) -> list[MatchEntry] | None:
        """The entries `text` can match (at most `limit`), from the on-disk key index
        (`errdex.store.keys`); None when this database has no complete key index (then
        use `match_entries`)."""
        conn = self._conn
        return keys.candidate_entries(conn, text, self._chosen(), near, limit, near_only)

    def _matcher_state(self) -> str:
        try:
            row = self._conn.execute("SELECT writes FROM saved_matcher").fetchone()
        except sqlite3.OperationalError:  # a database from before saved matchers
            row = None
        chosen = set(self._chosen())
        shown = [(r["id"], r["indexed_at"]) for r in self._snapshot_rows() if r["id"] in chosen]
        return json.dumps(["sqlite", row["writes"] if row else 0, sorted(shown)])

    @mapped("read")
    def matcher_state(self) -> str:
        """What the matcher over `match_entries` was built from: changes with every
        snapshot written (see `errdex.match.load`)."""
        return self._matcher_state()

    @mapped("read")
    def saved_matcher(self, state: str) -> bytes | None:
        """The matcher saved at `state`, as saved; None for another state, or a view that
        reads chosen versions."""
        if self.pins:
            return None
        try:
            row = self._conn.execute("SELECT data FROM saved_matcher WHERE state = ?",
                                     (state,)).fetchone()
        except sqlite3.OperationalError:
            return None
        return bytes(row["data"]) if row and row["data"] is not None else None

    @mapped("write")
    def save_matcher(self, state: str, data: bytes) -> bool:
        """Keep `data` as the matcher at `state`, if that is still the state (a writer may
        have committed since it was read); False when it isn't, or when this store can't
        be written (read-only, or a view)."""
        if self.pins or self.read_only:
            return False
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(SAVED_MATCHER_TABLE)  # in a database from before it
            if self._matcher_state() != state:
                return False
            self._conn.execute(
                "INSERT INTO saved_matcher VALUES (0, 0, ?, ?) ON CONFLICT (id) DO UPDATE "
                "SET state = excluded.state, data = excluded.data", (state, data))
        return True

    @mapped("read")
    def match_entries(self) -> list[MatchEntry]:
        """What the matcher needs of every record, without the pages' prose."""
        rows = self._conn.execute(
            "SELECT r.id, r.repo, r.exception, r.language, r.match_data, s.version "
            "FROM records r JOIN snapshots s ON s.id = r.snapshot "
            "WHERE r.snapshot IN (SELECT value FROM json_each(?)) "
            "ORDER BY r.repo, r.path, r.line", (json.dumps(self._chosen()),))
        return keys.entries_from_rows(rows)
