"""Throughput of `index --engine ray` against Ray workers, and against the in-process
indexer (`--engine local`), measured in the same run on the same sources: packages of
this interpreter's standard library (each a directory source) and the distributions
installed in this environment, up to --sources of them, smallest first.

    python bench/ray_index.py [--sources 40] [--rounds 1] [--workers 1,2]

Each figure is sources per second from the first source read to the last one stored in a
fresh SQLite file, with the median of --rounds runs. The in-process indexer runs as the
CLI runs it (every source read, then each indexed with the parse pool's default workers)
and once with one parse worker. Each Ray figure runs on a fresh local cluster of N CPUs,
started before the clock starts (its start is printed apart), so its workers import
errdex on their first task, as they do in real use. Ratios are to the in-process indexer.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errdex.engines import Source
from errdex.engines.on_ray import index_on_ray, load_ray
from errdex.index import index_snapshot
from errdex.source.resolve import STDLIB_SKIPPED, SourceOptions, resolve
from errdex.store import SQLiteStore

OPTIONS = SourceOptions()
MAX_FILES = 60  # a source larger than this would make the run one library's time


def _stdlib_sources() -> list[tuple[int, str]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for package in sorted(root.iterdir()):
        if (package / "__init__.py").is_file() and package.name not in STDLIB_SKIPPED:
            found.append((sum(1 for _ in package.rglob("*.py")), str(package)))
    return found


def _distribution_sources() -> list[tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or ""
        files = sum(1 for f in dist.files or [] if str(f).endswith(".py"))
        if name and files and name.lower() not in found and name.lower() != "errdex":
            found[name.lower()] = (files, f"py:{name}")
    return list(found.values())


def sources(count: int) -> list[str]:
    """Up to `count` sources of at most MAX_FILES Python files, smallest first, taken in
    turn from the standard library and from the installed distributions."""
    stdlib = sorted(s for s in _stdlib_sources() if s[0] <= MAX_FILES)
    dists = sorted(s for s in _distribution_sources() if s[0] <= MAX_FILES)
    mixed = [spec for pair in zip(stdlib, dists, strict=False) for _, spec in pair]
    rest = [spec for _, spec in stdlib[len(dists):] + dists[len(stdlib):]]
    return (mixed + rest)[:count]


def _local(specs: list[str], db: Path, workers: int) -> None:
    snapshots = [snapshot for spec in specs for snapshot in resolve(spec, OPTIONS)]
    with SQLiteStore(str(db)) as store:
        for snapshot in snapshots:
            index_snapshot(snapshot, store, workers=workers)


def _on_ray(specs: list[str], db: Path) -> None:
    with SQLiteStore(str(db)) as store:
        report = index_on_ray([Source(s, s, OPTIONS) for s in specs], store)
    if report.failed:
        raise SystemExit(f"sources failed on Ray: {report.failed}")


def _timed(run: Callable[[Path], None], rounds: int, work: Path) -> float:
    seconds = []
    for k in range(rounds):
        db = work / f"run-{time.monotonic_ns()}-{k}.sqlite"
        started = time.perf_counter()
        run(db)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", default=",".join(str(n) for n in
                                                      sorted({1, 2, os.cpu_count() or 1})))
    args = parser.parse_args()
    specs = sources(args.sources)
    ray = load_ray()
    print(f"{len(specs)} sources ({sum(s.startswith('py:') for s in specs)} installed "
          f"distributions), {os.cpu_count()} cores, median of {args.rounds} round(s)")
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="errdex-bench-ray-") as tmp:
        work = Path(tmp)
        base = _timed(lambda db: _local(specs, db, 0), args.rounds, work)
        rows.append(("in-process (--engine local)", base))
        rows.append(("in-process, 1 parse worker",
                     _timed(lambda db: _local(specs, db, 1), args.rounds, work)))
        for workers in (int(w) for w in args.workers.split(",")):
            started = time.perf_counter()
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR)
            start = time.perf_counter() - started
            try:
                took = _timed(lambda db: _on_ray(specs, db), args.rounds, work)
            finally:
                ray.shutdown()
            rows.append((f"ray, {workers} worker(s) (cluster start {start:.1f}s apart)", took))
    print(f"{'engine':<48} {'seconds':>8} {'sources/s':>10} {'vs in-process':>14}")
    for name, took in rows:
        print(f"{name:<48} {took:>8.1f} {len(specs) / took:>10.2f} {base / took:>13.2f}x")


if __name__ == "__main__":
    main()
