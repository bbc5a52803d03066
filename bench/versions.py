"""What a second version side by side costs a one-shot `explain`: the same pastes explained
(key index, then the records read) against a database holding one version of a generated
library and against one holding two versions of it, and the pastes naming the older
version (a view reading it) against the same pastes naming none; then the store's share
alone (key-index candidates and three record reads per paste), which the matcher's
compile time otherwise drowns. Printed as ratios to the one-version run, measured in the
same run.

    python bench/versions.py [--messages 5000] [--pastes 400] [--rounds 3]

The library is written and tagged with real git (v1.0, then v2.0 with every line moved,
so that both databases' newest snapshots hold the same records: a reworded message would
add a removed record to the second), then indexed by errdex itself.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errdex.index import index_snapshot
from errdex.service import Explainer
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

WORDS = ("cache", "buffer", "shape", "token", "stride", "kernel", "device", "layout",
         "tensor", "index", "window", "batch", "stream", "handle", "region", "vector")
ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
PER_FILE = 100


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=ENV)


def _messages(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        a, b, c = rng.sample(WORDS, 3)
        out.append(f"{a} {b} number {i} must not exceed the {c} limit of {{limit}}")
    return out


def _write(root: Path, messages: list[str], pad: int) -> None:
    package = root / "genlib"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    for start in range(0, len(messages), PER_FILE):
        lines = ["\n" * pad]
        for k, message in enumerate(messages[start:start + PER_FILE]):
            lines.append(f"def check_{k}(value, limit):\n    if value > limit:\n"
                         f"        raise ValueError(f\"{message}\")\n")
        (package / f"m{start // PER_FILE}.py").write_text("\n".join(lines))


def build(tmp: Path, count: int) -> tuple[Path, Path, list[str]]:
    """(database with v2.0 only, database with v1.0 and v2.0, v2.0's messages)."""
    root = tmp / "genlib"
    root.mkdir()
    _git(root, "init", "-q")
    first = _messages(count, 1)
    second = first
    _write(root, first, 0)
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "v1")
    _git(root, "tag", "v1.0")
    _write(root, second, 3)
    _git(root, "commit", "-qam", "v2")
    _git(root, "tag", "v2.0")
    one, two = tmp / "one.sqlite", tmp / "two.sqlite"
    options = SourceOptions(repo="bench/genlib")
    for db, refs in ((one, ("v2.0",)), (two, ("v1.0", "v2.0"))):
        with SQLiteStore(db) as store:
            for ref in refs:
                _git(root, "checkout", "-q", ref)
                [snapshot] = resolve(str(root), options)
                index_snapshot(snapshot, store)
    return one, two, second


def _explain_all(db: Path, pastes: list[str]) -> float:
    with Explainer(db) as explainer:  # reads the version a paste names, as the CLI does
        started = time.perf_counter()
        for text in pastes:
            result = explainer.explain(text, 1)
            assert result["matches"], text
        return time.perf_counter() - started


def _reads(db: Path, pastes: list[str]) -> float:
    """The store's share alone: each paste's candidates, and its first three records."""
    with SQLiteStore(db, create=False) as store:
        started = time.perf_counter()
        for text in pastes:
            for entry in (store.match_candidates(text) or [])[:3]:
                store.record(entry.record_id)
        return time.perf_counter() - started


def _best(rounds: int, run: Callable[[], float]) -> float:
    return statistics.median(run() for _ in range(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--pastes", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, two, messages = build(Path(tmp), args.messages)
        rng = random.Random(7)
        chosen = rng.sample(messages, min(args.pastes, len(messages)))
        pastes = [f"ValueError: {m.replace('{limit}', str(rng.randint(1, 99)))}"
                  for m in chosen]
        named = [f"genlib v1.0\n{text}" for text in pastes]
        base = _best(args.rounds, lambda: _explain_all(one, pastes))
        side = _best(args.rounds, lambda: _explain_all(two, pastes))
        older = _best(args.rounds, lambda: _explain_all(two, named))
        reads = [_best(args.rounds, lambda db=db: _reads(db, pastes))
                 for db in (one, two)]
        per = 1000 / len(pastes)
        print(f"{args.messages} messages, {len(pastes)} pastes, median of {args.rounds}")
        print(f"one version:                 {base * per:7.2f} ms/paste  (baseline)")
        print(f"two versions side by side:   {side * per:7.2f} ms/paste  "
              f"ratio {side / base:.2f}")
        print(f"paste naming the older one:  {older * per:7.2f} ms/paste  "
              f"ratio {older / base:.2f}")
        print(f"store reads only, one version: {reads[0] * per:7.2f} ms/paste  (baseline)")
        print(f"store reads only, two versions: {reads[1] * per:6.2f} ms/paste  "
              f"ratio {reads[1] / reads[0]:.2f}")


if __name__ == "__main__":
    main()
