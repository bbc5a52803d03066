"""The PostgreSQL store: the same records, snapshots and key index as the SQLite store
(`errdex.store.sqlite`, the reference), in a database a team or a public site shares,
selected by a URL (`--db postgresql://...`, `ERRDEX_DB`; see `errdex.store.open_store`).

What differs, and why:
- **Transactions.** Every public read is one REPEATABLE READ transaction, so the several
  statements of one read (which snapshots it sees, then their rows) see one state of the
  database; every write is one READ COMMITTED transaction that first takes an advisory
  lock on its (repository, ref), so two processes writing different repositories go on
  at once and two writing the same snapshot take turns. A snapshot is replaced in one
  transaction: readers see the old records or the new ones, never half.
- **Text search** is PostgreSQL's own: a `tsvector` per record under a GIN index, probed
  with a `tsquery` that ANDs the terms. The lexemes are the message's words by errdex's
  rule (letters, digits and `_`, lower-cased: `errdex.store.base.search_terms`), not a
  text-search configuration's parser, whose tokens (file paths, hosts, versions kept
  whole, hyphenated words) would find other records than SQLite and memory do. Rows are
  ranked by `ts_rank`. A step is one matching row ranked; past the budget (at SQLite's
  rate of about 15 steps a row) the search returns no rows (`complete` False).
- **The data version** is the sum of the snapshots' generations; every write of a
  snapshot (or of its records' prose) sets its generation from a sequence, so the sum
  grows with every commit, whatever order concurrent writers commit in. One small read,
  comparable between any two connections.
- Text columns are `COLLATE "C"`: listings sort by code point, as in SQLite. A NUL
  character, which PostgreSQL text cannot hold, is stored in the plain columns as U+FFFD
  (the contract JSON escapes it, so pages are unchanged).

Every public method goes through `errdex.store.base.mapped`, the one place psycopg's
exceptions become StoreError. This module must not import the matcher.
"""

from __future__ import annotations

import functools
import json
import os
import re
import urllib.parse
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.rows import dict_row

from errdex.contract import record_from_dict, record_to_dict, template_from_dict
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
    LISTING_COLUMNS,
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

SCHEMA_VERSION = 2  # the SQLite store's: the same records and snapshots
SCHEMA = """
CREATE TABLE IF NOT EXISTS errdex_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE SEQUENCE IF NOT EXISTS snapshot_generation;
CREATE TABLE IF NOT EXISTS snapshots (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo TEXT COLLATE "C" NOT NULL,
    ref TEXT COLLATE "C" NOT NULL,
    commit_sha TEXT, commit_date TEXT, version TEXT,
    root TEXT NOT NULL, indexed_at TEXT NOT NULL, summary TEXT NOT NULL,
    generation BIGINT NOT NULL,
    UNIQUE (repo, ref)
);
CREATE TABLE IF NOT EXISTS records (
    snapshot BIGINT NOT NULL REFERENCES snapshots(id),
    id TEXT COLLATE "C" NOT NULL,
    repo TEXT COLLATE "C" NOT NULL,
    language TEXT NOT NULL, kind TEXT NOT NULL, exception TEXT,
    message TEXT COLLATE "C" NOT NULL,
    path TEXT COLLATE "C" NOT NULL,
    line INTEGER NOT NULL, site_count INTEGER NOT NULL,
    status TEXT NOT NULL, class_slug TEXT,
    data TEXT NOT NULL, match_data TEXT NOT NULL,
    words TSVECTOR NOT NULL,
    PRIMARY KEY (snapshot, id)
);
CREATE INDEX IF NOT EXISTS records_by_place ON records (snapshot, repo, path, line);
CREATE INDEX IF NOT EXISTS records_by_id ON records (id);
CREATE INDEX IF NOT EXISTS records_words ON records USING GIN (words);
CREATE TABLE IF NOT EXISTS match_keys (key TEXT NOT NULL, snapshot BIGINT NOT NULL,
    rid TEXT NOT NULL, PRIMARY KEY (key, snapshot, rid));
CREATE INDEX IF NOT EXISTS match_keys_by_snapshot ON match_keys (snapshot);
CREATE TABLE IF NOT EXISTS match_index (snapshot BIGINT PRIMARY KEY,
    version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vocabulary (snapshot BIGINT PRIMARY KEY, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, data TEXT NOT NULL);
"""
# The matcher saved at a state (errdex.match.saved): snapshots' generations tell the state.
SAVED_MATCHER_TABLE = ("CREATE TABLE IF NOT EXISTS saved_matcher (id INTEGER PRIMARY KEY, "
                       "state TEXT NOT NULL, data BYTEA NOT NULL)")
