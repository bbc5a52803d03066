"""Where records live: one `Store` protocol (`errdex.store.base`) and its backends, SQLite
(the default, `errdex.store.sqlite`) and in memory (unit tests, `errdex.store.memory`).
The key index that lets a one-shot explain load only the templates a text can match is
`errdex.store.keys`. No SQL lives outside this package, and nothing in it imports the
matcher.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.store.base import Store
from errdex.store.memory import MemoryStore
from errdex.store.sqlite import SQLiteStore

__all__ = ["MemoryStore", "SQLiteStore", "Store"]

if TYPE_CHECKING:  # mypy holds every backend to the whole protocol
    _BACKENDS: tuple[type[Store], ...] = (SQLiteStore, MemoryStore)
