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
from errdex.serve.web.views import SearchPage
from errdex.service import Explainer

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


def search_index(explainer: Explainer) -> list[list[Any]]:
    """Per record: id, repo, exception, literal pieces, placeholder names, message."""
    return [
        [e.record_id, e.repo, e.exception, list(e.template.literals),
         [p.name for p in e.template.placeholders], e.template.message]
        for e in explainer.match_entries()
    ]


def _check_target(root: Path) -> None:
    """Refuse to write into a non-empty directory that is not an earlier export."""
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and not (root / "static" / "search.js").exists():
        raise UsageError(f"{root} is not empty and is not an errdex export: choose a new one")


def export_site(explainer: Explainer, directory: str | Path) -> int:
    """Write the site; returns the number of HTML pages written."""
    root = Path(directory)
    _check_target(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        return _export(explainer, root)
    except OSError as exc:
        raise UsageError(f"cannot write {directory}: {exc.strerror or exc}") from None


def _export(explainer: Explainer, root: Path) -> int:
    site = _Site(root)
    shutil.copytree(STATIC_DIR, root / "static", dirs_exist_ok=True)
    index = json.dumps(search_index(explainer), ensure_ascii=True, separators=(",", ":"))
    site.write("static/search-index.js", f"window.ERRDEX_INDEX = {index};\n")

    site.page("index.html", "home.html", pages.home_page(explainer))
    site.page("search.html", "search.html", pages.page_json(SearchPage(query="", mode="static")))
    repos = explainer.repositories()
    site.write("api/repos.json", json.dumps(repos, ensure_ascii=False))
    for repo in repos:
        site.page(page_path(repo["repo"]), "repo.html", pages.repo_page(explainer, repo["repo"]))
    for slug, _, _ in CLASSES:
        site.page(f"classes/{safe_part(slug)}.html", "class.html",
                  pages.class_page(explainer, slug))
    for row in explainer.listing():
        # The page's data is its JSON too, as the server's /api/errors/{id} returns it.
        data = pages.error_page(explainer, row.id, {})
        name = safe_part(row.id)
        site.page(f"errors/{name}.html", "error.html", data)
        site.write(f"api/errors/{name}.json", json.dumps(data, ensure_ascii=False))
    return site.pages