SCHEMA += SAVED_MATCHER_TABLE + ";\n" + extractions.POSTGRES_TABLE + ";\n"
SCHEMA_LOCK = 0x65727264  # advisory lock: two processes creating the schema take turns
CONNECT_TIMEOUT = 10  # seconds to reach the server
STEPS_PER_ROW = 15  # what a matching row costs SQLite's text search, in its VM steps

Row = dict[str, Any]
B = TypeVar("B", bound="PostgresStore")
P = ParamSpec("P")
R = TypeVar("R")


def display_url(url: str) -> str:
    """The URL as errdex prints it: any password replaced by `***`."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def _one_line(exc: Exception) -> str:
    """libpq's message (several lines, with FATAL: prefixes and hints) as one line."""
    text = re.sub(r"\s+", " ", str(exc)).strip()
    return re.sub(r"\b(FATAL|ERROR|DETAIL|HINT):\s*", "", text) or type(exc).__name__


def _plain(text: str | None) -> str | None:
    return None if text is None else text.replace("\x00", "\ufffd")


def _words(text: str) -> list[str]:
    """A message's lexemes: its words as every backend's text search counts them."""
    return sorted(set("".join(c.lower() if c.isalnum() or c == "_" else " "
                              for c in text).split()))


def _in_transaction(
    write: bool,
) -> Callable[[Callable[Concatenate[B, P], R]], Callable[Concatenate[B, P], R]]:
    """Run a public method in one transaction (a nested call joins the caller's)."""

    def wrap(method: Callable[Concatenate[B, P], R]) -> Callable[Concatenate[B, P], R]:
        @functools.wraps(method)
        def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> R:
            fresh = self._conn.info.transaction_status not in _BUSY
            try:
                with self._transaction(write):
                    return method(self, *args, **kwargs)
            except psycopg.OperationalError:
                # The server dropped the connection (a restart, a terminated backend): a
                # read is tried once more on a new one; a write fails, and the next call
                # connects again.
                if write or not fresh or not self._conn.broken:
                    raise
            with self._transaction(write):
                return method(self, *args, **kwargs)

        return run

    return wrap


def reading(method: Callable[Concatenate[B, P], R]) -> Callable[Concatenate[B, P], R]:
    return mapped("read")(_in_transaction(False)(method))


def writing(method: Callable[Concatenate[B, P], R]) -> Callable[Concatenate[B, P], R]:
    return mapped("write")(_in_transaction(True)(method))


_BUSY = (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR,
         psycopg.pq.TransactionStatus.ACTIVE)


