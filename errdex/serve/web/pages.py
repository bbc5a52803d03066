"""One data function per page: each returns a plain, JSON-ready dict that the HTML
template renders and the JSON API returns as it is, so the two can never drift apart.

Nothing here knows about HTTP, URLs or HTML: links are the templates' business (a server
and a static export link differently), escaping is Jinja's.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any
from urllib.parse import urlencode

from errdex.analyze.classes import CLASSES, background
from errdex.errors import NotFoundError
from errdex.explain import explain_text
from errdex.match import Matcher
from errdex.match.versions import prefer_named_versions
from errdex.serialize import template_from_dict
from errdex.service import text_matcher
from errdex.store import SQLiteStore, Store
from errdex.store.base import pick_version

SEARCH_LIMIT = 20
CLOSEST_LIMIT = 5
# Where "Report an issue" goes: errdex's own tracker, since a wrong page is our bug.
REPORT_URL = "https://github.com/errdex/errdex/issues/new"
VALUE_PREFIX = "v."  # query parameters `v.<placeholder>=<value>` carry a paste's values
SITE_PARAM = "site"  # `site=<index>`: the site a pasted traceback's frame points at


def message_segments(record: dict[str, Any], values: dict[str, str]) -> list[dict[str, Any]]:
    """The message as literal text and holes; a hole shows the user's value when there
    is one, else its placeholder name, so a page can mark exactly what was bound."""
    template = template_from_dict(record)
    out: list[dict[str, Any]] = []
    for literal, hole in zip(template.literals, (*template.placeholders, None), strict=True):
        if literal:
            out.append({"text": literal, "hole": None, "bound": False})
        if hole is not None:
            value = values.get(hole.name)
            out.append({
                "text": value if value is not None else "{" + hole.name + "}",
                "hole": hole.name,
                "bound": value is not None,
            })
    return out


def _listing(row: dict[str, Any]) -> dict[str, Any]:
    """A search or listing row, with the message as segments for display."""
    return {
        "id": row["id"], "repo": row["repo"], "kind": row["kind"],
        "exception": row["exception"], "message": row["message"],
        "path": row["path"], "line": row["line"],
    }


def home_page(store: Store) -> dict[str, Any]:
    return {
        "repos": store.repos(),
        "classes": [{"slug": slug, "title": title} for slug, title, _ in CLASSES],
    }


def reading_for(store: SQLiteStore, matcher: Matcher, text: str) -> tuple[SQLiteStore, Matcher]:
    """The store and matcher to explain `text` with: the server's own, unless the text
    names an indexed version of a library (then a view reading it, and its matcher)."""
    named = prefer_named_versions(store, text)
    if named is store:
        return store, matcher
    return named, text_matcher(named, text)


def search_page(store: SQLiteStore, matcher: Matcher, query: str) -> dict[str, Any]:
    """Pasted text first (exact template matches with bound values), then full-text search
    over messages, then, when neither finds anything, the closest errors."""
    out: dict[str, Any] = {"query": query, "mode": "empty", "results": [], "closest": [],
                           "terms": []}
    if not query.strip():
        return out
    store, matcher = reading_for(store, matcher, query)
    found = explain_text(store, matcher, query, limit=SEARCH_LIMIT)["matches"]
    exact = [m for m in found if m["exact"]]
    if exact:
        out["mode"] = "match"
        out["results"] = [_match_row(m) for m in exact]
        return out
    searched = store.text_search(query, limit=SEARCH_LIMIT)
    out["terms"] = list(searched.terms)  # what the text search used (deduplicated, capped)
    if searched.rows:
        out["mode"] = "text"
        out["results"] = [_listing(row) for row in searched.rows]
        return out
    out["mode"] = "none"
    closest = [_match_row(m) for m in found[:CLOSEST_LIMIT]]
    if not closest:
        seen: set[str] = set()
        for word in sorted(set(query.split()), key=len, reverse=True)[:8]:
            for row in store.search_text(word, limit=CLOSEST_LIMIT):
                if row["id"] not in seen and len(closest) < CLOSEST_LIMIT:
                    seen.add(row["id"])
                    closest.append(_listing(row))
    out["closest"] = closest
    return out


def _match_row(match: dict[str, Any]) -> dict[str, Any]:
    record = match["record"]
    site = record["sites"][match["site_index"] or 0]
    return {
        "id": record["id"], "repo": record["repo"], "kind": record["kind"],
        "exception": record["exception"], "message": record["message"],
        "path": site["path"], "line": site["line"],
        "score": match["score"], "exact": match["exact"], "why": match["why"],
        "values": match["values"],
        "site": match["site_index"],
        "segments": message_segments(record, match["values"]),
        "summary": (record["explanation"] or {}).get("summary", ""),
    }


def _snapshot(store: Store, repo: str) -> dict[str, Any] | None:
    return next((row for row in store.repos() if row["repo"] == repo), None)


def pin_label(record: dict[str, Any]) -> str:
    """What a permalink is pinned to: the short commit, else the release version."""
    if record.get("commit"):
        return str(record["commit"])[:10]
    return str(record.get("version") or "an unknown version")


def _focus(record: dict[str, Any], site: int | None) -> dict[str, Any] | None:
    """The site a pasted traceback points at, with what must hold there: of a record
    raised at several places, the one the user actually hit."""
    sites = record["sites"]
    if site is None or not 0 <= site < len(sites) or len(sites) < 2:
        return None
    chosen = sites[site]
    facts = (record.get("facts") or {}).get("sites") or []
    requirement = next((f.get("requirement") for f in facts
                        if (f.get("path"), f.get("line")) == (chosen["path"], chosen["line"])),
                       None)
    return {"index": site, "path": chosen["path"], "line": chosen["line"],
            "function": chosen.get("function"), "guard": chosen.get("guard"),
            "requirement": requirement}


def shown_version(versions: list[dict[str, Any]], version: str | None) -> str | None:
    """The ref of the version a record's page shows: the one asked for, else the newest
    that holds the record (what a read without a version returns)."""
    if version is not None:
        row = pick_version(versions, version)
        return None if row is None else str(row["ref"])
    return next((str(v["ref"]) for v in reversed(versions) if v["status"] != "absent"), None)


def error_page(
    store: Store, record_id: str, values: dict[str, str], site: int | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """Everything one error's page shows. `values` are a paste's values for the
    placeholders; names the template does not have are dropped. `site` is the site a
    pasted traceback pointed at, if any; `version` the repository's version to show
    (default: the newest). `versions` says in which indexed versions the message is."""
    record = store.record_dict(record_id, version)
    versions = store.record_versions(record_id)
    names = {p["name"] for p in record["placeholders"]}
    bound = {name: value for name, value in values.items() if name in names}
    snapshot = _snapshot(store, record["repo"]) or {}
    title = f'What causes "{record["template"]}" in {record["repo"]}?'
    failure = record.get("failure_class")
    return {
        "record": record,
        "title": title,
        "values": bound,
        "focus": _focus(record, site),
        "segments": message_segments(record, bound),
        "pin": pin_label(record),
        "analysis": {
            "repo": record["repo"],
            "at": pin_label(record),
            "date": (record.get("commit_date") or snapshot.get("indexed_at") or "")[:10],
            "source": (record["explanation"] or {}).get("source", "facts"),
            "model": (record["explanation"] or {}).get("model"),
        },
        "failure_class": (
            {**failure, "background": background(failure["slug"]) or ""} if failure else None
        ),
        "report_url": report_url(record),
        "versions": versions,
        "version": shown_version(versions, version),
    }


def report_url(record: dict[str, Any]) -> str:
    title = f"Explanation of {record['id']} ({record['repo']}) is wrong or unclear"
    body = (f"Error: {record['id']}\nRepository: {record['repo']}@{pin_label(record)}\n"
            f"Message: {record['template']}\n\nWhat is wrong:\n")
    return REPORT_URL + "?" + urlencode({"title": title, "body": body})


def repo_page(store: Store, repo: str, version: str | None = None) -> dict[str, Any]:
    """Every error of a repository (at `version`, default the newest), grouped by file,
    with counts by kind; `versions` are all its indexed versions, newest first."""
    snapshot = _snapshot(store, repo)
    if snapshot is None:
        known = ", ".join(r["repo"] for r in store.repos()) or "none"
        raise NotFoundError(f"repository {repo!r} is not indexed (indexed: {known})")
    rows = store.records(repo, version)
    versions = store.snapshots(repo)
    if version is not None:
        snapshot = dict(pick_version(versions, version) or snapshot)
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_file[row["path"]].append(_listing(row))
    kinds = Counter(row["kind"] for row in rows)
    return {
        "repo": snapshot,
        "versions": versions,
        "counts": dict(kinds.most_common()),
        "total": len(rows),
        "files": [
            {"path": path, "counts": dict(Counter(r["kind"] for r in items).most_common()),
             "errors": items}
            for path, items in by_file.items()
        ],
    }


def class_page(store: Store, slug: str) -> dict[str, Any]:
    """A failure class across repositories: its background, then its errors by repo."""
    entry = next(((s, t) for s, t, _ in CLASSES if s == slug), None)
    if entry is None:
        known = ", ".join(s for s, _, _ in CLASSES)
        raise NotFoundError(f"no failure class {slug!r} (classes: {known})")
    rows = store.records_in_class(slug)
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_repo[row["repo"]].append(_listing(row))
    return {
        "slug": slug, "title": entry[1], "background": background(slug) or "",
        "total": len(rows),
        "repos": [{"repo": repo, "errors": items} for repo, items in by_repo.items()],
    }


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
