"""The default store: one SQLite file (WAL, FTS5 for text search).

A snapshot of a repository is written in one transaction, replacing the previous one, so
readers see the old records or the new ones, never half. Each record is kept as its JSON
contract plus the few columns that listing, searching and matching need. Every public
method goes through `errdex.store.base.mapped`, the one place sqlite3's exceptions become
StoreError. This module must not import the matcher.
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from errdex.contract import record_from_dict, record_to_dict
from errdex.errors import StoreError
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

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    repo TEXT PRIMARY KEY,
    commit_sha TEXT,
    commit_date TEXT,
    version TEXT,
    root TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY,
    repo TEXT NOT NULL REFERENCES snapshots(repo),
    language TEXT NOT NULL,
    kind TEXT NOT NULL,
    exception TEXT,
    message TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    site_count INTEGER NOT NULL,
    data TEXT NOT NULL,
    match_data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_repo ON records (repo, path, line);
CREATE VIRTUAL TABLE IF NOT EXISTS records_text USING fts5 (
    id UNINDEXED, repo UNINDEXED, message, tokenize = 'unicode61'
);
CREATE TABLE IF NOT EXISTS match_keys (key TEXT NOT NULL, rid TEXT NOT NULL,
    PRIMARY KEY (key, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_keys_by_record ON match_keys (rid);
CREATE TABLE IF NOT EXISTS match_index (repo TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vocabulary (repo TEXT PRIMARY KEY, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, data TEXT NOT NULL);
"""


# A text search's steps are counted by a progress handler every SEARCH_STEP_GRAIN steps
# (its bounds: `errdex.store.base.MAX_SEARCH_TERMS` and `SEARCH_STEP_BUDGET`).
SEARCH_STEP_GRAIN = 1_000

