"""Records and sites for tests, built from the few fields a test cares about."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from errdex.index import index_snapshot
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
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

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


def indexed_records(tmp_path: Path, files: Mapping[str, str], repo: str) -> list[Record]:
    """Write `files` (path -> text) under `tmp_path/repo`, index them as `repo` in one
    worker, and return its records as stored."""
    root = tmp_path / "repo"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo=repo))
    with SQLiteStore(tmp_path / "index.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return [store.record(row.id) for row in store.records(repo)]
