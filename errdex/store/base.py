"""What every store is: the `Store` protocol (each method the rest of errdex calls on a
store), the listing and text-search shapes every backend returns, and the one place a
backend's own exceptions become errdex's `StoreError`.

Snapshots are keyed by (repository, ref), the ref being the release version where one is
known (`py:DIST`'s version, a git tag at HEAD), else the commit, else "" (a plain
directory): `snapshot_ref`. Two versions of a library live side by side; writing the same
(repository, ref) again replaces that snapshot alone, in one transaction.

- **Order.** A repository's snapshots are ordered by when each (repository, ref) was
  *first* indexed; re-indexing one keeps its place. The **newest** is the one first indexed
  last: what every read returns when no version is asked for (listings, text search,
  matching, a record by id).
- **Removed.** A record is "removed" in a snapshot when its message was in the previous
  snapshot of the same repository and is not in it any more. The previous snapshot of a
  version indexed for the first time is the latest other version indexed before it (the
  newest); a version indexed again is compared with its own last index, whose records
  already carry what was removed before it (so an unchanged tree gives the same records
  again, and a plain directory's edits still show as removed): `previous_ref`. Removed
  records are kept, marked, so text from an older version still finds its page.
- **Records.** A record's id names its message (a hash of repository and template): the
  same id in every version that has the message; a record row belongs to one snapshot.
- **Versions asked for** (`version=`) name a ref, a release version (a leading `v`
  ignored) or a commit by at least 7 leading hex digits (`pick_version`). `with_versions`
  gives a view of the store whose reads prefer chosen versions of some repositories (what
  a paste that names a version gets).

Backends (`errdex.store.sqlite`, `errdex.store.memory`) subclass `Backend` and wrap each
public method in `@mapped(...)` instead of catching their library's exceptions at every
call. This module holds no SQL and imports no backend library; it must not import the
matcher either (the store builds `MatchEntry` values, from `errdex.models`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Concatenate, ParamSpec, Protocol, Self, TypeVar

from errdex.errors import ErrdexError, NotFoundError, StoreError
from errdex.models import (
    IndexSummary,
    Listing,
    MatchEntry,
    Record,
    RecordVersion,
    Repository,
    Snapshot,
)

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


def not_found(record_id: str, version: str | None = None) -> NotFoundError:
    """The error for an unknown record id, worded the same by every backend."""
    if version is not None:
        return NotFoundError(f"no error with id {record_id!r} in version {version!r}")
    return NotFoundError(f"no error with id {record_id!r}")


MIN_COMMIT_PREFIX = 7  # hex digits that name a commit-keyed snapshot


def snapshot_ref(snapshot: Snapshot) -> str:
    """What a snapshot is keyed by within its repository: the release version, else the
    commit, else "" (a plain directory, which has neither)."""
    return snapshot.version or snapshot.commit or ""


def _bare(version: str) -> str:
    return version[1:] if version[:1] in ("v", "V") and version[1:2].isdigit() else version


def _picked(rows: Sequence[tuple[str, str | None, str | None]], version: str) -> int | None:
    """The index of the (ref, release version, commit) that `version` names (see
    `pick_version`)."""
    wanted = version.strip()
    for at, (ref, _, _) in enumerate(rows):
        if ref == wanted:
            return at
    bare = _bare(wanted)
    for at, (_, release, _) in enumerate(rows):
        if release and _bare(release) == bare:
            return at
    if len(wanted) >= MIN_COMMIT_PREFIX and all(c in "0123456789abcdefABCDEF" for c in wanted):
        hits = [at for at, (_, _, commit) in enumerate(rows)
                if (commit or "").startswith(wanted.lower())]
        if len(hits) == 1:
            return hits[0]
    return None


def pick_version(snapshots: Sequence[Mapping[str, Any]], version: str) -> Mapping[str, Any] | None:
    """The snapshot (of one repository: a backend's rows with `ref`, `version`,
    `commit_sha`) that `version` names: its ref exactly, else its release version with or
    without a leading `v`, else the one commit whose id starts with at least
    MIN_COMMIT_PREFIX hex digits."""
    at = _picked([(str(row["ref"]), row["version"], row["commit_sha"]) for row in snapshots],
                 version)
    return None if at is None else snapshots[at]


V = TypeVar("V", Repository, RecordVersion)


def pick_listed(versions: Sequence[V], version: str) -> V | None:
    """`pick_version` over typed rows (`Store.snapshots`, `Store.record_versions`)."""
    at = _picked([(v.ref, v.version, v.commit_sha) for v in versions], version)
    return None if at is None else versions[at]


def unknown_version(repo: str, version: str, refs: Sequence[str]) -> NotFoundError:
    known = ", ".join(ref or "(working tree)" for ref in refs) or "none"
    return NotFoundError(f"{repo} has no indexed version {version!r} (indexed: {known})")


REPO_COLUMNS = ("repo", "ref", "commit_sha", "commit_date", "version", "indexed_at", "records")


def repo_rows(
    snapshots: Sequence[Mapping[str, Any]], chosen: Sequence[int] | None = None
) -> list[Repository]:
    """Typed rows from a backend's snapshot rows (with their `id` and `records`; by
    repository, newest first), each with `versions`, its repository's refs: of the
    `chosen` snapshots only (`repos()`: the one each repository's reads see), else of
    every snapshot (`snapshots()`)."""
    versions: dict[str, list[str]] = {}
    for row in snapshots:
        versions.setdefault(str(row["repo"]), []).append(str(row["ref"]))
    seen = None if chosen is None else set(chosen)
    return [
        Repository(**{name: row[name] for name in REPO_COLUMNS},
                   versions=tuple(versions[str(row["repo"])]))
        for row in snapshots if seen is None or row["id"] in seen
    ]


def record_versions_of(
    snapshots: Sequence[Mapping[str, Any]], held: Mapping[int, tuple[str, Any]]
) -> list[RecordVersion]:
    """A record across its repository's snapshots (rows with `id`, newest first; `held`:
    snapshot id -> (the record's status there, its sites)), oldest first: `status` is
    "current", "removed" or "absent", and `changed` says its sites (files and lines)
    differ from the last version before that had it current."""
    out = []
    before: Any = None
    for row in reversed(snapshots):
        status, sites = held.get(int(row["id"]), ("absent", None))
        changed = status == "current" and before is not None and sites != before
        if status == "current":
            before = sites
        out.append(RecordVersion(
            ref=str(row["ref"]), version=row["version"], commit_sha=row["commit_sha"],
            indexed_at=str(row["indexed_at"]),
            status="removed" if status == "removed" else
            "current" if status == "current" else "absent",
            changed=changed))
    return out


def previous_ref(refs: Sequence[str], ref: str) -> str | None:
    """The ref whose records a new index of (repository, `ref`) is compared with to tell
    what was removed (`refs`: the repository's, newest first): `ref` itself when it was
    indexed before (its stored records already carry what was removed before it, so an
    unchanged tree gives the same records again, and a working tree's edits show), else
    the newest; None when the repository has no snapshot."""
    if ref in refs:
        return ref
    return refs[0] if refs else None


class Store(Protocol):
    """Records and snapshots, whatever holds them. A snapshot is replaced whole, in one
    step: readers see a repository's old records or its new ones, never half. Reads
    without a `version` see each repository's newest snapshot (or the one `with_versions`
    chose)."""

    def close(self) -> None: ...

    def with_versions(self, versions: Mapping[str, str]) -> Self: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *_: object) -> None: ...

    # writing
    # returns each record's contract text as stored, in order (what `record_json` reads)
    def replace_snapshot(self, snapshot: Snapshot, summary: IndexSummary,
                         records: Sequence[Record],
                         vocabulary: frozenset[str] | None = None) -> list[str]: ...

    def update_record_data(self, records: Sequence[Record],
                           version: str | None = None) -> None: ...

    def cache_put(self, key: str, data: str) -> None: ...

    # the extraction cache (errdex.extract.cached): bytes by (repository, key), opaque to
    # the store; writing keeps of the repository's older entries only those in `keep`
    def keep_extractions(self, repo: str, entries: Mapping[str, bytes],
                         keep: Collection[str] = ()) -> None: ...

    def cached_extractions(self, repo: str, keys: Sequence[str]) -> dict[str, bytes]: ...

    # reading: typed rows and records (the JSON contract is `errdex.contract`'s business;
    # `record_json` is the stored contract text as it is)
    def record_json(self, record_id: str, version: str | None = None) -> str: ...

    def record(self, record_id: str, version: str | None = None) -> Record: ...

    def record_versions(self, record_id: str) -> list[RecordVersion]: ...

    def records(self, repo: str | None = None,
                version: str | None = None) -> list[Listing]: ...

    def records_in_class(self, slug: str) -> list[Listing]: ...

    def repos(self) -> list[Repository]: ...

    def snapshots(self, repo: str | None = None) -> list[Repository]: ...

    def has_repo(self, repo: str) -> bool: ...

    def vocabulary(self, repo: str, version: str | None = None) -> frozenset[str]: ...

    def cache_get(self, key: str) -> str | None: ...

    def search_text(self, words: str, limit: int = 20) -> list[Listing]: ...

    def text_search(self, words: str, limit: int = 20, *,
                    budget: int = SEARCH_STEP_BUDGET) -> TextSearch: ...

    def data_version(self) -> int: ...

    # matching
    def match_entries(self) -> list[MatchEntry]: ...

    def match_candidates(self, text: str, near: bool = False, limit: int | None = None,
                         near_only: bool = False) -> list[MatchEntry] | None: ...

    # the matcher saved for the current snapshots (errdex.match.load): `matcher_state`
    # changes with every snapshot write; the bytes are the matcher's to read, never the
    # store's (a view reading chosen versions saves none)
    def matcher_state(self) -> str: ...

    def saved_matcher(self, state: str) -> bytes | None: ...

    def save_matcher(self, state: str, data: bytes) -> bool: ...


class Backend:
    """What `mapped` needs of a backend: the exceptions its library raises and how to
    word one of them as a StoreError for an action ("open", "read", "write")."""

    backend_errors: ClassVar[tuple[type[Exception], ...]] = ()
    pins: Mapping[str, str] = {}  # repository -> the version its reads prefer
    is_view = False  # a `with_versions` view: closing it leaves the store open

    def with_versions(self, versions: Mapping[str, str]) -> Self:
        """This store, its reads preferring `versions` (repository -> version) where a
        repository has that version, its newest snapshot elsewhere. The view shares the
        store's connection: close the store, not the view."""
        view = copy.copy(self)
        view.pins = dict(versions)
        view.is_view = True
        return view

    def _snapshot_rows(self, repo: str | None = None) -> list[dict[str, Any]]:
        """Every snapshot (of `repo`), each repository's newest first."""
        raise NotImplementedError

    def _snapshot_id(self, repo: str, version: str | None) -> int | None:
        """The snapshot a read of `repo` sees: `version` (NotFoundError when the
        repository has no such version), else the pinned one, else the newest; None
        for a repository not indexed."""
        rows = self._snapshot_rows(repo)
        if not rows:
            return None
        wanted = version if version is not None else self.pins.get(repo)
        if wanted is None:
            return int(rows[0]["id"])
        row = pick_version(rows, wanted)
        if row is None:
            if version is None:
                return int(rows[0]["id"])  # a pin that doesn't exist: the newest
            raise unknown_version(repo, version, [r["ref"] for r in rows])
        return int(row["id"])

    def _listed_snapshots(self, repo: str | None, version: str | None) -> list[int]:
        """The snapshots a listing reads: `version` of `repo` (or its newest or pinned),
        `version` of every repository that has it, or every repository's chosen one."""
        if repo is not None:
            chosen = self._snapshot_id(repo, version)
            return [] if chosen is None else [chosen]
        if version is not None:
            return [int(r["id"]) for r in self._snapshot_rows()
                    if pick_version([r], version) is not None]
        return self._chosen()

    def _chosen(self) -> list[int]:
        """The snapshot every repository's reads see (newest, or pinned)."""
        by_repo: dict[str, list[dict[str, Any]]] = {}
        for row in self._snapshot_rows():
            by_repo.setdefault(row["repo"], []).append(row)
        chosen = []
        for repo, rows in by_repo.items():
            pinned = pick_version(rows, self.pins[repo]) if repo in self.pins else None
            chosen.append(int((pinned or rows[0])["id"]))
        return chosen

    def describe_error(self, action: str, exc: Exception) -> StoreError:
        return StoreError(f"cannot {action} the store: {exc}")

    def close(self) -> None:
        """Release what the backend holds; nothing by default."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        if not self.is_view:
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
