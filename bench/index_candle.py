"""Index huggingface/candle with errdex and, in the same run, time ast-grep on the same
tree: `bail!($$$)` alone, and all six error macros (`bail`, `panic`, `anyhow`,
`unreachable`, `unimplemented`, `todo`, path-qualified too: `anyhow::bail!`,
`candle::bail!`) in one scan: a baseline for "how long does reading this code take".

    python bench/index_candle.py [--candle /path/to/candle] [--repeat 3] [--workers N]

Prints the best wall and CPU time of each over the repeats (CPU counts the worker and
git processes too), errdex's ratios to the six-macro scan, and errdex's sites and
records by kind. The candle checkout is fetched separately (never committed); the
issue pins commit 2a13b0f3ff62f7e67013597f2996f764c5735e21.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore


def _ast_grep() -> str:
    local = Path(sys.executable).parent / "ast-grep"
    found = str(local) if local.exists() else shutil.which("ast-grep")
    if found is None:
        sys.exit("ast-grep is not installed (pip install ast-grep-cli)")
    return found


# One ast-grep rule for the six error macros, bare or behind a path (`anyhow::bail!`).
SIX_MACROS = """id: error-macros
language: rust
rule:
  kind: macro_invocation
  regex: "^(?:[A-Za-z_][A-Za-z0-9_]*::)*(?:bail|panic|anyhow|unreachable|unimplemented|todo)!"
"""


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # this process and the processes it waited for (workers, git, ast-grep)


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _run_ast_grep(arguments: list[str], root: str) -> tuple[Timing, int]:
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run([_ast_grep(), *arguments, "--json=stream", root],
                          capture_output=True, text=True, check=True)  # fmt: skip
    timing = Timing(time.perf_counter() - started, _cpu() - cpu)
    return timing, sum(1 for line in done.stdout.splitlines() if line.strip())


def time_bail(root: str) -> tuple[Timing, int]:
    return _run_ast_grep(["run", "--pattern", "bail!($$$)", "--lang", "rust"], root)


def time_six_macros(root: str) -> tuple[Timing, int]:
    return _run_ast_grep(["scan", "--inline-rules", SIX_MACROS], root)


def time_errdex(root: str, workers: int) -> tuple[Timing, dict[str, object]]:
    stages: dict[str, float] = {}  # wall seconds from the start to each stage's first report

    def progress(stage: str, done: int, total: int, what: str) -> None:
        stages.setdefault(stage, time.perf_counter() - started)

    with tempfile.TemporaryDirectory() as tmp:
        started, cpu = time.perf_counter(), _cpu()
        (snapshot,) = resolve(root, SourceOptions(repo="huggingface/candle"))
        with SQLiteStore(Path(tmp) / "bench.sqlite") as store:
            summary = index_snapshot(snapshot, store, workers=workers, progress=progress)
            timing = Timing(time.perf_counter() - started, _cpu() - cpu)
            kinds = Counter(row.kind for row in store.records())
    parsed = stages.get("analyzing records", timing.wall)
    return timing, {
        "wall_seconds_in": {"extraction (workers)": round(parsed, 2),
                            "analysis and store": round(timing.wall - parsed, 2)},
        "files": summary.files_read,
        "sites_by_kind": dict(summary.sites_by_kind),
        "records": summary.records,
        "records_by_kind": dict(kinds),
        "no_literal_sites": summary.dynamic_sites,
    }


def _best(timings: list[Timing]) -> Timing:
    return Timing(min(t.wall for t in timings), min(t.cpu for t in timings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candle", default=os.environ.get("ERRDEX_CANDLE", "/work/candle"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    if not Path(args.candle).is_dir():
        sys.exit(f"no candle checkout at {args.candle}")
    errdex_times: list[Timing] = []
    bail_times: list[Timing] = []
    six_times: list[Timing] = []
    facts: dict[str, object] = {}
    bails = six = 0
    for _ in range(args.repeat):
        timing, facts = time_errdex(args.candle, args.workers)
        errdex_times.append(timing)
        timing, bails = time_bail(args.candle)
        bail_times.append(timing)
        timing, six = time_six_macros(args.candle)
        six_times.append(timing)
    errdex, bail, macros = _best(errdex_times), _best(bail_times), _best(six_times)
    print(json.dumps(facts, indent=2))
    n = args.repeat
    print(f"ast-grep bail!($$$): {bails} matches, best of {n}: "
          f"{bail.wall:.2f}s wall, {bail.cpu:.2f}s CPU")
    print(f"ast-grep six error macros, one scan: {six} matches, best of {n}: "
          f"{macros.wall:.2f}s wall, {macros.cpu:.2f}s CPU")
    print(f"errdex index (all constructs, analysis, store): best of {n}: "
          f"{errdex.wall:.2f}s wall, {errdex.cpu:.2f}s CPU")
    print(f"ratio errdex / ast-grep six macros: wall {errdex.wall / macros.wall:.2f}, "
          f"CPU {errdex.cpu / macros.cpu:.2f}")
    print(f"ratio errdex / ast-grep bail!: wall {errdex.wall / bail.wall:.2f}, "
          f"CPU {errdex.cpu / bail.cpu:.2f}")

if __name__ == "__main__":
    main()
