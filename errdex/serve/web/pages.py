"""One data function per page: each builds the page's typed data
(`errdex.serve.web.views`) through the service and returns it as the plain, JSON-ready
dict (`errdex.contract.to_json`) that the HTML template renders and the JSON API returns
as it is, so the two can never drift apart (the error page included).

Nothing here knows about HTTP, URLs or HTML: links are the templates' business (a server
and a static export link differently), escaping is Jinja's. Records are found only
through `errdex.service.Explainer`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any
from urllib.parse import urlencode

from errdex.analyze.classes import CLASSES, background
from errdex.contract import template_from_dict, to_json
from errdex.errors import NotFoundError
from errdex.models import Listing, Record, RecordVersion, Repository, Template
from errdex.serve.web.views import (
    Analysis,
    ClassInfo,
    ClassPage,
    ClassRef,
    ErrorPage,
    FileGroup,
    Focus,
    HomePage,
    MatchRow,
    RepoGroup,
    RepoPage,
    SearchPage,
    Segment,
)
from errdex.service import Explainer
from errdex.store.base import pick_listed

SEARCH_LIMIT = 20
CLOSEST_LIMIT = 5
# Where "Report an issue" goes: errdex's own tracker, since a wrong page is our bug.
REPORT_URL = "https://github.com/errdex/errdex/issues/new"
VALUE_PREFIX = "v."  # query parameters `v.<placeholder>=<value>` carry a paste's values
SITE_PARAM = "site"  # `site=<index>`: the site a pasted traceback's frame points at


def message_segments(template: Template, values: dict[str, str]) -> tuple[Segment, ...]:
    """The message as literal text and holes; a hole shows the user's value when there
    is one, else its placeholder name, so a page can mark exactly what was bound."""
    out: list[Segment] = []
    for literal, hole in zip(template.literals, (*template.placeholders, None), strict=True):
        if literal:
            out.append(Segment(text=literal, hole=None, bound=False))
        if hole is not None:
            value = values.get(hole.name)
            out.append(Segment(text=value if value is not None else "{" + hole.name + "}",
                               hole=hole.name, bound=value is not None))
    return tuple(out)


def home_page(explainer: Explainer) -> dict[str, Any]:
    return page_json(HomePage(repos=tuple(explainer.snapshots()),
                              classes=tuple(ClassRef(slug, title) for slug, title, _ in CLASSES)))


def page_json(page: object) -> dict[str, Any]:
    data: dict[str, Any] = to_json(page)
    return data


def search_page(explainer: Explainer, query: str) -> dict[str, Any]:
    """Pasted text first (exact template matches with bound values), then full-text search
    over messages, then, when neither finds anything, the closest errors."""
    if not query.strip():
        return page_json(SearchPage(query=query, mode="empty"))
    found = explainer.explain(query, limit=SEARCH_LIMIT)["matches"]
    exact = tuple(_match_row(m) for m in found if m["exact"])
    if exact:
        return page_json(SearchPage(query=query, mode="match", results=exact))
    searched = explainer.text_search(query, limit=SEARCH_LIMIT)
    terms = searched.terms  # what the text search used (deduplicated, capped)
    if searched.rows:
        return page_json(SearchPage(query=query, mode="text", results=tuple(searched.rows),
                                    terms=terms))
    closest: list[MatchRow | Listing] = [_match_row(m)
                                         for m in found[:CLOSEST_LIMIT]]
    if not closest:
        seen: set[str] = set()
        for word in sorted(set(query.split()), key=len, reverse=True)[:8]:
            for row in explainer.text_search(word, limit=CLOSEST_LIMIT).rows:
                if row.id not in seen and len(closest) < CLOSEST_LIMIT:
                    seen.add(row.id)
                    closest.append(row)
    return page_json(SearchPage(query=query, mode="none", closest=tuple(closest), terms=terms))


def _match_row(match: dict[str, Any]) -> MatchRow:
    record = match["record"]
    site = record["sites"][match["site_index"] or 0]
    values: dict[str, str] = match["values"]
    template = template_from_dict(record)
    return MatchRow(
        id=record["id"], repo=record["repo"], kind=record["kind"],
        exception=record["exception"], message=record["message"],
        path=site["path"], line=site["line"],
        score=match["score"], exact=match["exact"], why=match["why"],
        values=tuple(values.items()), site=match["site_index"],
        segments=message_segments(template, values),
        summary=(record["explanation"] or {}).get("summary", ""),
    )


def _snapshot(explainer: Explainer, repo: str) -> Repository | None:
    return next((row for row in explainer.snapshots() if row.repo == repo), None)


def pin_label(record: Record) -> str:
    """What a permalink is pinned to: the short commit, else the release version."""
    if record.commit:
        return record.commit[:10]
    return record.version or "an unknown version"


def _focus(record: Record, site: int | None) -> Focus | None:
    """The site a pasted traceback points at, with what must hold there: of a record
    raised at several places, the one the user actually hit."""
    sites = record.sites
    if site is None or not 0 <= site < len(sites) or len(sites) < 2:
        return None
    chosen = sites[site]
    facts = record.facts.sites if record.facts else ()
    requirement = next((f.requirement for f in facts
                        if (f.path, f.line) == (chosen.path, chosen.line)), None)
    return Focus(index=site, path=chosen.path, line=chosen.line, function=chosen.function,
                 guard=chosen.guard, requirement=requirement)


def shown_version(versions: list[RecordVersion], version: str | None) -> str | None:
    """The ref of the version a record's page shows: the one asked for, else the newest
    that holds the record (what a read without a version returns)."""
    if version is not None:
        row = pick_listed(versions, version)
        return None if row is None else row.ref
    return next((v.ref for v in reversed(versions) if v.status != "absent"), None)


def error_page(
    explainer: Explainer, record_id: str, values: dict[str, str], site: int | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """Everything one error's page shows (its JSON is `/api/errors/{id}`). `values` are
    a paste's values for the placeholders; names the template does not have are
    dropped. `site` is the site a pasted traceback pointed at, if any; `version` the
    repository's version to show (default: the newest). `versions` says in which
    indexed versions the message is."""
    record = explainer.record(record_id, version)
    versions = explainer.record_versions(record_id)
    names = {p.name for p in record.template.placeholders}
    bound = {name: value for name, value in values.items() if name in names}
    snapshot = _snapshot(explainer, record.repo)
    explanation = record.explanation
    failure = record.failure_class
    return page_json(ErrorPage(
        record=record,
        title=f'What causes "{record.template.text}" in {record.repo}?',
        values=tuple(bound.items()),
        focus=_focus(record, site),
        segments=message_segments(record.template, bound),
        pin=pin_label(record),
        analysis=Analysis(
            repo=record.repo, at=pin_label(record),
            date=(record.commit_date or (snapshot.indexed_at if snapshot else "") or "")[:10],
            source=explanation.source if explanation else "facts",
            model=explanation.model if explanation else None,
        ),
        failure_class=(
            ClassInfo(slug=failure.slug, title=failure.title, by=failure.by,
                      background=background(failure.slug) or "") if failure else None
        ),
        report_url=report_url(record),
        versions=tuple(versions),
        version=shown_version(versions, version),
    ))


def report_url(record: Record) -> str:
    title = f"Explanation of {record.id} ({record.repo}) is wrong or unclear"
    body = (f"Error: {record.id}\nRepository: {record.repo}@{pin_label(record)}\n"
            f"Message: {record.template.text}\n\nWhat is wrong:\n")
    return REPORT_URL + "?" + urlencode({"title": title, "body": body})


def repo_page(explainer: Explainer, repo: str, version: str | None = None) -> dict[str, Any]:
    """Every error of a repository (at `version`, default the newest), grouped by file,
    with counts by kind; `versions` are all its indexed versions, newest first."""
    rows = explainer.listing(repo, version)  # NotFoundError, naming what is indexed
    versions = explainer.versions(repo)
    snapshot = _snapshot(explainer, repo)
    if version is not None:
        snapshot = pick_listed(versions, version) or snapshot
    if snapshot is None:  # re-indexed away between the two reads
        raise NotFoundError(f"repository {repo!r} is not indexed")
    by_file: dict[str, list[Listing]] = defaultdict(list)
    for row in rows:
        by_file[row.path].append(row)
    return page_json(RepoPage(
        repo=snapshot,
        versions=tuple(versions),
        counts=tuple(Counter(row.kind for row in rows).most_common()),
        total=len(rows),
        files=tuple(
            FileGroup(path=path, counts=tuple(Counter(r.kind for r in items).most_common()),
                      errors=tuple(items))
            for path, items in by_file.items()
        ),
    ))


def class_page(explainer: Explainer, slug: str) -> dict[str, Any]:
    """A failure class across repositories: its background, then its errors by repo."""
    entry = next(((s, t) for s, t, _ in CLASSES if s == slug), None)
    if entry is None:
        known = ", ".join(s for s, _, _ in CLASSES)
        raise NotFoundError(f"no failure class {slug!r} (classes: {known})")
    rows = explainer.in_class(slug)
    by_repo: dict[str, list[Listing]] = defaultdict(list)
    for row in rows:
        by_repo[row.repo].append(row)
    return page_json(ClassPage(
        slug=slug, title=entry[1], background=background(slug) or "", total=len(rows),
        repos=tuple(RepoGroup(repo=repo, errors=tuple(items)) for repo, items in by_repo.items()),
    ))


def values_from_query(params: list[tuple[str, str]]) -> dict[str, str]:
    """`v.<name>=<value>` pairs of a query string: a paste's values for an error page."""
    return {key[len(VALUE_PREFIX):]: value for key, value in params
            if key.startswith(VALUE_PREFIX) and len(key) > len(VALUE_PREFIX)}


def site_from_query(params: list[tuple[str, str]]) -> int | None:
    """`site=<index>` of a query string; anything else is no site, never an error."""
    raw = next((v for k, v in params if k == SITE_PARAM), "")
    return int(raw) if raw.isdigit() and len(raw) < 6 else None


def value_query(values: dict[str, str], site: int | None = None) -> str:
    """The inverse of `values_from_query` and `site_from_query`, for links from search
    results."""
    query = {VALUE_PREFIX + k: v for k, v in values.items()}
    if site is not None:
        query[SITE_PARAM] = str(site)
    return urlencode(query) if query else ""
