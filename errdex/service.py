"""The one entry point every surface calls: explain, show, search, scan, at(path, line),
and the reads behind the web pages (records, listings, repositories).

Why it exists: how a matcher is loaded (the on-disk key index for one text, the whole
matcher built once and kept, the few templates the key index selects for an exception
hook, or a matcher a server keeps fresh itself) and how records are found (by id, by
words, by a file and line) are decided here once. The CLI, the web app, the exception
hook, the static export and the MCP server only parse, call and render. The calls that
print or serve return the JSON contract (`errdex.contract`: `explain --json`, `show
--json`, `scan --json`, the listing rows); the reads behind pages return the store's
typed rows. It prints nothing and never writes to the store.

Versions: a read without a version sees each repository's newest indexed version;
`show`, `record` and `listing` take a `version` (a ref, a release version or a commit
prefix: `errdex.store.base`), `record_versions` and `versions` say what is indexed, and
`explain` reads the versions a text names (`errdex.match.versions`), except in the
exception hook's KEYED mode, which stays with the newest.

An `Explainer` serves one thread at a time (a lock guards the one SQLite connection and
the caches). Its caches (the kept matcher, the map of site paths) follow the database:
when a repository is indexed again, the next call sees the new records.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from errdex import contract
from errdex.errors import EmptyInputError, NotFoundError, StoreError, UsageError
from errdex.explain import MAX_INPUT_CHARS, valid_text
from errdex.match import Matcher, load_matcher
from errdex.match.scan import ByteStream, report_to_dict, scan_stream
from errdex.match.versions import prefer_named_versions
from errdex.models import Listing, MatchEntry, Record, RecordVersion, Repository
from errdex.store import Store, open_store, store_name
from errdex.store.base import TextSearch

MAX_LIMIT = 100  # results per call: more is a dump, not an answer
# Templates loaded for the nearest-record lookup of one text: a common word kept for
# approximate matching (`~error`) may key most of a large database, and compiling 200k
# templates for one `explain` takes many seconds. Past this the lookup uses the first.
NEAR_LIMIT = 5_000


class MatcherMode(Enum):
    """How `explain` gets its matcher."""

    # The on-disk key index loads only the templates one text can match: no start-up
    # cost, the right choice for one-shot use and for servers that must answer at once.
    PER_TEXT = "per-text"
    # Every template compiled once, at the first call, and kept: the fastest per call,
    # for a long-lived process that explains many texts. Built once per database state
    # (~14 s at 100k records) and saved in the store; later starts read it back
    # (errdex.match.load, errdex.match.saved).
    KEPT = "kept"
    # Only the templates the key index selects for an exact match, at most
    # `candidate_limit` of them, and no nearest-record guess: bounded work for the
    # exception hook. A database without a key index is not searched (NoKeyIndexError).
    KEYED = "keyed"


@dataclass(frozen=True)
class SiteRef:
    """A site as `at` returns it: where and when it raises, without its snippet."""

    path: str
    line: int
    end_line: int
    function: str | None
    guard: str | None
    url: str | None
    kind: str
    exception: str | None


@dataclass(frozen=True)
class SiteHit:
    """A record with a site in the file asked for, and those sites."""

    id: str
    repo: str
    language: str
    kind: str
    exception: str | None
    message: str
    summary: str | None
    sites: tuple[SiteRef, ...]


contract.contract_types(SiteHit)


class NoKeyIndexError(StoreError):
    """The database has no on-disk key index (written by an older errdex)."""


class Explainer:
    """Explain pasted text and find records in one errdex database (which must exist).

    `db` is a path, or a store the caller opened (and closes). `matcher`, when given,
    supplies the matcher for every call (a server that rebuilds its own after a
    re-index); `timeout` is how long to wait for a database another process locked."""

    def __init__(
        self,
        db: str | Path | Store,
        *,
        mode: MatcherMode = MatcherMode.PER_TEXT,
        max_text_chars: int = MAX_INPUT_CHARS,
        timeout: float | None = None,
        candidate_limit: int | None = None,
        matcher: Callable[[], Matcher] | None = None,
        max_limit: int = MAX_LIMIT,
    ) -> None:
        self._owned = isinstance(db, (str, Path))
        self.store: Store = (open_store(db, create=False, timeout=timeout)
                             if isinstance(db, (str, Path)) else db)
        self.name = store_name(db) if isinstance(db, (str, Path)) else "the database"
        self.mode = mode
        self.max_text_chars = max_text_chars
        self.candidate_limit = candidate_limit
        self.max_limit = max_limit
        self.entries_loaded = 0  # templates loaded from the store for texts (KEYED, PER_TEXT)
        self._given = matcher
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._matcher: Matcher | None = None
        self._site_paths: dict[str, set[str]] | None = None  # site path -> record ids

    def close(self) -> None:
        if self._owned:
            self.store.close()

    def __enter__(self) -> Explainer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the calls ----------------------------------------------------------------------

    def explain(self, text: str, limit: int = 5) -> dict[str, Any]:
        """The `errdex explain --json` shape: {"input", "matches": [...]}."""
        self._check_text(text)
        limit = _check_limit(limit, self.max_limit)
        with self._current():
            # A text that names an indexed version of a library (a dist-info path, a
            # pin, a bare v1.2.3) is read in that version (errdex.match.versions); the
            # exception hook's bounded KEYED mode reads each repository's newest.
            store = (self.store if self.mode is MatcherMode.KEYED
                     else prefer_named_versions(self.store, text))
            return explain_text(store, self._matcher_for(text, store), text, limit)

    def show(self, record_id: str, version: str | None = None) -> dict[str, Any]:
        """One record's JSON contract (in its repository's newest indexed version, or in
        `version`); NotFoundError for an unknown id, or a version that lacks it."""
        return contract.record_to_dict(self.record(record_id, version))

    def record(self, record_id: str, version: str | None = None) -> Record:
        with self._current():
            return self.store.record(record_id.strip(), version)

    def record_versions(self, record_id: str) -> list[RecordVersion]:
        """In which indexed versions of its repository the record's message is, oldest
        first; NotFoundError for an unknown id."""
        with self._current():
            return self.store.record_versions(record_id.strip())

    def search(self, query: str, limit: int = 20) -> list[dict[str, Any]]:
        """Listing rows of the records whose message has every word of `query`, best
        first. Words only: pasted text with values is `explain`'s job."""
        limit = _check_limit(limit)
        if not query.strip():
            raise EmptyInputError("nothing to search for: the query is empty")
        self._check_text(query)
        with self._current():
            return [contract.to_json(row) for row in self.store.search_text(query, limit=limit)]

    def text_search(self, words: str, limit: int = 20) -> TextSearch:
        """A bounded text search with the terms it used (the search page's)."""
        with self._current():
            return self.store.text_search(words, limit)

    def scan(self, stream: ByteStream) -> dict[str, Any]:
        """The `errdex scan --json` shape for a whole log (exact matches only)."""
        with self._current():
            report = scan_stream(self._whole_matcher(), stream)
            records = {r.record_id: contract.record_to_dict(self.store.record(r.record_id))
                       for r in report.ordered()}
        return report_to_dict(report, records)

    def at(self, path: str, line: int | None = None) -> list[dict[str, Any]]:
        """What a file (or one line of it) can raise: every record with a site in that file
        whose line span holds `line` (or any site, without a line), ordered by site.

        `path` is as a traceback prints it (absolute, under site-packages, with
        backslashes) or relative to the repository root; it names a stored site path
        when one ends with the other at a `/`. When several stored paths match, only those
        sharing the most trailing components are kept: `/venv/.../pkg/errors.py` means
        `pkg/errors.py`, not another repository's top-level `errors.py`. Records marked
        removed (their message left the code) are not returned."""
        wanted = _path_parts(path)
        if not wanted:
            raise UsageError("give a file path, as a traceback shows it or from the repo root")
        if line is not None and line < 1:
            raise UsageError("line numbers start at 1")
        with self._current():
            site_paths = self._site_path_map()
            matched = _best_suffix_matches(wanted, site_paths)
            ids = sorted({rid for p in matched for rid in site_paths[p]})
            records = [self.store.record(rid) for rid in ids]
        # A removed record (kept so that text from an older version still finds its page)
        # names where the code used to be: the file doesn't raise it any more.
        hits = [_hit(r, matched, line) for r in records
                if contract.status_of(r.facts) != "removed"]
        found = [hit for hit in hits if hit.sites]
        found.sort(key=lambda h: (h.sites[0].path, h.sites[0].line, h.id))
        return [contract.to_json(hit) for hit in found]

    def repositories(self) -> list[dict[str, Any]]:
        """Every indexed repository with its commit, version and record count."""
        return [contract.to_json(row) for row in self.snapshots()]

    # -- the reads behind pages ---------------------------------------------------------

    def snapshots(self) -> list[Repository]:
        with self._current():
            return self.store.repos()

    def versions(self, repo: str | None = None) -> list[Repository]:
        """Every indexed version (of `repo`), by repository, newest first."""
        with self._current():
            return self.store.snapshots(repo)

    def listing(self, repo: str | None = None, version: str | None = None) -> list[Listing]:
        """Listing rows of one repository (or all), by repository, path and line, in each
        one's newest version or in `version` (without `repo`: every repository that has
        that version); NotFoundError for a repository that is not indexed or has no such
        version."""
        with self._current():
            if repo is not None and not self.store.has_repo(repo):
                known = ", ".join(r.repo for r in self.store.repos()) or "none"
                raise NotFoundError(f"repository {repo!r} is not indexed (indexed: {known})")
            return self.store.records(repo, version)

    def in_class(self, slug: str) -> list[Listing]:
        """Listing rows of every record of one failure class, across repositories."""
        with self._current():
            return self.store.records_in_class(slug)

    def matcher(self) -> Matcher:
        """The matcher over every record (built once per database state): for a server
        that keeps its own generation fresh and hands it back as `matcher=`."""
        with self._current():
            return self._whole_matcher()

    def match_entries(self) -> list[MatchEntry]:
        """What the matcher needs of every record (the static export's search index)."""
        with self._current():
            return self.store.match_entries()

    # -- loading ------------------------------------------------------------------------

    def _check_text(self, text: str) -> None:
        if not text.strip():
            raise EmptyInputError("nothing to explain: the input is empty")
        if len(text) > self.max_text_chars:
            raise UsageError(f"input too large: over {self.max_text_chars:,} characters")

    @contextmanager
    def _current(self) -> Iterator[None]:
        """Hold the lock, and drop the caches when the database's snapshots changed."""
        with self._lock:
            generation = self.store.data_version()
            if generation != self._generation:
                self._generation = generation
                self._site_paths = None
                # A kept matcher is rebuilt lazily; a per-text one was never kept.
                self._matcher = None
            yield

    def _matcher_for(self, text: str, store: Store) -> Matcher:
        """The matcher for `text`: over `store`, the Explainer's own store or a view of it
        reading the versions the text names (then no kept or given matcher applies: they
        hold each repository's newest)."""
        if store is not self.store:
            return text_matcher(store, text)
        if self._given is not None:
            return self._given()
        if self.mode is MatcherMode.KEYED:
            return self._keyed_matcher(text)
        matcher = self._matcher
        if matcher is None and self.mode is MatcherMode.PER_TEXT:
            matcher = matcher_for_text(self.store, text)
            if matcher is not None:
                self.entries_loaded += len(matcher.entries)
        # No key index in this database, or KEPT mode: every template, built once.
        return matcher if matcher is not None else self._whole_matcher()

    def _keyed_matcher(self, text: str) -> Matcher:
        """KEYED mode: only the templates the key index selects, at most
        `candidate_limit`."""
        entries = self.store.match_candidates(text, limit=self.candidate_limit)
        if entries is None:
            raise NoKeyIndexError(f"{self.name} has no key index (written by an older "
                                  "errdex): run `errdex index` again to explain errors here")
        self.entries_loaded += len(entries)
        return Matcher(entries)

    def _whole_matcher(self) -> Matcher:
        """The matcher over every record, built at most once per database state (also in
        PER_TEXT mode, for a database without a key index, and for scans)."""
        if self._given is not None:
            return self._given()
        if self._matcher is None:
            self._matcher = load_matcher(self.store)
        return self._matcher

    def _site_path_map(self) -> dict[str, set[str]]:
        # From the match entries: every site's path without reading the pages' prose.
        if self._site_paths is None:
            paths: dict[str, set[str]] = {}
            for entry in self.store.match_entries():
                for site_path, _ in entry.sites:
                    paths.setdefault(site_path, set()).add(entry.record_id)
            self._site_paths = paths
        return self._site_paths


