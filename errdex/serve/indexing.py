"""The `errdex index` command: which sources (named, `--from LIST`, `--deps`,
`--cargo-lock`, `--package-lock`), then the engine that indexes them (`--engine local` in
this process, `--engine ray` on a cluster), printing a summary of each snapshot stored.
Imported by `errdex.serve.cli` only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from errdex import settings
from errdex.engines import Source, crate_sources, package_sources, read_list
from errdex.engines.on_ray import RETRIES, index_on_ray, load_ray
from errdex.errors import UsageError
from errdex.index import Budgets, dependency_snapshots, index_snapshot
from errdex.models import IndexSummary
from errdex.serve import terminal
from errdex.serve.cli import _check_source, _open_store, _say, _write_pages
from errdex.source import npm
from errdex.source.resolve import SourceOptions, resolve


def index_command(args: argparse.Namespace, out: TextIO) -> int:
    """`errdex index`: the sources named, listed (--from), installed (--deps) and pinned
    (--cargo-lock, --package-lock), indexed by the engine chosen."""
    specs = list(args.sources)
    if args.from_list is not None:
        listed = read_list(args.from_list)
        for spec in listed:
            _check_source(spec)
        specs += listed
    if len(specs) > 1 and (args.repo or args.commit):
        raise UsageError("--repo and --commit name one source: give one source with them")
    cache_dir = settings.resolve("cache_dir", args.cache_dir)
    options = SourceOptions(
        repo=args.repo, commit=args.commit, python=args.python, node_modules=args.node_modules,
        cache_dir=str(cache_dir) if cache_dir else None,
        max_file_bytes=int(settings.resolve("max_file_bytes", args.max_file_bytes) or 0),
    )
    if not specs and not args.deps and not args.cargo_lock and not args.package_lock:
        raise UsageError("give a source to index (a directory, a git URL, py:DIST, npm:PKG), "
                         "--from LIST, --deps, --cargo-lock or --package-lock")
    if (args.deps or args.cargo_lock or args.package_lock) and (args.repo or args.commit):
        raise UsageError("--repo and --commit name one source: not with --deps, --cargo-lock "
                         "or --package-lock")
    # A lock file that can't be read fails the call before anything is opened or written.
    locked = npm.read_lock(args.package_lock) if args.package_lock else None
    if args.engine != "ray" and (args.address or args.retries is not None):
        raise UsageError("--address and --retries are for --engine ray")
    if args.retries is not None and args.retries < 0:
        raise UsageError("--retries must be 0 or more")
    workers = int(settings.resolve("workers", args.workers) or 0)
    budgets = Budgets(
        file_seconds=float(settings.resolve("file_seconds", args.file_seconds) or 1),
        max_file_sites=int(settings.resolve("max_file_sites", args.max_file_sites) or 1),
        max_sites=int(settings.resolve("max_sites", args.max_sites) or 1),
    )
    if args.engine == "ray":
        return _index_on_ray(args, out, specs, options, workers, budgets, locked)
    return _index_here(args, out, specs, options, workers, budgets, locked)


Locked = tuple[list[npm.Locked], list[tuple[str, str]]] | None  # --package-lock, as read


def _index_here(args: argparse.Namespace, out: TextIO, specs: list[str], options: SourceOptions,
                workers: int, budgets: Budgets, locked: Locked) -> int:
    """`--engine local`: every source read first (a bad one fails the call before
    anything is written), then indexed one after the other in this process."""

    snapshots = [snapshot for spec in specs for snapshot in resolve(spec, options)]
    if args.deps or args.cargo_lock or locked:  # one that can't be read is said and skipped
        with _open_store(args, create=True) as store:
            found, skipped = dependency_snapshots(store, options, snapshots) if args.deps \
                else ([], [])
            snapshots += [snapshot for _, snapshot in found]
            if args.cargo_lock:
                crates, crates_skipped = crate_sources(store, args.cargo_lock, options, snapshots)
                skipped += crates_skipped
                snapshots += [snapshot for crate in crates for snapshot in crate.snapshots()]
            if locked is not None:
                packages, packages_skipped = package_sources(store, args.package_lock, locked,
                                                             options, snapshots)
                skipped += packages_skipped
                snapshots += [snapshot for package in packages
                              for snapshot in package.snapshots()]
        for spec, why in skipped:
            _say(f"skipped {spec}: {why}")
    style = terminal.Style(terminal.use_color(out))
    progress = terminal.Progress(sys.stderr)
    with _open_store(args, create=True) as store:
        for snapshot in snapshots:
            summary = index_snapshot(snapshot, store, workers=workers, progress=progress,
                                     budgets=budgets, full=args.full)
            progress.clear()
            terminal.write(terminal.summary_text(summary, style), out)
            if args.llm:
                _write_pages(store, snapshot.repo, True, out)
    return 0


def _index_on_ray(args: argparse.Namespace, out: TextIO, specs: list[str], options: SourceOptions,
                  workers: int, budgets: Budgets, locked: Locked) -> int:
    """`--engine ray`: every source read and built on the cluster, stored here as it
    comes; a source that fails is said, tried again, and fails the call (exit 2) only
    once all the others are stored."""

    load_ray()  # without Ray: one line saying how to install it, before any work
    # An `npm:` name is looked up from here, not from where a worker runs.
    sources = [Source(spec, spec, npm.pinned(spec, options)) for spec in specs]
    style = terminal.Style(terminal.use_color(out))
    stored: list[str] = []

    def on_stored(summary: IndexSummary) -> None:
        stored.append(summary.repo)
        terminal.write(terminal.summary_text(summary, style), out)
        out.flush()

    def progress(line: str) -> None:
        print(terminal.safe(line, one_line=True), file=sys.stderr, flush=True)

    with _open_store(args, create=True) as store:
        skipped: list[tuple[str, str]] = []
        if args.deps:
            found, skipped = dependency_snapshots(store, options)
            sources += [Source(spec, spec, options) for spec, _ in found]
        if args.cargo_lock:
            crates, crates_skipped = crate_sources(store, args.cargo_lock, options)
            skipped += crates_skipped
            sources += crates
        if locked is not None:
            packages, packages_skipped = package_sources(store, args.package_lock, locked,
                                                         options)
            skipped += packages_skipped
            sources += packages
        for spec, why in skipped:
            _say(f"skipped {spec}: {why}")
        report = index_on_ray(
            sources, store, address=args.address, workers=workers, budgets=budgets,
            retries=RETRIES if args.retries is None else args.retries,
            on_stored=on_stored, say=_say, progress=progress)
        if args.llm:
            for repo in dict.fromkeys(stored):
                _write_pages(store, repo, True, out)
    if report.failed:
        shown = ", ".join(report.failed[:5]) + (", ..." if len(report.failed) > 5 else "")
        _say(f"{len(report.failed)} of {len(sources)} sources could not be indexed: {shown}")
        return 2
    return 0