WRITE_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock
READ_TIMEOUT = 2.0  # seconds a reader waits by default (the CLI's --lock-wait)
# What sqlite3 says when it cannot write next to the file (read-only media, a directory
# the user can't write): a reader then opens the database read-only.
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
        if create:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(SCHEMA)
            self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif version == 0:
            raise StoreError(f"{self.path} is not an errdex database")

    def _connect(self, target: str, *, uri: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=self.timeout, check_same_thread=False, uri=uri)
        conn.row_factory = sqlite3.Row
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
        self._conn.close()

    # -- writing ------------------------------------------------------------------------

    @mapped("write")
    def replace_snapshot(
        self,
        snapshot: Snapshot,
        summary: IndexSummary,
        records: Sequence[Record],
        vocabulary: frozenset[str] | None = None,
    ) -> None:
        """All of a repository's records, its match keys and (when given) the names of its
        code, swapped in one transaction: readers never see one without the other."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        rows = []
        for record in records:
            data = record_to_dict(record)
            first = record.sites[0]
            match_data = {
                "template": data["template"], "message": data["message"],
                "placeholders": data["placeholders"],
                "sites": [[s.path, s.line] for s in record.sites],
                "variant": first.variant, "variant_fields": list(first.variant_fields),
            }
            rows.append((record.id, record.repo, record.language.value, record.kind.value,
                         record.exception, record.template.message, first.path, first.line,
                         len(record.sites), json.dumps(data, ensure_ascii=False),
                         json.dumps(match_data, ensure_ascii=False)))
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            keys.delete_repo(self._conn, snapshot.repo)
            self._conn.execute("DELETE FROM records_text WHERE repo = ?", (snapshot.repo,))
            self._conn.execute("DELETE FROM records WHERE repo = ?", (snapshot.repo,))
            self._conn.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?)",
                (snapshot.repo, snapshot.commit, snapshot.commit_date, snapshot.version,
                 snapshot.root, now, json.dumps(asdict(summary))),
            )
            self._conn.executemany(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
            self._conn.executemany(
                "INSERT INTO records_text (id, repo, message) VALUES (?, ?, ?)",
                [(row[0], row[1], row[5]) for row in rows],
            )
            keys.index_repo(self._conn, snapshot.repo)
            if vocabulary is not None:
                self._conn.execute("INSERT OR REPLACE INTO vocabulary VALUES (?, ?)",
                                   (snapshot.repo, " ".join(sorted(vocabulary))))

    # -- reading ------------------------------------------------------------------------

    @mapped("read")
    def record_json(self, record_id: str) -> str:
        """The stored contract text itself: the API serves it without a parse/dump."""
        conn = self._conn
        row = conn.execute("SELECT data FROM records WHERE id = ?", (record_id,)).fetchone()
        if row is None:
            raise not_found(record_id)
        return str(row["data"])

    @mapped("read")
    def records_in_class(self, slug: str) -> list[Listing]:
        """Listing rows of every record of one failure class, across repositories."""
        conn = self._conn
        rows = conn.execute(
            "SELECT id, repo, language, kind, exception, message, path, line, site_count "
            "FROM records WHERE json_extract(data, '$.failure_class.slug') = ? "
            "ORDER BY repo, path, line", (slug,)
        ).fetchall()
        return [Listing(**dict(row)) for row in rows]

    def record(self, record_id: str) -> Record:
        return record_from_dict(json.loads(self.record_json(record_id)))

    @mapped("read")
    def records(self, repo: str | None = None) -> list[Listing]:
        """Listing rows (no snippets), ordered by repository, path and line."""
        query = ("SELECT id, repo, language, kind, exception, message, path, line, site_count "
                 "FROM records")
        args: tuple[str, ...] = ()
        if repo is not None:
            query += " WHERE repo = ?"
            args = (repo,)
        conn = self._conn
        rows = conn.execute(query + " ORDER BY repo, path, line", args).fetchall()
        return [Listing(**dict(row)) for row in rows]

    @mapped("read")
    def repos(self) -> list[Repository]:
        conn = self._conn
        rows = conn.execute(
            "SELECT s.repo, s.commit_sha, s.commit_date, s.version, s.indexed_at, "
            "(SELECT count(*) FROM records r WHERE r.repo = s.repo) AS records "
            "FROM snapshots s ORDER BY s.repo"
        ).fetchall()
        return [Repository(**dict(row)) for row in rows]

    # -- analysis (errdex.analyze.check, errdex.write.llm) ----------------------------------

    @mapped("read")
    def vocabulary(self, repo: str) -> frozenset[str]:
        conn = self._conn
        row = conn.execute("SELECT names FROM vocabulary WHERE repo = ?", (repo,)).fetchone()
        return frozenset(row["names"].split()) if row else frozenset()

    @mapped("write")
    def update_record_data(self, records: Sequence[Record]) -> None:
        """Rewrite stored records' contract (their prose), keeping everything else."""
        rows = [(json.dumps(record_to_dict(r), ensure_ascii=False), r.id) for r in records]
        with self._conn:
            self._conn.executemany("UPDATE records SET data = ? WHERE id = ?", rows)

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
        conn.set_progress_handler(progress, grain)
        try:
            rows = conn.execute(
                "SELECT r.id, r.repo, r.language, r.kind, r.exception, r.message, r.path, "
                "r.line, r.site_count "
                "FROM records_text t JOIN records r ON r.id = t.id "
                "WHERE records_text MATCH ? ORDER BY bm25(records_text) LIMIT ?",
                (query, limit),
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
        return keys.candidate_entries(conn, text, near, limit, near_only)

    @mapped("read")
    def match_entries(self) -> list[MatchEntry]:
        """What the matcher needs of every record, without the pages' prose."""
        rows = self._conn.execute(
            "SELECT id, repo, exception, language, match_data, (SELECT version FROM "
            "snapshots s WHERE s.repo = records.repo) AS version "
            "FROM records ORDER BY repo, path, line")
        return keys.entries_from_rows(rows)