def explain_text(store: Store, matcher: Matcher, text: str, limit: int = 5) -> dict[str, Any]:
    """The `explain --json` shape for `text` (decoded as valid Unicode), its records read
    from `store`. A match of a record the store no longer has (a long-lived matcher that
    outlived a re-index) is dropped."""
    text = valid_text(text)
    if not text.strip():
        raise EmptyInputError("nothing to explain: the input is empty")
    if len(text) > MAX_INPUT_CHARS:
        raise UsageError(f"input too large: over {MAX_INPUT_CHARS:,} characters")
    matches = []
    for match in matcher.match(text, limit=limit):
        try:
            record = store.record(match.record_id)
        except NotFoundError:
            continue
        matches.append(contract.match_result(match, record))
    result: dict[str, Any] = contract.to_json(contract.ExplainResult(text, tuple(matches)))
    return result


def _check_limit(limit: int, most: int = MAX_LIMIT) -> int:
    if limit < 1:
        raise UsageError("limit must be at least 1")
    return min(limit, most)


def _path_parts(path: str) -> tuple[str, ...]:
    """A path's components, whatever its separator; `.` and empty parts dropped."""
    return tuple(part for part in path.strip().replace("\\", "/").split("/")
                 if part not in ("", "."))


def _best_suffix_matches(wanted: tuple[str, ...], site_paths: dict[str, set[str]]) -> set[str]:
    best = 0
    matched: set[str] = set()
    for stored in site_paths:
        parts = _path_parts(stored)
        shared = min(len(parts), len(wanted))
        if shared == 0 or parts[-shared:] != wanted[-shared:]:
            continue
        if shared > best:
            best, matched = shared, {stored}
        elif shared == best:
            matched.add(stored)
    return matched


