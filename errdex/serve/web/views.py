"""What each page shows, as typed data: the data functions of `errdex.serve.web.pages`
build these, and `errdex.contract.to_json` turns one into the dict that the HTML template
renders and the JSON API returns, so a page and its JSON can't drift apart. The contract's
schema (`/api/schema`) is generated from these same classes.

Nothing here computes anything; it only names the shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from errdex import contract
from errdex.models import Listing, Record, RecordVersion, Repository

SearchMode = Literal["empty", "match", "text", "none", "static"]


@dataclass(frozen=True)
class Segment:
    """A piece of a message: literal text, or a hole showing the user's value when the
    paste bound one (`bound`), else its placeholder name in braces."""

    text: str
    hole: str | None
    bound: bool


@dataclass(frozen=True)
class MatchRow:
    """A record found in pasted text, as a result list shows it."""

    id: str
    repo: str
    kind: str
    exception: str | None
    message: str
    path: str  # the site the paste points at, else the first
    line: int
    score: float
    exact: bool
    why: str
    values: tuple[tuple[str, str], ...]
    site: int | None
    segments: tuple[Segment, ...]
    summary: str


@dataclass(frozen=True)
class SearchPage:
    """Pasted text's matches (`match`), else a text search's rows (`text`), else the
    closest errors (`none`); `terms` are the words a text search used."""

    query: str
    mode: SearchMode
    results: tuple[MatchRow | Listing, ...] = ()
    closest: tuple[MatchRow | Listing, ...] = ()
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Focus:
    """The site a pasted traceback points at, of a record raised at several, with what
    must hold there."""

    index: int
    path: str
    line: int
    function: str | None
    guard: str | None
    requirement: str | None


@dataclass(frozen=True)
class Analysis:
    """Who wrote the page (facts or a model) from which snapshot."""

    repo: str
    at: str
    date: str
    source: str
    model: str | None


@dataclass(frozen=True)
class ClassInfo:
    """A failure class with its background text."""

    slug: str
    title: str
    by: str
    background: str


@dataclass(frozen=True)
class ErrorPage:
    """One error's page: the record, and what the page adds (the paste's values, the
    site it points at, the message as segments, where the analysis comes from, in which
    indexed versions the message is and the ref of the one shown)."""

    record: Record
    title: str
    values: tuple[tuple[str, str], ...]
    focus: Focus | None
    segments: tuple[Segment, ...]
    pin: str
    analysis: Analysis
    failure_class: ClassInfo | None
    report_url: str
    versions: tuple[RecordVersion, ...]  # oldest first
    version: str | None


@dataclass(frozen=True)
class ClassRef:
    slug: str
    title: str


@dataclass(frozen=True)
class HomePage:
    repos: tuple[Repository, ...]
    classes: tuple[ClassRef, ...]


@dataclass(frozen=True)
class FileGroup:
    path: str
    counts: tuple[tuple[str, int], ...]  # kind -> records, most first
    errors: tuple[Listing, ...]


@dataclass(frozen=True)
class RepoPage:
    """Every error of a repository (one version of it: `repo`), grouped by file, with
    counts by kind; `versions` are all its indexed versions, newest first."""

    repo: Repository
    versions: tuple[Repository, ...]
    counts: tuple[tuple[str, int], ...]
    total: int
    files: tuple[FileGroup, ...]


@dataclass(frozen=True)
class RepoGroup:
    repo: str
    errors: tuple[Listing, ...]


@dataclass(frozen=True)
class ClassPage:
    """A failure class across repositories: its background, then its errors by repo."""

    slug: str
    title: str
    background: str
    total: int
    repos: tuple[RepoGroup, ...]


@dataclass(frozen=True)
class ServedSnapshot:
    repo: str
    commit: str | None
    version: str | None
    indexed_at: str
    records: int


@dataclass(frozen=True)
class Health:
    """What `/api/health` says: the snapshots served, the served generation (one more
    after each reload), whether a reload runs, and the process that answered (with
    `serve --workers N`, each worker reloads on its own)."""

    status: str
    process: int
    generation: int
    loaded_at: str
    reloading: bool
    snapshots: tuple[ServedSnapshot, ...]


contract.contract_types(SearchPage, ErrorPage, HomePage, RepoPage, ClassPage, Health)
