"""Run every hostile input of `tests/hostile/` through the real `errdex` command, once.

    python bench/hostile.py [--keep DIR] [--timeout 120]

Each area's `cases(tmp)` builds its inputs (trees that try to run code through git, Python
or build files; files that crash or exhaust a parser; texts that break decoding, flood a
terminal or wait on a lock) and says which exit statuses are documented for each. This
prints one line per case and the totals the safety promise is about: code executions
(marker files that appeared), crashes (a signal, exit 70, a Python traceback), exits
outside the documented ones, time-outs, and the peak memory of any one errdex process,
beside the peak of `errdex list` on an empty database measured in the same run. It is a
report, not a test: the tests in `tests/test_safety_*.py` assert each case in detail.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile import Case

AREAS = ("git", "index", "cli")


@dataclass(frozen=True)
class Outcome:
    area: str
    case: Case
    exit: int | None  # None: killed at the time-out
    seconds: float
    peak_mb: float
    executed: tuple[Path, ...]
    traceback: bool

    @property
    def crashed(self) -> bool:
        return self.exit is not None and (self.exit < 0 or self.exit == 70 or self.traceback)

    @property
    def unexpected(self) -> bool:
        return self.exit is not None and not self.crashed and self.exit not in self.case.exits


def run_case(area: str, case: Case, db: Path, work: Path, timeout: float) -> Outcome:
    """One errdex process; its own peak memory comes from wait4's rusage of that child."""
    argv = [arg.replace("{db}", str(db)) for arg in case.argv]
    stdin = work / "stdin"
    stdin.write_bytes(case.stdin)
    with stdin.open("rb") as feed, (work / "stdout").open("wb") as out, \
            (work / "stderr").open("wb") as err:
        started = time.monotonic()
        proc = subprocess.Popen([_errdex(), *argv], stdin=feed, stdout=out, stderr=err,
                                env={**os.environ, **case.env}, cwd=work)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    stderr = (work / "stderr").read_bytes()
    return Outcome(
        area=area, case=case, exit=None if killed.is_set() else proc.returncode,
        seconds=seconds, peak_mb=usage.ru_maxrss / 1024,
        executed=tuple(m for m in case.markers if m.exists()),
        traceback=b"Traceback (most recent call last)" in stderr,
    )


def _errdex() -> str:
    found = shutil.which("errdex")
    if found is None:
        raise SystemExit("bench/hostile.py: no `errdex` on PATH: pip install . first")
    return found


def _baseline_mb(work: Path) -> float:
    case = Case("baseline: errdex list on an empty database", ("--db", "{db}", "list"),
                exits=(0, 1))
    db = work / "baseline.sqlite"
    subprocess.run([_errdex(), "--db", str(db), "index", str(_empty_tree(work))],
                   capture_output=True, check=False)
    return run_case("baseline", case, db, work, 60).peak_mb


def _empty_tree(work: Path) -> Path:
    tree = work / "empty-tree"
    tree.mkdir(exist_ok=True)
    (tree / "ok.py").write_text("def f(x):\n    raise ValueError(f'bad value {x}')\n")
    return tree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", help="build the inputs here and keep them (default: a "
                        "temporary directory, removed afterwards)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds before a case counts as hung and is killed")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="errdex-hostile."))
    root.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    try:
        baseline = _baseline_mb(root)
        for area in AREAS:
            module = importlib.import_module(f"tests.hostile.{area}")
            base = root / area
            base.mkdir(exist_ok=True)
            cases: list[Case] = module.cases(base)
            db = base / "errdex.sqlite"  # one database per area: its cases run in order
            for case in cases:
                outcome = run_case(area, case, db, base, args.timeout)
                outcomes.append(outcome)
                print(_line(outcome), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    _totals(outcomes, baseline)
    bad = [o for o in outcomes if o.executed or o.crashed or o.unexpected or o.exit is None]
    return 1 if bad else 0


def _line(o: Outcome) -> str:
    verdict = ("CODE RAN" if o.executed else "CRASH" if o.crashed else
               "HUNG" if o.exit is None else "UNEXPECTED EXIT" if o.unexpected else "ok")
    return (f"{o.area:6} {o.case.name[:60]:60} exit {o.exit!s:>4} {o.seconds:6.1f} s "
            f"{o.peak_mb:7.1f} MB  {verdict}")


def _totals(outcomes: list[Outcome], baseline: float) -> None:
    peak = max((o.peak_mb for o in outcomes), default=0.0)
    worst = max(outcomes, key=lambda o: o.peak_mb, default=None)
    print()
    print(f"inputs tried:     {len(outcomes)}")
    print(f"code executions:  {sum(bool(o.executed) for o in outcomes)}")
    print(f"crashes:          {sum(o.crashed for o in outcomes)}")
    print(f"hung (killed):    {sum(o.exit is None for o in outcomes)}")
    print(f"unexpected exits: {sum(o.unexpected for o in outcomes)}")
    print(f"peak memory:      {peak:.1f} MB in one process"
          + (f" ({worst.case.name})" if worst else "")
          + f"; {peak / baseline:.1f}x the {baseline:.1f} MB of `errdex list`")
    print(f"slowest case:     {max((o.seconds for o in outcomes), default=0.0):.1f} s")


if __name__ == "__main__":
    sys.exit(main())
