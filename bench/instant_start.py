"""Instant start: `errdex serve` ready, and `errdex explain --batch` of one message, with
the matcher saved in the database (warm) and without it (cold: the matcher is built from
the records and saved), each as a ratio against a one-shot `errdex explain` of the same
message in the same run (the on-disk key index: no matcher start-up at all). Every time is
a new process, as a user starts it.

    python bench/instant_start.py [--db CORPUS.sqlite] [--scales 100000,1000000] [--runs 3]
                                  [--in-process]

Databases are generated as bench/match.py generates them: the corpus's own templates
(py:stdlib and /work/candle, indexed now unless --db names an indexed corpus), copied with
a word or two changed until every template is unique, written as records through the
store. A cold run starts from a copy of the database as `errdex index` left it (no saved
matcher); the warm runs follow it. Goal (issue 19): at most 1 s at 100k templates and 3 s
at 1M.

What a warm start does: it reads the saved bytes, checks their digest, restores the
anchor, near-miss and name indexes from their arrays, and builds the anchor automaton
again from the saved anchor text (it can't be saved), plus the crowded anchors' small
automata and the near-miss lookup's token table. Lazily: each entry is decoded (its
chunk of 64 decompressed) and its template compiled when matching first reads it.

`--in-process` leaves out the databases and the processes (what a scale too big to write
in the time at hand still allows): the matcher built from the generated entries, saved
to bytes and read back in this process, each step timed, against the build.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from match import build_db, corpus_entries, mutate, render

ERRDEX = [sys.executable, "-m", "errdex"]
SERVE_WAIT_S = 1800.0


def one_shot(db: Path, text: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([*ERRDEX, "--db", str(db), "explain", "--json", text],
                          capture_output=True, check=False)
    took = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"explain failed: {done.stderr.decode()}")
    return took


def batch(db: Path, batch_file: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run([*ERRDEX, "--db", str(db), "explain", "--batch", str(batch_file)],
                          capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"explain --batch failed: {done.stderr}")
    return took, done.stdout


def serve_ready(db: Path) -> float:
    """Seconds from starting `errdex serve` to its first answer on /api/health."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    server = subprocess.Popen([*ERRDEX, "--db", str(db), "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while time.perf_counter() - t0 < SERVE_WAIT_S:
            if server.poll() is not None:
                raise SystemExit(f"serve exited: {server.stderr.read().decode()[-500:]}"
                                 if server.stderr else "serve exited")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health",
                                            timeout=5) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - t0
            except OSError:
                time.sleep(0.02)
        raise SystemExit("serve never became ready")
    finally:
        server.terminate()
        server.wait(timeout=60)


def bench_scale(base: list, n: int, runs: int, keep: Path,  # type: ignore[type-arg]
                cold_serve_too: bool = True) -> str:
    rng = random.Random(1)
    t0 = time.perf_counter()
    entries = mutate(base, n, rng)
    pristine = keep / f"instant{n}.sqlite"
    written = build_db(entries, str(pristine))
    made = time.perf_counter() - t0
    known = [e for e in entries if sum(len(lit.strip()) for lit in e.template.literals) >= 16]
    text = render(rng.choice(known), rng)
    batch_file = keep / "one.jsonl"
    batch_file.write_text(json.dumps({"text": text}) + "\n")
    db = keep / f"run{n}.sqlite"

    def fresh_copy() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
        shutil.copyfile(pristine, db)

    shots = [one_shot(pristine, text) for _ in range(runs)]
    cold_batch, warm_batch, cold_serve, warm_serve = [], [], [], []
    answers = set()
    for _ in range(runs):
        fresh_copy()
        took, out = batch(db, batch_file)
        cold_batch.append(took)
        answers.add(out)
        for _ in range(runs):
            took, out = batch(db, batch_file)
            warm_batch.append(took)
            answers.add(out)
    if cold_serve_too:  # a second cold build (the batch's saved it: start from the copy)
        fresh_copy()
        cold_serve.append(serve_ready(db))
    warm_serve += [serve_ready(db) for _ in range(runs)]
    size = os.path.getsize(db) / 2**20
    pristine_size = os.path.getsize(pristine) / 2**20
    base_s = statistics.median(shots)

    def row(name: str, times: list[float]) -> str:
        median = statistics.median(times)
        return (f"  {name:<26} {median:7.2f} s  ({median / base_s:6.1f}x one-shot explain; "
                f"runs: {', '.join(f'{t:.2f}' for t in times)})")

    same = "the same answer" if len(answers) == 1 else f"{len(answers)} DIFFERENT answers"
    return "\n".join([
        f"{n:,} templates (database {pristine_size:.0f} MB, {size - pristine_size:.0f} MB more "
        f"with the saved matcher; generated and written in {made:.0f} s, of it "
        f"{written:.0f} s writing):",
        f"  {'one-shot explain (baseline)':<26} {base_s:7.2f} s  "
        f"(runs: {', '.join(f'{t:.2f}' for t in shots)})",
        row("explain --batch, cold", cold_batch),
        row("explain --batch, warm", warm_batch),
        *([row("serve ready, cold", cold_serve)] if cold_serve else []),
        row("serve ready, warm", warm_serve),
        f"  every batch run gave {same}",
    ])


def in_process(base: list, n: int) -> str:  # type: ignore[type-arg]
    """Build, save and restore one matcher in this process, each timed."""
    import ahocorasick_rs

    from errdex.match import Matcher
    from errdex.match.saved import dump_matcher, load_saved

    rng = random.Random(1)
    entries = mutate(base, n, rng)
    known = [e for e in entries if sum(len(lit.strip()) for lit in e.template.literals) >= 16]
    text = render(rng.choice(known), rng)
    t0 = time.perf_counter()
    matcher = Matcher(entries)
    built = time.perf_counter() - t0
    expected = matcher.match(text)
    t0 = time.perf_counter()
    data = dump_matcher(matcher, "bench")
    dumped = time.perf_counter() - t0
    keys = [matcher._index.anchor_key(k) for k in range(matcher._index.keys())]
    del matcher
    t0 = time.perf_counter()
    ahocorasick_rs.AhoCorasick(keys)
    automaton = time.perf_counter() - t0
    t0 = time.perf_counter()
    restored = load_saved(data, "bench")
    loaded = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = restored.match(text)
    first = time.perf_counter() - t0
    same = "the same" if found == expected else "DIFFERENT"
    return (f"{n:,} templates in process: build {built:.1f} s; saved {len(data) / 2**20:.0f} MB "
            f"in {dumped:.1f} s; restore {loaded:.2f} s ({loaded / built * 100:.1f}% of the "
            f"build), of it the anchor automaton {automaton:.2f} s; first match after it "
            f"{first * 1000:.0f} ms, {same} answer as the built matcher")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="an indexed corpus (default: index one now)")
    parser.add_argument("--scales", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-cold-serve", action="store_true",
                        help="time serve warm only (a cold serve builds as a cold batch does)")
    parser.add_argument("--in-process", action="store_true",
                        help="no databases or processes: build, save and restore in process")
    args = parser.parse_args()
    base = corpus_entries(args.db)
    print(f"corpus: {len(base):,} templates", flush=True)
    if args.in_process:
        for n in (int(s) for s in args.scales.split(",")):
            print(in_process(base, n), flush=True)
        return
    keep = Path(tempfile.mkdtemp(prefix="errdex-instant-"))
    try:
        for n in (int(s) for s in args.scales.split(",")):
            print(bench_scale(base, n, args.runs, keep, not args.no_cold_serve), flush=True)
            for path in keep.iterdir():
                path.unlink()
    finally:
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    main()
