"""Page dicts to HTML: the Jinja2 environment, syntax highlighting, and links.

The same templates serve the live app and the static export; only the `Links` differ
(absolute routes on a server, relative `.html` files on disk). Autoescape is on for every
template: whatever came from indexed code or from a user is text, never markup.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.token import String

from errdex import sections
from errdex.languages import all_specs
from errdex.serve.web.pages import value_query


def _part(text: str) -> str:
    """One path segment, safe on any file system and in any URL."""
    cleaned = quote(text, safe="-_.~")
    return cleaned if cleaned not in ("", ".", "..") else "_"


@dataclass(frozen=True)
class Links:
    """Where each page lives. `static` pages are files relative to `root` ("../")."""

    static: bool = False
    root: str = "/"

    def home(self) -> str:
        return self.root + "index.html" if self.static else "/"

    def search(self) -> str:
        return self.root + "search.html" if self.static else "/search"

    def error(
        self, record_id: str, values: dict[str, str] | None = None, site: int | None = None
    ) -> str:
        query = value_query(values or {}, site)
        base = (self.root + f"errors/{_part(record_id)}.html" if self.static
                else f"/errors/{_part(record_id)}")
        return base + ("?" + query if query else "")

    def version_of(self, record_id: str | None, ref: str, repo: str | None = None) -> str | None:
        """An error's page (or, without an id, `repo`'s page) at one version; None in a
        static export, which holds each repository's newest version only."""
        if self.static:
            return None
        base = f"/errors/{_part(record_id)}" if record_id else self.repo(repo or "")
        return base + "?" + urlencode({"version": ref})

    def error_json(self, record_id: str) -> str:
        return (self.root + f"api/errors/{_part(record_id)}.json" if self.static
                else f"/api/errors/{_part(record_id)}")

    def repo(self, repo: str) -> str:
        path = "/".join(_part(p) for p in repo.split("/"))
        return self.root + f"repos/{path}.html" if self.static else f"/repos/{path}"

    def failure_class(self, slug: str) -> str:
        return (self.root + f"classes/{_part(slug)}.html" if self.static
                else f"/classes/{_part(slug)}")

    def asset(self, name: str) -> str:
        return self.root + "static/" + name if self.static else "/static/" + name


def page_path(repo: str) -> str:
    """The export file of a repository page, relative to the site root."""
    return "repos/" + "/".join(_part(p) for p in repo.split("/")) + ".html"


def safe_part(text: str) -> str:
    return _part(text)


@lru_cache(maxsize=4096)
def highlight_snippet(code: str, language: str, start_line: int, mark_line: int) -> Markup:
    """The snippet as highlighted HTML (Pygments escapes the code), numbered from its
    real first line, with the throw line marked. Leading blank lines are kept: the
    numbers must stay those of the file."""
    spec = next((s for s in all_specs() if s.language.value == language), None)
    options = {"stripnl": False, "ensurenl": False}
    lexer = get_lexer_by_name(spec.lexer, **options) if spec else TextLexer(**options)
    marked = mark_line - start_line + 1
    formatter = HtmlFormatter(
        linenos="table", linenostart=start_line, hl_lines=[marked] if marked > 0 else [],
        cssclass="code", wrapcode=True,
    )
    tokens = list(lexer.get_tokens(code))
    if spec is not None and spec.can("docstrings") and _in_string(tokens, marked):
        # The snippet starts inside a docstring, so the lexer reads the code after its
        # end as a string: lex with the docstring's opening quotes, then drop them.
        tokens = _drop_prefix(list(lexer.get_tokens('"""' + code)), 3)
    out = io.StringIO()
    formatter.format(tokens, out)
    return Markup(out.getvalue())  # Pygments escapes the code


def _in_string(tokens: list[tuple[Any, str]], line: int) -> bool:
    """Whether everything on `line` (1-based) was lexed as a string."""
    current, kinds = 1, set()
    for kind, text in tokens:
        for i, piece in enumerate(text.split("\n")):
            if i:
                current += 1
            if current == line and piece.strip():
                kinds.add(kind in String)
    return kinds == {True}


def _drop_prefix(tokens: list[tuple[Any, str]], chars: int) -> list[tuple[Any, str]]:
    out = []
    for kind, text in tokens:
        if chars >= len(text):
            chars -= len(text)
            continue
        out.append((kind, text[chars:]))
        chars = 0
    return out


def code_spans(text: str) -> Markup:
    """Prose marks identifiers with backticks: escape everything, then make each
    `...` span a <code> element."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: show it as written
        return escape(text)
    out = [f"<code>{escape(p)}</code>" if i % 2 else str(escape(p)) for i, p in enumerate(parts)]
    return Markup("".join(out))


# No inline script or style anywhere, so the policy can forbid both.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def pygments_css() -> str:
    return str(HtmlFormatter(style="default").get_style_defs(".code"))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("errdex.serve.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["highlight_snippet"] = highlight_snippet
    env.globals["sections"] = sections.BY_NAME  # the page's sections, declared once
    # A <meta> policy (the static export's) may not carry frame-ancestors.
    env.globals["csp"] = CSP.replace("; frame-ancestors 'none'", "")
    env.filters["code_spans"] = code_spans
    return env


def render(template: str, data: dict[str, Any], links: Links, **extra: Any) -> str:
    return environment().get_template(template).render(d=data, links=links, **extra)