def _hit(record: Record, paths: set[str], line: int | None) -> SiteHit:
    """A record as `at` returns it: what it raises, and its sites in the file asked for
    (without their snippets: `show` has the whole page)."""
    sites = tuple(
        SiteRef(path=site.path, line=site.line, end_line=site.end_line,
                function=site.function, guard=site.guard, url=url, kind=site.kind.value,
                exception=site.exception)
        for site, url in zip(record.sites, record.site_urls, strict=True)
        if site.path in paths and (line is None or site.line <= line <= max(site.line,
                                                                          site.end_line))
    )
    return SiteHit(
        id=record.id, repo=record.repo, language=record.language.value,
        kind=record.kind.value, exception=record.exception,
        message=record.template.message,
        summary=record.explanation.summary if record.explanation else None, sites=sites,
    )


def text_matcher(store: Store, text: str) -> Matcher:
    """`matcher_for_text`, or the whole matcher for a database without a key index."""
    return matcher_for_text(store, text) or load_matcher(store)


def matcher_for_text(store: Store, text: str, near_limit: int = NEAR_LIMIT) -> Matcher | None:
    """A matcher over only the templates `text` can match: those its words key (the
    store's key index, `errdex.store.keys`), and when none of them matches exactly, also
    (at most `near_limit`) records sharing a rare word (for the nearest-record lookup).
    None when the database has no key index; a matcher over no template when nothing
    is keyed."""
    exact = store.match_candidates(text)
    if exact is None:
        return None
    matcher = Matcher(exact)
    found, _ = matcher.match_with_stats(text, 1, exact_only=True) if text.strip() else ([], None)
    if found:
        return matcher
    # Only the approximate-matching keys are probed now: the others just were.
    near = store.match_candidates(text, near_only=True, limit=near_limit) or []
    known = {entry.record_id for entry in exact}
    entries = exact + [entry for entry in near if entry.record_id not in known]
    entries.sort(key=lambda e: (e.repo, e.sites[0] if e.sites else ("", 0)))
    return Matcher(entries)
