"""Records and sites for tests, built from the few fields a test cares about."""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.models import (
    Language,
    Placeholder,
    Record,
    Site,
    SiteKind,
    Snippet,
    Template,
    record_id,
)

R, P = Language.RUST, Language.PYTHON


def make_site(
    guard: str | None = None,
    *,
    language: Language = R,
    kind: SiteKind = SiteKind.BAIL,
    snippet: str = "",
    start: int = 1,
    line: int = 1,
    function: str | None = "f",
    message: str = "boom",
) -> Site:
    return Site(
        language=language,
        kind=kind,
        exception=None,
        template=Template.literal(message),
        path="src/lib.rs",
        line=line,
        end_line=line,
        function=function,
        guard=guard,
        snippet=Snippet(start, snippet),
    )


def make_record(
    message: str,
    guard: str | None = None,
    *,
    language: Language = R,
    kind: SiteKind = SiteKind.BAIL,
    function: str | None = "f",
    snippet: str = "",
    start: int = 1,
    line: int = 1,
    path: str = "src/lib.rs",
    exception: str | None = None,
    holes: Sequence[tuple[str, str]] = (),
    variant: str | None = None,
    fields: tuple[str, ...] = (),
    more_sites: Sequence[Site] = (),
) -> Record:
    """A record with one site; a message's `{}` split the literals, `holes` name them."""
    literals = tuple(re.split(r"\{[^}]*\}", message)) if holes else (message,)
    template = Template(message, literals, tuple(Placeholder(n, e) for n, e in holes))
    site = Site(
        language, kind, exception, template, path, line, line, function, guard,
        Snippet(start, snippet), variant=variant, variant_fields=fields,
    )  # fmt: skip
    sites = (site, *more_sites)
    return Record(
        record_id("o/r", template), "o/r", "abc123", None, None, language, kind, exception,
        template, sites, tuple(None for _ in sites),
    )  # fmt: skip
