"""The one entry point every surface calls: explain, show, search, scan, at(path, line).

Why it exists: how a matcher is loaded (the on-disk key index for one text, or the whole
matcher built once and kept) and how records are found (by id, by words, by a file and
line) were decided separately by the CLI, the web app and the hook. `Explainer` decides
them once, so a surface (the MCP server first; the others later) only parses, calls and
renders. It returns the JSON contracts the CLI prints (`explain --json`, `show --json`,
`scan --json`, the listing rows); it prints nothing and never writes to the store.

An `Explainer` serves one thread at a time (a lock guards the one SQLite connection and
the caches). Its caches (the kept matcher, the map of site paths) follow the database:
when a repository is indexed again, the next call sees the new records.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

from errdex.errors import EmptyInputError, UsageError
from errdex.explain import MAX_INPUT_CHARS, explain_text
from errdex.match import Matcher, load_matcher
from errdex.match.scan import ByteStream, report_to_dict, scan_stream
from errdex.match.versions import prefer_named_versions
from errdex.store import SQLiteStore, Store

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
    # for a long-lived process that explains many texts (~14 s to build at 100k records).
    KEPT = "kept"


class Explainer:
    """Explain pasted text and find records in one errdex database (which must exist)."""

    def __init__(
        self,
        db_path: str | Path,
        *,
        mode: MatcherMode = MatcherMode.PER_TEXT,
        max_text_chars: int = MAX_INPUT_CHARS,
    ) -> None:
        self.store = SQLiteStore(db_path, create=False)
        self.mode = mode
        self.max_text_chars = max_text_chars
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._matcher: Matcher | None = None
        self._site_paths: dict[str, set[str]] | None = None  # site path -> record ids

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Explainer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the calls ----------------------------------------------------------------------

    def explain(self, text: str, limit: int = 5) -> dict[str, Any]:
        """The `errdex explain --json` shape: {"input", "matches": [...]}."""
        self._check_text(text)
        limit = _check_limit(limit)
        with self._current():
            store = prefer_named_versions(self.store, text)
            if store is not self.store:  # the text names an indexed version: read that
                return explain_text(store, text_matcher(store, text), text, limit)
            matcher = self._matcher
            if matcher is None and self.mode is MatcherMode.PER_TEXT:
                matcher = matcher_for_text(self.store, text)
            if matcher is None:  # no key index in this database, or KEPT mode
                matcher = self._whole_matcher()
            return explain_text(self.store, matcher, text, limit)

    def show(self, record_id: str) -> dict[str, Any]:
        """One record's JSON contract; NotFoundError for an unknown id."""
        with self._current():
            return self.store.record_dict(record_id.strip())

    def search(self, query: str, limit: int = 20) -> list[dict[str, Any]]:
        """Listing rows of the records whose message has every word of `query`, best
        first. Words only: pasted text with values is `explain`'s job."""
        limit = _check_limit(limit)
        if not query.strip():
            raise EmptyInputError("nothing to search for: the query is empty")
        self._check_text(query)
        with self._current():
            return self.store.search_text(query, limit=limit)

    def scan(self, stream: ByteStream) -> dict[str, Any]:
        """The `errdex scan --json` shape for a whole log (exact matches only)."""
        with self._current():
            report = scan_stream(self._whole_matcher(), stream)
            records = {r.record_id: self.store.record_dict(r.record_id) for r in report.ordered()}
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
            records = [self.store.record_dict(rid) for rid in ids]
        # A removed record (kept so that text from an older version still finds its page)
        # names where the code used to be: the file doesn't raise it any more.
        hits = [_hit(r, matched, line) for r in records if r.get("status") != "removed"]
        found = [hit for hit in hits if hit["sites"]]
        found.sort(key=lambda h: (h["sites"][0]["path"], h["sites"][0]["line"], h["id"]))
        return found

    def repositories(self) -> list[dict[str, Any]]:
        """Every indexed repository with its commit, version and record count."""
        with self._current():
            return self.store.repos()

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

    def _whole_matcher(self) -> Matcher:
        """The matcher over every record, built at most once per database state (also in
        PER_TEXT mode, for a database without a key index, and for scans)."""
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


def _check_limit(limit: int) -> int:
    if limit < 1:
        raise UsageError("limit must be at least 1")
    return min(limit, MAX_LIMIT)


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


def _hit(record: dict[str, Any], paths: set[str], line: int | None) -> dict[str, Any]:
    """A record as `at` returns it: what it raises, and its sites in the file asked for
    (without their snippets: `show` has the whole page)."""
    sites = [
        {key: site.get(key) for key in
         ("path", "line", "end_line", "function", "guard", "url", "kind", "exception")}
        for site in record["sites"]
        if site["path"] in paths
        and (line is None or site["line"] <= line <= max(site["line"], site.get("end_line") or 0))
    ]
    explanation = record.get("explanation") or {}
    return {
        "id": record["id"], "repo": record["repo"], "language": record["language"],
        "kind": record["kind"], "exception": record["exception"],
        "message": record["message"], "summary": explanation.get("summary"),
        "sites": sites,
    }


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
