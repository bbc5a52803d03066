"""What every store is: the `Store` protocol (each method the rest of errdex calls on a
store), the listing and text-search shapes every backend returns, and the one place a
backend's own exceptions become errdex's `StoreError`.

Backends (`errdex.store.sqlite`, `errdex.store.memory`) subclass `Backend` and wrap each
public method in `@mapped(...)` instead of catching their library's exceptions at every
call. This module holds no SQL and imports no backend library; it must not import the
matcher either (the store builds `MatchEntry` values, from `errdex.models`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Concatenate, ParamSpec, Protocol, Self, TypeVar

from errdex.errors import ErrdexError, NotFoundError, StoreError
from errdex.models import IndexSummary, Listing, MatchEntry, Record, Repository, Snapshot

# Text search's bounds. A text search ANDs its terms and a repeated term costs as much as
# a new one, so the terms are capped (in SQLite, repeating one word 300 times over 50,000
# messages took 23 s; 32 distinct words that every message holds, 0.6 s); a backend that
# counts its work stops a search after a budget of steps (SQLite: virtual-machine steps,
# about 15 per matching row: the budget is some three million rows).
MAX_SEARCH_TERMS = 32
SEARCH_STEP_BUDGET = 50_000_000

# The columns of a listing row (`errdex.models.Listing`), as the backends read them.
LISTING_COLUMNS = ("id", "repo", "language", "kind", "exception", "message", "path", "line",
                   "site_count")


def search_terms(words: str) -> tuple[str, ...]:
    """The words of `words` that a text search uses: runs of letters, digits and `_`,
    lower-cased, each once, the first MAX_SEARCH_TERMS of them in order."""
    seen: dict[str, None] = {}
    for word in "".join(c if c.isalnum() or c == "_" else " " for c in words).split():
        seen.setdefault(word.lower(), None)
        if len(seen) >= MAX_SEARCH_TERMS:
            break
    return tuple(seen)


@dataclass(frozen=True)
class TextSearch:
    """A text search's rows and the work it took: the terms it used and the steps it
    ran; `complete` is False when the step budget stopped it."""

    rows: list[Listing]
    terms: tuple[str, ...]
    steps: int
    complete: bool


def not_found(record_id: str) -> NotFoundError:
    """The error for an unknown record id, worded the same by every backend."""
    return NotFoundError(f"no error with id {record_id!r}")


class Store(Protocol):
    """Records and snapshots, whatever holds them. A snapshot is replaced whole, in one
    step: readers see a repository's old records or its new ones, never half."""

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *_: object) -> None: ...

    # writing
    def replace_snapshot(self, snapshot: Snapshot, summary: IndexSummary,
                         records: Sequence[Record],
                         vocabulary: frozenset[str] | None = None) -> None: ...

    def update_record_data(self, records: Sequence[Record]) -> None: ...

    def cache_put(self, key: str, data: str) -> None: ...

    # reading: typed rows and records (the JSON contract is `errdex.contract`'s business;
    # `record_json` is the stored contract text as it is)
    def record_json(self, record_id: str) -> str: ...

    def record(self, record_id: str) -> Record: ...

    def records(self, repo: str | None = None) -> list[Listing]: ...

    def records_in_class(self, slug: str) -> list[Listing]: ...

    def repos(self) -> list[Repository]: ...

    def has_repo(self, repo: str) -> bool: ...

    def vocabulary(self, repo: str) -> frozenset[str]: ...

    def cache_get(self, key: str) -> str | None: ...

    def search_text(self, words: str, limit: int = 20) -> list[Listing]: ...

    def text_search(self, words: str, limit: int = 20, *,
                    budget: int = SEARCH_STEP_BUDGET) -> TextSearch: ...

    def data_version(self) -> int: ...

    # matching
    def match_entries(self) -> list[MatchEntry]: ...

    def match_candidates(self, text: str, near: bool = False, limit: int | None = None,
                         near_only: bool = False) -> list[MatchEntry] | None: ...


class Backend:
    """What `mapped` needs of a backend: the exceptions its library raises and how to
    word one of them as a StoreError for an action ("open", "read", "write")."""

    backend_errors: ClassVar[tuple[type[Exception], ...]] = ()

    def describe_error(self, action: str, exc: Exception) -> StoreError:
        return StoreError(f"cannot {action} the store: {exc}")

    def close(self) -> None:
        """Release what the backend holds; nothing by default."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


B = TypeVar("B", bound=Backend)
P = ParamSpec("P")
R = TypeVar("R")


def mapped(
    action: str,
) -> Callable[[Callable[Concatenate[B, P], R]], Callable[Concatenate[B, P], R]]:
    """Wrap a backend method so its library's exceptions leave it as one StoreError
    line (errdex's own errors, NotFoundError included, pass through unchanged)."""

    def wrap(method: Callable[Concatenate[B, P], R]) -> Callable[Concatenate[B, P], R]:
        @functools.wraps(method)
        def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(self, *args, **kwargs)
            except ErrdexError:
                raise
            except self.backend_errors as exc:
                raise self.describe_error(action, exc) from None

        return run

    return wrap
