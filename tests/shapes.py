"""A small Python library written for the service and MCP tests, indexed into a fresh
database: raises with values, one raise spanning several lines, two files, and a second
repository whose top-level `grid.py` shares a file name with the first's `shapes/grid.py`.
"""

from __future__ import annotations

import io
from pathlib import Path

from errdex.serve.cli import main

REPO = "acme/shapes"
OTHER_REPO = "acme/other"
COMMIT = "0123456789abcdef0123456789abcdef01234567"

GRID = '''\
class Grid:
    def __init__(self, rows, cols):
        if rows <= 0:
            raise ValueError(f"grid needs at least one row, got {rows}")
        if cols > 1000:
            raise ValueError(
                f"grid too wide: {cols} columns, "
                f"the limit is {1000}"
            )
        self.rows = rows
        self.cols = cols

    def cell(self, row, col):
        if not 0 <= row < self.rows:
            raise IndexError(f"row {row} out of range for a grid of {self.rows} rows")
        return (row, col)
'''

STORAGE = '''\
def save(grid, path, mode):
    if mode not in ("w", "x"):
        raise ValueError("unknown save mode %r for %s" % (mode, path))
    return grid
'''

OTHER_GRID = '''\
def parse(text):
    raise SyntaxError(f"cannot parse grid text {text!r}")
'''


def line_of(source: str, needle: str) -> int:
    """The 1-based line of `source` holding `needle`."""
    for number, text in enumerate(source.splitlines(), 1):
        if needle in text:
            return number
    raise AssertionError(f"{needle!r} is not in the fixture")


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def index_shapes(workdir: Path) -> Path:
    """A database holding both repositories; returns its path."""
    db = workdir / "errdex.sqlite"
    shapes = write_tree(workdir / "shapes_repo", {
        "shapes/__init__.py": "from shapes.grid import Grid\n",
        "shapes/grid.py": GRID,
        "shapes/storage.py": STORAGE,
    })
    other = write_tree(workdir / "other_repo", {"grid.py": OTHER_GRID})
    for root, repo in ((shapes, REPO), (other, OTHER_REPO)):
        code = main(["--db", str(db), "index", str(root), "--repo", repo, "--commit", COMMIT],
                    out=io.StringIO())
        assert code == 0
    return db

# What a user of `shapes` pastes: the traceback of a Grid built with -3 rows.
TRACEBACK = """\
Traceback (most recent call last):
  File "/home/me/app/main.py", line 3, in <module>
    Grid(-3, 4)
  File "/home/me/venv/lib/python3.11/site-packages/shapes/grid.py", line 4, in __init__
    raise ValueError(f"grid needs at least one row, got {rows}")
ValueError: grid needs at least one row, got -3
"""
