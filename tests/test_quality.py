"""The code base's own bar: `mypy --strict` and `ruff` report nothing on the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_strict_is_clean() -> None:
    done = _run(sys.executable, "-m", "mypy", "errdex")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_is_clean() -> None:
    done = _run(sys.executable, "-m", "ruff", "check", "errdex", "tests", "bench")
    assert done.returncode == 0, done.stdout + done.stderr