class PostgresStore(Backend):
    """A store in a PostgreSQL database (`url`: a libpq URL). With `create=False` the
    database must already hold errdex's tables; with `create` they are made (the
    database itself must exist). `timeout`: seconds a writer waits for another writer of
    the same snapshot (readers never wait for writers)."""

    backend_errors = (psycopg.Error,)

    @mapped("open")
    def __init__(self, url: str, *, create: bool = True, timeout: float | None = None) -> None:
        self.url = url
        self.name = display_url(url)
        self.timeout = timeout
        self._conn = self._connect()
        try:
            self._open(create)
        except BaseException:
            self._conn.close()
            raise

    def _connect(self) -> psycopg.Connection[Row]:
        conn: psycopg.Connection[Row] = psycopg.connect(
            self.url, autocommit=True, row_factory=dict_row, connect_timeout=CONNECT_TIMEOUT,
            application_name=f"errdex {os.getpid()}")  # whose connection, to an operator
        if timeout := self.timeout:  # 0 would mean "for ever" here: readers never wait
            conn.execute(f"SET lock_timeout = {int(timeout * 1000)}")
        return conn

    def _open(self, create: bool) -> None:
        version = self._schema_version()
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{self.name} was written by a newer errdex (schema {version})")
        if version is not None and version < SCHEMA_VERSION:
            raise StoreError(f"{self.name} was written by an older errdex (schema {version})")
        if version is None and not create:
            raise StoreError(f"no errdex database at {self.name}: run `errdex index` first")
        if version is None:
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                self._conn.execute(
                    "INSERT INTO errdex_meta VALUES ('schema', %s) ON CONFLICT DO NOTHING",
                    (str(SCHEMA_VERSION),))

    def _schema_version(self) -> int | None:
        row = self._conn.execute("SELECT to_regclass('errdex_meta') AS t").fetchone()
        if row is None or row["t"] is None:
            return None
        found = self._conn.execute(
            "SELECT value FROM errdex_meta WHERE name = 'schema'").fetchone()
        return None if found is None else int(found["value"])

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[None]:
        conn = self._conn
        if conn.info.transaction_status in _BUSY:
            yield  # a public method called from another: one transaction
            return
        if conn.broken:  # lost since the last call: a new connection
            conn = self._conn = self._connect()
        conn.isolation_level = (psycopg.IsolationLevel.READ_COMMITTED if write
                                else psycopg.IsolationLevel.REPEATABLE_READ)
        conn.read_only = not write
        with conn.transaction():
            yield

    def describe_error(self, action: str, exc: Exception) -> StoreError:
        """One line: what failed, on which database (password hidden), libpq's words."""
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StoreError(f"database {self.name} is locked by another writer (waited "
                              f"{self.timeout or 0:g} s)")
        return StoreError(f"cannot {action} database {self.name}: {_one_line(exc)}")

    def close(self) -> None:
        if not self.is_view:
            self._conn.close()

    # -- which snapshots a read sees ------------------------------------------------------

    _COUNT = ", (SELECT count(*) FROM records r WHERE r.snapshot = s.id) AS records"

    def _snapshot_rows(self, repo: str | None = None, counts: bool = False) -> list[Row]:
        """Snapshot rows by repository, each repository's newest first."""
        query = ("SELECT s.id, s.repo, s.ref, s.version, s.commit_sha, s.commit_date, "
                 f"s.indexed_at{self._COUNT if counts else ''} FROM snapshots s")
        args: tuple[str, ...] = ()
        if repo is not None:
            query, args = query + " WHERE s.repo = %s", (repo,)
        rows: list[Row] = self._conn.execute(
            query + " ORDER BY s.repo, s.id DESC", args).fetchall()
        return rows  # typed here: where psycopg's types are missing (mypyc's build) it is Any

    def _data_of(self, record_id: str, snapshot: int | None = None) -> Row | None:
        row: Row | None
        if snapshot is None:  # the newest snapshot holding it
            row = self._conn.execute("SELECT data FROM records WHERE id = %s "
                                     "ORDER BY snapshot DESC LIMIT 1", (record_id,)).fetchone()
        else:
            row = self._conn.execute("SELECT data FROM records WHERE snapshot = %s AND id = %s",
                                     (snapshot, record_id)).fetchone()
        return row

    def _record_row(self, record_id: str, version: str | None) -> Row:
        """As SQLite's: that version, else the chosen snapshot, else the newest holder."""
        if version is None and not self.pins:
            row = self._data_of(record_id)
            if row is None:
                raise not_found(record_id)
            return row
        found = self._conn.execute("SELECT repo FROM records WHERE id = %s LIMIT 1",
                                   (record_id,)).fetchone()
        if found is None:
            raise not_found(record_id)
        snapshot = self._snapshot_id(str(found["repo"]), version)
        row = self._data_of(record_id, snapshot)
        if row is None and version is not None:
            raise not_found(record_id, version)
        row = row or self._data_of(record_id)
        assert row is not None
        return row

    def _listing(self, where: str, args: Sequence[object]) -> list[Listing]:
        rows = self._conn.execute(
            f"SELECT {', '.join(LISTING_COLUMNS)} FROM records WHERE {where} "
            "ORDER BY repo, path, line, id", args).fetchall()
        return [Listing(**row) for row in rows]

    # -- writing ------------------------------------------------------------------------

    @writing
    def replace_snapshot(
        self,
        snapshot: Snapshot,
        summary: IndexSummary,
        records: Sequence[Record],
        vocabulary: frozenset[str] | None = None,
    ) -> list[str]:
        """One version's records, its match keys and (when given) the names of its code,
        swapped in one transaction; the repository's other versions are untouched.
        Returns the records' contract texts."""
        conn = self._conn
        now = datetime.now(UTC).isoformat(timespec="seconds")
        ref = snapshot_ref(snapshot)
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                     (json.dumps([snapshot.repo, ref]),))
        described = (snapshot.commit, snapshot.commit_date, snapshot.version, snapshot.root,
                     now, json.dumps(asdict(summary)))
        found = conn.execute("SELECT id FROM snapshots WHERE repo = %s AND ref = %s",
                             (snapshot.repo, ref)).fetchone()
        if found is None:
            inserted = conn.execute(
                "INSERT INTO snapshots (repo, ref, commit_sha, commit_date, version, root, "
                "indexed_at, summary, generation) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                "nextval('snapshot_generation')) RETURNING id",
                (snapshot.repo, ref, *described)).fetchone()
            assert inserted is not None
            sid = int(inserted["id"])
        else:
            sid = int(found["id"])  # re-indexed: it keeps its place among the versions
            conn.execute(
                "UPDATE snapshots SET commit_sha = %s, commit_date = %s, version = %s, "
                "root = %s, indexed_at = %s, summary = %s, "
                "generation = nextval('snapshot_generation') WHERE id = %s", (*described, sid))
            for table in ("match_keys", "match_index", "records"):
                conn.execute(f"DELETE FROM {table} WHERE snapshot = %s", (sid,))
        rows, keyed, texts = [], [], []
        for record in records:
            data = record_to_dict(record)
            texts.append(json.dumps(data, ensure_ascii=False))
            first = record.sites[0]
            match_data = keys.match_data(record, data)
            slug = (data.get("failure_class") or {}).get("slug")
            rows.append((sid, record.id, record.repo, record.language.value, record.kind.value,
                         _plain(record.exception), _plain(record.template.message),
                         _plain(first.path), first.line, len(record.sites),
                         str(data.get("status") or "current"), _plain(slug),
                         texts[-1], json.dumps(match_data, ensure_ascii=False),
                         _words(record.template.message)))
            keyed.append((record.id, template_from_dict(match_data), record.exception,
                          first.variant, record.language.value))
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO records VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s, array_to_tsvector(%s::text[]))", rows)
            cursor.executemany(
                "INSERT INTO match_keys VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(_plain(key), sid, rid) for key, rid in keys.record_keys(keyed)])
        conn.execute("INSERT INTO match_index VALUES (%s, %s)", (sid, keys.INDEX_VERSION))
        conn.execute(SAVED_MATCHER_TABLE)  # in a database from before it
        conn.execute("DELETE FROM saved_matcher")  # of other snapshots now
        if vocabulary is not None:
            conn.execute("INSERT INTO vocabulary VALUES (%s, %s) ON CONFLICT (snapshot) "
                         "DO UPDATE SET names = excluded.names",
                         (sid, _plain(" ".join(sorted(vocabulary)))))
        return texts

    @writing
    def update_record_data(self, records: Sequence[Record],
                           version: str | None = None) -> None:
        """Rewrite stored records' contract (their prose), keeping everything else, in
        the snapshot reads of their repository see (or `version` of it)."""
        snapshots = {repo: self._snapshot_id(repo, version) for repo in {r.repo for r in records}}
        rows = []
        for record in records:
            if snapshots[record.repo] is None:
                continue
            data = record_to_dict(record)
            rows.append((json.dumps(data, ensure_ascii=False), str(data.get("status")
                         or "current"), _plain((data.get("failure_class") or {}).get("slug")),
                         snapshots[record.repo], record.id))
        with self._conn.cursor() as cursor:
            cursor.executemany("UPDATE records SET data = %s, status = %s, class_slug = %s "
                               "WHERE snapshot = %s AND id = %s", rows)
        touched = sorted({int(s) for s in snapshots.values() if s is not None})
        self._conn.execute("UPDATE snapshots SET generation = nextval('snapshot_generation') "
                           "WHERE id = ANY(%s)", (touched,))

    @writing
    def cache_put(self, key: str, data: str) -> None:
        self._conn.execute("INSERT INTO llm_cache VALUES (%s, %s) ON CONFLICT (key) "
                           "DO UPDATE SET data = excluded.data", (_plain(key), _plain(data)))

    @writing
    def keep_extractions(self, repo: str, entries: Mapping[str, bytes],
                         keep: Collection[str] = ()) -> None:
        self._conn.execute(extractions.POSTGRES_TABLE)  # in a database from before it
        extractions.postgres_keep(self._conn, _plain(repo) or "", entries, keep)

    @reading
    def cached_extractions(self, repo: str, keys: Sequence[str]) -> dict[str, bytes]:
        return extractions.postgres_get(self._conn, _plain(repo) or "", keys)

    # -- reading ------------------------------------------------------------------------

    @reading
    def record_json(self, record_id: str, version: str | None = None) -> str:
        """The stored contract text itself."""
        return str(self._record_row(record_id, version)["data"])

    def record(self, record_id: str, version: str | None = None) -> Record:
        return record_from_dict(json.loads(self.record_json(record_id, version)))

    @reading
    def record_versions(self, record_id: str) -> list[RecordVersion]:
        """Every indexed version of the record's repository, oldest first, with the
        record's status there (see `errdex.store.base.record_versions_of`)."""
        rows = self._conn.execute("SELECT snapshot, repo, status, match_data FROM records "
                                  "WHERE id = %s", (record_id,)).fetchall()
        if not rows:
            raise not_found(record_id)
        held = {int(row["snapshot"]): (str(row["status"]), json.loads(row["match_data"])["sites"])
                for row in rows}
        return record_versions_of(self._snapshot_rows(str(rows[0]["repo"])), held)

    @reading
    def records_in_class(self, slug: str) -> list[Listing]:
        """Listing rows of every record of one failure class, across repositories."""
        return self._listing("snapshot = ANY(%s) AND class_slug = %s", (self._chosen(), slug))

    @reading
    def records(self, repo: str | None = None,
                version: str | None = None) -> list[Listing]:
        """Listing rows of each repository's newest snapshot (or of `version` of `repo`;
        `version` without `repo`: that version of every repository that has it)."""
        snapshots = self._listed_snapshots(repo, version)
        return self._listing("snapshot = ANY(%s)", (snapshots,))

    @reading
    def repos(self) -> list[Repository]:
        return repo_rows(self._snapshot_rows(counts=True), self._chosen())

    @reading
    def snapshots(self, repo: str | None = None) -> list[Repository]:
        return repo_rows(self._snapshot_rows(repo, counts=True))

    @reading
    def vocabulary(self, repo: str, version: str | None = None) -> frozenset[str]:
        snapshot = self._snapshot_id(repo, version)
        row = self._conn.execute("SELECT names FROM vocabulary WHERE snapshot = %s",
                                 (snapshot,)).fetchone()
        return frozenset(row["names"].split()) if row else frozenset()

    @reading
    def cache_get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT data FROM llm_cache WHERE key = %s",
                                 (_plain(key),)).fetchone()
        return str(row["data"]) if row else None

    @reading
    def has_repo(self, repo: str) -> bool:
        return self._conn.execute("SELECT 1 FROM snapshots WHERE repo = %s",
                                  (repo,)).fetchone() is not None

    def search_text(self, words: str, limit: int = 20) -> list[Listing]:
        """Full-text search over messages; every word must appear (see `text_search`)."""
        return self.text_search(words, limit).rows

    @reading
    def text_search(self, words: str, limit: int = 20, *,
                    budget: int = SEARCH_STEP_BUDGET) -> TextSearch:
        """The records of the chosen snapshots whose message holds every term as a whole
        word (a `tsquery` of the terms ANDed, over the GIN index), best `ts_rank` first.
        At most budget / STEPS_PER_ROW matching rows are ranked: past that, no rows and
        `complete` False."""
        terms = search_terms(words)
        if not terms:
            return TextSearch(rows=[], terms=(), steps=0, complete=True)
        query = " & ".join("'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
                           for term in terms)
        most = max(1, budget // STEPS_PER_ROW)
        columns = ", ".join(f"m.{name}" for name in LISTING_COLUMNS)
        rows = self._conn.execute(
            f"SELECT {columns}, m.seen FROM (SELECT r.*, count(*) OVER () AS seen FROM "
            "(SELECT *, ts_rank(words, CAST(%(q)s AS tsquery)) AS rank FROM records "
            "WHERE words @@ CAST(%(q)s AS tsquery) AND snapshot = ANY(%(chosen)s) "
            "LIMIT %(most)s) r) m ORDER BY m.rank DESC, m.repo, m.path, m.line, m.id "
            "LIMIT %(limit)s",
            {"q": query, "chosen": self._chosen(), "most": most + 1, "limit": limit},
        ).fetchall()
        seen = int(rows[0]["seen"]) if rows else 0
        if seen > most:
            return TextSearch(rows=[], terms=terms, steps=seen * STEPS_PER_ROW,
                              complete=False)
        return TextSearch(
            rows=[Listing(**{name: row[name] for name in LISTING_COLUMNS}) for row in rows],
            terms=terms, steps=seen * STEPS_PER_ROW, complete=True)

    @reading
    def data_version(self) -> int:
        """A number that grows with every committed write of records (see the module's
        docstring): a server compares it to notice a re-index."""
        row = self._conn.execute(
            "SELECT coalesce(sum(generation), 0) AS v FROM snapshots").fetchone()
        return int(row["v"]) if row else 0

    # -- matching -----------------------------------------------------------------------

    _ENTRIES = ("SELECT r.id, r.repo, r.exception, r.language, r.match_data, s.version "
                "FROM records r JOIN snapshots s ON s.id = r.snapshot ")

    @reading
    def match_candidates(
        self, text: str, near: bool = False, limit: int | None = None,
        near_only: bool = False,
    ) -> list[MatchEntry] | None:
        """The entries `text` can match (at most `limit` key hits, the keys probed in
        `keys.probe_order`), from the key index; None when a snapshot has no keys of this
        errdex's version."""
        stale = self._conn.execute(
            "SELECT count(*) AS n FROM snapshots s LEFT JOIN match_index m ON "
            "m.snapshot = s.id WHERE m.version IS NULL OR m.version != %s",
            (keys.INDEX_VERSION,)).fetchone()
        if stale is None or stale["n"]:
            return None
        probe = list(keys.text_keys(text, near, near_only))
        if limit is not None:
            probe = keys.probe_order(probe)
        rows = self._conn.execute(
            self._ENTRIES + "WHERE (r.snapshot, r.id) IN (SELECT k.snapshot, k.rid FROM "
            "unnest(CAST(%s AS text[])) WITH ORDINALITY q(key, at) JOIN match_keys k "
            "ON k.key = q.key WHERE k.snapshot = ANY(%s) ORDER BY q.at LIMIT %s) "
            "ORDER BY r.repo, r.path, r.line, r.id",
            ([_plain(key) for key in probe], self._chosen(), limit)).fetchall()
        return keys.entries_from_rows([tuple(row.values()) for row in rows])

    def _matcher_state(self) -> str:
        rows = self._conn.execute("SELECT id, generation FROM snapshots WHERE id = ANY(%s) "
                                  "ORDER BY id", (self._chosen(),)).fetchall()
        return json.dumps(["postgresql", [[row["id"], row["generation"]] for row in rows]])

    @reading
    def matcher_state(self) -> str:
        """What the matcher over `match_entries` was built from (`errdex.match.load`)."""
        return self._matcher_state()

    @reading
    def saved_matcher(self, state: str) -> bytes | None:
        """The matcher saved at `state`; None for another state, or a view."""
        found = self._conn.execute("SELECT to_regclass('saved_matcher') AS t").fetchone()
        if self.pins or found is None or found["t"] is None:
            return None
        row = self._conn.execute("SELECT data FROM saved_matcher WHERE id = 0 AND state = %s",
                                 (state,)).fetchone()
        return bytes(row["data"]) if row else None

    @writing
    def save_matcher(self, state: str, data: bytes) -> bool:
        """Keep `data` as the matcher at `state` if that is still the state; False when
        it isn't, or for a view."""
        if self.pins:
            return False
        self._conn.execute(SAVED_MATCHER_TABLE)  # in a database from before it
        if self._matcher_state() != state:
            return False
        self._conn.execute("INSERT INTO saved_matcher VALUES (0, %s, %s) ON CONFLICT (id) DO "
                           "UPDATE SET state = excluded.state, data = excluded.data",
                           (state, data))
        return True

    @reading
    def match_entries(self) -> list[MatchEntry]:
        """What the matcher needs of every record, without the pages' prose."""
        rows = self._conn.execute(
            self._ENTRIES + "WHERE r.snapshot = ANY(%s) ORDER BY r.repo, r.path, r.line, r.id",
            (self._chosen(),)).fetchall()
        return keys.entries_from_rows([tuple(row.values()) for row in rows])
