"""Index huggingface/candle with errdex and, in the same run, time ast-grep finding
`bail!($$$)` on the same tree: a baseline for "how long does reading this code take".

    python bench/index_candle.py [--candle /path/to/candle] [--repeat 3]

Prints the best time of each over the repeats, their ratio, and errdex's sites and
records by kind. The candle checkout is fetched separately (never committed); the
issue pins commit 2a13b0f3ff62f7e67013597f2996f764c5735e21.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
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


def time_ast_grep(root: str) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        [_ast_grep(), "run", "--pattern", "bail!($$$)", "--lang", "rust", "--json=stream", root],
        capture_output=True, text=True, check=True,
    )
    elapsed = time.perf_counter() - started
    return elapsed, sum(1 for line in done.stdout.splitlines() if line.strip())


def time_errdex(root: str, workers: int) -> tuple[float, dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        (snapshot,) = resolve(root, SourceOptions(repo="huggingface/candle"))
        with SQLiteStore(Path(tmp) / "bench.sqlite") as store:
            summary = index_snapshot(snapshot, store, workers=workers)
            elapsed = time.perf_counter() - started
            kinds = Counter(row.kind for row in store.records())
    return elapsed, {
        "files": summary.files_read,
        "sites_by_kind": dict(summary.sites_by_kind),
        "records": summary.records,
        "records_by_kind": dict(kinds),
        "no_literal_sites": summary.dynamic_sites,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candle", default=os.environ.get("ERRDEX_CANDLE", "/work/candle"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    if not Path(args.candle).is_dir():
        sys.exit(f"no candle checkout at {args.candle}")
    errdex_times, grep_times = [], []
    facts: dict[str, object] = {}
    bails = 0
    for _ in range(args.repeat):
        seconds, facts = time_errdex(args.candle, args.workers)
        errdex_times.append(seconds)
        seconds, bails = time_ast_grep(args.candle)
        grep_times.append(seconds)
    best_errdex, best_grep = min(errdex_times), min(grep_times)
    print(json.dumps(facts, indent=2))
    print(f"ast-grep bail!($$$): {bails} matches, best of {args.repeat}: {best_grep:.2f}s")
    print(f"errdex index (all constructs, analysis, store): best of {args.repeat}: "
          f"{best_errdex:.2f}s")
    print(f"ratio errdex / ast-grep: {best_errdex / best_grep:.2f}")


if __name__ == "__main__":
    main()
