"""Which indexed version of a library a pasted text comes from, when the text says so.

A traceback through `site-packages/packaging-24.0.dist-info`, a cargo registry path
`registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/...`, a Go module path
`pkg/mod/github.com/spf13/cobra@v1.8.1/command.go`, a pnpm store path
`node_modules/.pnpm/tinyqueue@2.1.0/node_modules/tinyqueue/index.js`, a jar
`gridlib-1.2.0.jar`, a pin `packaging==24.0` or a bare `v0.9.1` names a version; when a
repository is indexed at that version, its records there explain the text better than
the newest ones (the lines, the conditions, whether the message exists at all).
`prefer_named_versions` returns a view of the store that reads those versions
(`Store.with_versions`), or the store itself when the text names no indexed version: then
every repository's newest is read.

A name must fit the repository's last part (`pypi/packaging`, `pypa/packaging`,
`tokio-rs/tokio`), compared as Python compares distribution names; a bare `v1.2.3` is
taken for every repository that has exactly that version. This module reads the store's
snapshot list only, and only when the text names a version at all; it never matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from errdex.models import Repository
from errdex.store import Store
from errdex.store.base import pick_listed

MAX_NAMED = 50  # versions read from one text: a log naming thousands picks from the first

# Release numbers with an optional pre/post/dev part and local label: written so that no
# text makes the engine backtrack more than linearly (no nested open-ended repeats).
_VERSION = (r"\d+(?:\.\d+){1,4}(?:[-.]?(?:a|b|rc|alpha|beta|pre|post|dev)\.?\d*)?"
            r"(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?")
_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*?"
_SEP = r"[/\\]"
# (name, version) in the text; the name is None for a bare `v1.2.3`.
NAMED = (
    # a directory named NAME-VERSION in a path: a cargo registry crate, an unpacked sdist
    re.compile(rf"(?<={_SEP})(?P<name>{_NAME})-(?P<version>{_VERSION})(?={_SEP})"),
    # an installed distribution's metadata directory, an egg
    re.compile(rf"(?<![\w.-])(?P<name>{_NAME})-(?P<version>{_VERSION})"
               r"(?:\.dist-info|\.egg-info|-py\d(?:\.\d+)?\.egg)\b"),
    # a requirement pinned to one version
    re.compile(rf"(?<![\w.-])(?P<name>{_NAME})\s*==\s*(?P<version>{_VERSION})(?![\w.])"),
    # a Go module in the module cache: `pkg/mod/github.com/owner/repo@v1.2.3/file.go`
    re.compile(rf"(?<={_SEP})(?P<name>{_NAME})@(?P<version>v{_VERSION}(?:-[0-9A-Za-z.]+)?)"
               rf"(?={_SEP})"),
    # an npm package as pnpm stores it: `node_modules/.pnpm/tinyqueue@2.1.0/node_modules/..`,
    # a scoped one as `@scope+name@1.0.0` (named by its last part, as its repository is),
    # with peers after `_` or in parentheses
    re.compile(rf"(?<={_SEP}\.pnpm{_SEP})(?:@[A-Za-z0-9_.~-]{{1,214}}\+)?(?P<name>{_NAME})"
               rf"@(?P<version>{_VERSION})(?=[/\\_(])"),
    # a Java jar, in a frame's suffix or a repository path: `gridlib-1.2.0.jar`
    re.compile(rf"(?<![\w.-])(?P<name>{_NAME})-(?P<version>{_VERSION})(?:-[A-Za-z0-9]+)?\.jar\b"),
)
BARE = re.compile(r"(?<![\w.@-])(?P<version>v\d+(?:\.\d+){1,3}(?:-[A-Za-z0-9.]+)?)(?![\w.])")


@dataclass(frozen=True)
class NamedVersion:
    """A version a text names, and the library it names it of (None: not said)."""

    name: str | None
    version: str


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def named_versions(text: str) -> list[NamedVersion]:
    """The versions `text` names, in the order first seen, each once, named ones before
    bare ones; at most MAX_NAMED."""
    found: dict[NamedVersion, None] = {}
    for pattern in NAMED:
        for hit in pattern.finditer(text):
            found.setdefault(NamedVersion(_canonical(hit["name"]), hit["version"]))
            if len(found) >= MAX_NAMED:
                return list(found)
    for hit in BARE.finditer(text):
        found.setdefault(NamedVersion(None, hit["version"]))
        if len(found) >= MAX_NAMED:
            break
    return list(found)


def _by_repo(snapshots: list[Repository]) -> Iterator[tuple[str, list[Repository]]]:
    grouped: dict[str, list[Repository]] = {}
    for row in snapshots:
        grouped.setdefault(row.repo, []).append(row)
    yield from grouped.items()


def chosen_versions(text: str | list[NamedVersion],
                    snapshots: list[Repository]) -> dict[str, str]:
    """repository -> the ref of its snapshot the text (or the versions read from it)
    names, for the repositories indexed at more than one version (with one, the newest
    is that one anyway)."""
    named = named_versions(text) if isinstance(text, str) else text
    if not named:
        return {}
    chosen: dict[str, str] = {}
    for repo, rows in _by_repo(snapshots):
        if len(rows) < 2:
            continue
        short = _canonical(repo.rsplit("/", 1)[-1])
        for wanted in named:
            if wanted.name is not None and wanted.name != short:
                continue
            row = pick_listed(rows, wanted.version)
            if row is not None:
                chosen[repo] = row.ref
                break
    return chosen


S = TypeVar("S", bound=Store)


def prefer_named_versions(store: S, text: str) -> S:
    """`store` reading the versions `text` names (a view), or `store` itself. The store
    is asked for its versions only when the text names one."""
    named = named_versions(text)
    if not named:
        return store
    chosen = chosen_versions(named, store.snapshots())
    return store.with_versions(chosen) if chosen else store
