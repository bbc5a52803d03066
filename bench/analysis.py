"""Cost of the grounded analysis against the extraction it builds on, in the same run.

    python bench/analysis.py /work/candle

Prints seconds for each stage and each stage's ratio to the baseline (extraction +
grouping, what indexing cost before facts were read from the repository). Not a test.
"""

from __future__ import annotations

import sys
import time

from errdex.analyze.snapshot import analyze_records, read_repository, record_history
from errdex.extract import resolve_constructions
from errdex.index import build_records, extract_snapshot
from errdex.source.resolve import SourceOptions, resolve


def main(path: str) -> None:
    (snapshot,) = resolve(path, SourceOptions())
    started = time.perf_counter()
    extractions, _ = extract_snapshot(snapshot)
    sites = [s for e in extractions for s in e.sites]
    sites.extend(resolve_constructions(extractions))
    records = build_records(snapshot, sites)
    baseline = time.perf_counter() - started

    stages: list[tuple[str, float]] = []
    t = time.perf_counter()
    analyze_records(records)
    stages.append(("prose without repository facts", time.perf_counter() - t))
    t = time.perf_counter()
    structures = {e.structure.path: e.structure for e in extractions if e.structure}
    repository = read_repository(snapshot, records, structures)
    stages.append(("read repository (graph, tests)", time.perf_counter() - t))
    t = time.perf_counter()
    repository.history = record_history(snapshot, records)
    stages.append(("git history", time.perf_counter() - t))
    t = time.perf_counter()
    analyze_records(records, repository)
    stages.append(("facts + prose with repository", time.perf_counter() - t))
    print(f"{len(records)} records; baseline extraction+grouping {baseline:.2f}s")
    for name, seconds in stages:
        print(f"  {name:42s} {seconds:6.2f}s  x{seconds / baseline:.2f} of baseline")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
