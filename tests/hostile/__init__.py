"""Hostile inputs, built at test time: trees that try to run code or exhaust errdex, and
texts that try to crash, freeze or hijack it.

Each area's module (`git.py`, `index.py`, `cli.py`) has `cases(tmp)`, which builds its
inputs under `tmp` and returns them as `Case`s: an `errdex` command line, what it reads on
stdin, the marker files that appear only if code from the input ran, and the exit statuses
the command may end with. Tests assert each case's outcome in detail; `bench/hostile.py`
runs every case once and prints the totals (code executions, crashes, peak memory).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # errdex's arguments; "{db}" stands for the database path
    stdin: bytes = b""
    markers: tuple[Path, ...] = ()  # any of these existing afterwards = code from the input ran
    exits: tuple[int, ...] = (0,)  # the documented exit statuses this case may end with
    env: dict[str, str] = field(default_factory=dict)  # extra environment variables
