"""The pages as a static site: every page of the app as an HTML file with relative links,
the same JSON under `api/`, and a search that runs in the browser.

Static hosts and `file://` cannot run the matcher, so the export ships a prebuilt index
(`static/search-index.js`: each record's literal pieces, placeholder names and message)
and `static/search.js`, which does message search and exact-template matching client-side.
The index is a script, not a JSON file, because a page opened from disk may not fetch().
Rendering goes through the same data functions and templates as the server.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from errdex.analyze.classes import CLASSES
from errdex.errors import UsageError
from errdex.serve.web import pages
from errdex.serve.web.render import Links, page_path, render, safe_part
from errdex.store import Store

STATIC_DIR = Path(__file__).parent / "web" / "static"


def _links(path: str) -> Links:
    return Links(static=True, root="../" * path.count("/"))


class _Site:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.pages = 0

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def page(self, path: str, template: str, data: dict[str, Any]) -> None:
        self.write(path, render(template, data, _links(path)))
        self.pages += 1


def search_index(store: Store) -> list[list[Any]]:
    """Per record: id, repo, exception, literal pieces, placeholder names, message."""
    return [
        [e.record_id, e.repo, e.exception, list(e.template.literals),
         [p.name for p in e.template.placeholders], e.template.message]
        for e in store.match_entries()
    ]


def _check_target(root: Path) -> None:
    """Refuse to write into a non-empty directory that is not an earlier export."""
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and not (root / "static" / "search.js").exists():
        raise UsageError(f"{root} is not empty and is not an errdex export: choose a new one")


def export_site(store: Store, directory: str | Path) -> int:
    """Write the site; returns the number of HTML pages written."""
    root = Path(directory)
    _check_target(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        return _export(store, root)
    except OSError as exc:
        raise UsageError(f"cannot write {directory}: {exc.strerror or exc}") from None


def _export(store: Store, root: Path) -> int:
    site = _Site(root)
    shutil.copytree(STATIC_DIR, root / "static", dirs_exist_ok=True)
    index = json.dumps(search_index(store), ensure_ascii=True, separators=(",", ":"))
    site.write("static/search-index.js", f"window.ERRDEX_INDEX = {index};\n")

    site.page("index.html", "home.html", pages.home_page(store))
    site.page("search.html", "search.html",
              {"query": "", "mode": "static", "results": [], "closest": []})
    repos = store.repos()
    site.write("api/repos.json", json.dumps(repos, ensure_ascii=False))
    for repo in repos:
        site.page(page_path(repo["repo"]), "repo.html", pages.repo_page(store, repo["repo"]))
    for slug, _, _ in CLASSES:
        site.page(f"classes/{safe_part(slug)}.html", "class.html", pages.class_page(store, slug))
    for row in store.records():
        data = pages.error_page(store, row["id"], {})
        name = safe_part(row["id"])
        site.page(f"errors/{name}.html", "error.html", data)
        site.write(f"api/errors/{name}.json", store.record_json(row["id"]))
    return site.pages
