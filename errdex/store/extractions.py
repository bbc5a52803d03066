"""The extraction cache's table and SQL, for the SQLite and PostgreSQL stores: one row per
(repository, key) holding a file's extraction as bytes (`errdex.extract.cached` names
the key and reads the bytes; the store never looks inside them).

The cache holds the files of a repository's last index: writing it (`keep`) drops the
repository's rows whose key is no longer in use, so it does not grow with every edit.
A database from before the cache (or opened read-only without the table) reads as an
empty cache. Only this store's own rows are ever read: nothing comes from the indexed
tree.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping, Sequence
from typing import Any

SQLITE_TABLE = ("CREATE TABLE IF NOT EXISTS extractions (repo TEXT NOT NULL, key TEXT NOT NULL,"
                " data BLOB NOT NULL, PRIMARY KEY (repo, key)) WITHOUT ROWID")
POSTGRES_TABLE = ("CREATE TABLE IF NOT EXISTS extractions (repo TEXT NOT NULL, key TEXT NOT "
                  "NULL, data BYTEA NOT NULL, PRIMARY KEY (repo, key))")
_BATCH = 500  # keys asked for in one statement (SQLite's variable limit is 32,766)


def sqlite_get(conn: sqlite3.Connection, repo: str, keys: Sequence[str]) -> dict[str, bytes]:
    """The cached bytes of those `keys` the repository has."""
    found: dict[str, bytes] = {}
    wanted = list(dict.fromkeys(keys))
    try:
        for at in range(0, len(wanted), _BATCH):
            batch = wanted[at : at + _BATCH]
            marks = ",".join("?" * len(batch))
            for row in conn.execute(f"SELECT key, data FROM extractions WHERE repo = ? AND key "
                                    f"IN ({marks})", (repo, *batch)):
                found[str(row[0])] = bytes(row[1])
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        return {}
    return found


def sqlite_keep(conn: sqlite3.Connection, repo: str, entries: Mapping[str, bytes],
                keep: Collection[str]) -> None:  # fmt: skip
    """Add `entries` and drop the repository's rows whose key is neither theirs nor in
    `keep`, in one transaction."""
    kept = set(keep) | set(entries)
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(SQLITE_TABLE)  # in a database from before the cache
        stale = [str(row[0]) for row in conn.execute(
            "SELECT key FROM extractions WHERE repo = ?", (repo,)) if str(row[0]) not in kept]
        conn.executemany("DELETE FROM extractions WHERE repo = ? AND key = ?",
                         [(repo, key) for key in stale])
        conn.executemany("INSERT OR REPLACE INTO extractions VALUES (?, ?, ?)",
                         [(repo, key, data) for key, data in entries.items()])


def postgres_get(conn: Any, repo: str, keys: Sequence[str]) -> dict[str, bytes]:
    """As `sqlite_get`, on a psycopg connection (rows as dicts)."""
    if conn.execute("SELECT to_regclass('extractions') AS t").fetchone()["t"] is None:
        return {}  # a database from before the cache
    rows = conn.execute("SELECT key, data FROM extractions WHERE repo = %s AND key = ANY(%s)",
                        (repo, list(dict.fromkeys(keys)))).fetchall()
    return {str(row["key"]): bytes(row["data"]) for row in rows}


def postgres_keep(conn: Any, repo: str, entries: Mapping[str, bytes],
                  keep: Collection[str]) -> None:  # fmt: skip
    """As `sqlite_keep`, inside the caller's transaction."""
    kept = sorted(set(keep) | set(entries))
    conn.execute("DELETE FROM extractions WHERE repo = %s AND NOT (key = ANY(%s))", (repo, kept))
    with conn.cursor() as cursor:
        cursor.executemany("INSERT INTO extractions VALUES (%s, %s, %s) ON CONFLICT (repo, key) "
                           "DO UPDATE SET data = excluded.data",
                           [(repo, key, data) for key, data in entries.items()])
