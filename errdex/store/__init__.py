"""Where records live: one `Store` protocol (`errdex.store.base`) and its backends, SQLite
(the default, `errdex.store.sqlite`), PostgreSQL (`errdex.store.postgres`, chosen by a
`postgresql://` URL) and in memory (unit tests, `errdex.store.memory`). `open_store` is
the one place a database named by the user (`--db`, `ERRDEX_DB`) becomes a store. The key
index that lets a one-shot explain load only the templates a text can match is
`errdex.store.keys`. No SQL lives outside this package, and nothing in it imports the
matcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from errdex.errors import StoreError
from errdex.store.base import Store
from errdex.store.memory import MemoryStore
from errdex.store.sqlite import SQLiteStore

__all__ = ["MemoryStore", "SQLiteStore", "Store", "is_url", "open_store", "store_name"]

URL_SCHEMES = ("postgresql://", "postgres://")

if TYPE_CHECKING:  # mypy holds every backend to the whole protocol
    from errdex.store.postgres import PostgresStore

    _BACKENDS: tuple[type[Store], ...] = (SQLiteStore, MemoryStore, PostgresStore)


def is_url(target: str | Path) -> bool:
    """Whether `target` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def store_name(target: str | Path) -> str:
    """The database as errdex prints it (a URL's password hidden)."""
    if is_url(target):
        from errdex.store.postgres import display_url

        return display_url(str(target))
    return str(target)


def open_store(target: str | Path, *, create: bool = True,
               timeout: float | None = None) -> Store:
    """The store `target` names: a `postgresql://` (or `postgres://`) URL opens
    PostgreSQL (psycopg is imported only then), anything else is a SQLite file. `create`
    and `timeout` mean what they mean to each backend: make the database's tables (else a
    database errdex never wrote is an error), and how long to wait for a lock."""
    if not is_url(target):
        return SQLiteStore(target, create=create, timeout=timeout)
    try:
        from errdex.store.postgres import PostgresStore
    except ImportError as exc:
        raise StoreError(f"a PostgreSQL database needs psycopg ({exc.name} is not installed):"
                         " pip install 'errdex[postgres]'") from None
    return PostgresStore(str(target), create=create, timeout=timeout)
