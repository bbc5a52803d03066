"""Re-index huggingface/candle after one file changes, against a full index of the same
tree in the same run: the ratio re-index / full is what incremental indexing saves.

    python bench/reindex_candle.py [--candle /path/to/candle] [--workers N] [--repeat N] [--check]

The checkout (with its .git: the history facts read it) is copied to a temporary
directory; the copy is indexed in full into a new database, then one file
(`candle-nn/src/ops.rs`: one message reworded, a line added at the top so every site below
moves) is changed and the copy is indexed again into the same database, then the change
is committed and the copy indexed once more (a new HEAD: every record's commit and
history may differ, so only extraction is incremental there). Prints each
run's wall and CPU time (CPU counts the worker and git processes too), where the wall time
went (previous records, hashing and extraction; analysis; store), how many files were
reused, and the ratios (the best of `--repeat` runs of each, each on a fresh copy). With
`--check`, a copy is also indexed, changed and re-indexed, and the changed tree indexed
in full (`index --full`) into a second database that saw the same first index: the two
sets of records must be identical. The candle checkout is fetched separately (never
committed); the issue pins commit 2a13b0f3ff62f7e67013597f2996f764c5735e21.
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
from dataclasses import dataclass
from pathlib import Path

from errdex.index import index_snapshot
from errdex.models import IndexSummary
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

CHANGED = "candle-nn/src/ops.rs"
OLD, NEW = "dropout probability has to be in [0, 1)", "dropout probability must be in [0, 1)"


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    stages: dict[str, float]
    summary: IndexSummary


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def index(root: str, db: Path, workers: int, full: bool = False) -> Run:
    marks: dict[str, float] = {}

    def progress(stage: str, done: int, total: int, what: str) -> None:
        if stage == "analyzing records":
            marks.setdefault("analysis starts", time.perf_counter() - started)
            if done == total:
                marks["analysis ends"] = time.perf_counter() - started

    started, cpu = time.perf_counter(), _cpu()
    (snapshot,) = resolve(root, SourceOptions(repo="huggingface/candle"))
    with SQLiteStore(db) as store:
        summary = index_snapshot(snapshot, store, workers=workers, progress=progress,
                                 full=full)
    wall = time.perf_counter() - started
    begins = marks.get("analysis starts", wall)
    ends = marks.get("analysis ends", wall)
    stages = {"previous records, hashing, extraction": round(begins, 2),
              "analysis": round(ends - begins, 2),
              "store": round(wall - ends, 2)}
    return Run(wall, _cpu() - cpu, stages, summary)


def change(root: Path) -> None:
    path = root / CHANGED
    text = path.read_text()
    if OLD not in text:
        sys.exit(f"{CHANGED} has no {OLD}: not the pinned candle commit?")
    path.write_text("// changed for the benchmark\n" + text.replace(OLD, NEW, 1))


def commit(root: Path) -> None:
    """Commit the change in the copy (never in the original checkout)."""
    who = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-am", "bench change"],
                   check=True, env={**os.environ, **who})


def records(db: Path) -> list[str]:
    with SQLiteStore(db) as store:
        return [store.record_json(row.id) for row in store.records("huggingface/candle")]


def _show(name: str, run: Run) -> None:
    reused = run.summary.extra.get("files_reused", 0)
    print(f"{name}: {run.wall:.2f}s wall, {run.cpu:.2f}s CPU; {run.summary.files_read} files "
          f"read, {reused} reused; {run.summary.records} records")
    print("  " + json.dumps(run.stages))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candle", default=os.environ.get("ERRDEX_CANDLE", "/work/candle"))
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--check", action="store_true",
                        help="also index the changed tree in full and compare the records")
    args = parser.parse_args()
    if not Path(args.candle).is_dir():
        sys.exit(f"no candle checkout at {args.candle}")
    fulls, agains, commits = [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "candle"
            shutil.copytree(args.candle, root, symlinks=True)
            fulls.append(index(str(root), Path(tmp) / "reindex.sqlite", args.workers))
            change(root)
            agains.append(index(str(root), Path(tmp) / "reindex.sqlite", args.workers))
            commit(root)
            commits.append(index(str(root), Path(tmp) / "reindex.sqlite", args.workers))
    full = min(fulls, key=lambda run: run.wall)
    _show(f"full index (best of {args.repeat})", full)
    for name, runs in ((f"re-index after {CHANGED} changed in the work tree", agains),
                       ("re-index after that change is committed (a new HEAD)", commits)):
        best = min(runs, key=lambda run: run.wall)
        _show(f"{name} (best of {args.repeat})", best)
        print(f"  ratio re-index / full: wall {best.wall / full.wall:.3f}, "
              f"CPU {min(r.cpu for r in runs) / min(r.cpu for r in fulls):.3f}")
    if not args.check:
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "candle"
        shutil.copytree(args.candle, root, symlinks=True)
        db, other = Path(tmp) / "reindex.sqlite", Path(tmp) / "full.sqlite"
        index(str(root), db, args.workers)
        shutil.copy(db, other)
        change(root)
        index(str(root), db, args.workers)
        check = index(str(root), other, args.workers, full=True)
        _show("full index of the changed tree (--full)", check)
        same = records(db) == records(other)
        print(f"records identical to the full index's: {same}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
