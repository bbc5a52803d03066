"""What an indexing engine runs: `Source`s, each one thing the user named (a line of
`--from LIST`, a distribution of `--deps`, a crate of `--cargo-lock`, a package of
`--package-lock`), read into snapshots
where it is built. `--engine local` (errdex.serve.cli) reads and builds them in this
process, one after the other; `--engine ray` (errdex.engines.on_ray) builds them as tasks
on a Ray cluster and stores each one here as it comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from errdex.errors import UsageError
from errdex.models import Snapshot
from errdex.source import npm
from errdex.source.cargo import crate_directory, read_lock
from errdex.source.listing import read_listing
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import Store

MAX_LIST_BYTES = 10_000_000  # --from LIST: a list of 100k sources is a few MB


@dataclass(frozen=True)
class Source:
    """One source to index: `label` names it in reports, `spec` and `options` are what
    `resolve` reads, and `version`, when given, is the snapshot's version (a crate's, as
    the lock file pins it: its unpacked directory has no tag)."""

    label: str
    spec: str
    options: SourceOptions
    version: str | None = None

    def snapshots(self) -> list[Snapshot]:
        found = resolve(self.spec, self.options)
        if self.version is not None:
            found = [replace(snapshot, version=self.version) for snapshot in found]
        return found


def read_list(path: str) -> list[str]:
    """The sources of a `--from` list: one a line, blank lines and `#` comments skipped.
    A list that can't be read is bad input: a UsageError, before anything is indexed."""
    data = read_listing(path, MAX_LIST_BYTES, "a list of sources")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text: not a list of sources") from None
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def crate_sources(
    store: Store, lock: str, options: SourceOptions, named: Sequence[Snapshot] = ()
) -> tuple[list[Source], list[tuple[str, str]]]:
    """`index --cargo-lock`: a source for every registry crate `lock` pins that cargo has
    unpacked, but those stored (or `named`) at the same version; and the (crate, reason)
    of each one skipped: already indexed, not in the registry sources, not from one."""
    crates, skipped = read_lock(lock)
    stored = {(s.repo, s.version) for s in store.snapshots()}
    stored |= {(s.repo, s.version) for s in named}
    found: list[Source] = []
    for crate in crates:
        if (crate.repo, crate.version) in stored:
            skipped.append((str(crate), "already indexed"))
            continue
        directory = crate_directory(crate)
        if directory is None:
            skipped.append((str(crate), "not in the cargo registry sources (run `cargo fetch` "
                            "in its workspace first)"))
            continue
        found.append(Source(str(crate), str(directory),
                            replace(options, repo=crate.repo, commit=None), crate.version))
    return found, skipped


def package_sources(
    store: Store, lock: str, locked: tuple[list[npm.Locked], list[tuple[str, str]]],
    options: SourceOptions, named: Sequence[Snapshot] = (),
) -> tuple[list[Source], list[tuple[str, str]]]:
    """`index --package-lock`: a source for every package `lock` pins (`locked`, as
    `npm.read_lock` read it) that is installed in the node_modules beside it at the
    locked version, but those stored (or `named`) at that version; and the (package,
    reason) of each one skipped: already indexed, not installed, installed at another
    version, a link out of node_modules, no source, not from the registry."""
    packages, elsewhere = locked
    skipped = list(elsewhere)
    stored = {(s.repo, s.version) for s in store.snapshots()}
    stored |= {(s.repo, s.version) for s in named}
    found: list[Source] = []
    for package in packages:
        if (package.repo, package.version) in stored:
            skipped.append((str(package), "already indexed"))
            continue
        problem = npm.lock_problem(lock, package, options.max_file_bytes)
        if problem is not None:
            skipped.append((str(package), problem))
            continue
        node_modules, folder = npm.locked_directory(lock, package)
        found.append(Source(str(package), f"{npm.PREFIX}{folder}@{package.version}",
                            replace(options, node_modules=node_modules, repo=None,
                                    commit=None)))
    return found, skipped
