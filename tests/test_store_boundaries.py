"""The store's edges: SQL lives only in errdex/store/, and the store stands below the
matcher (importing it never loads errdex.match), so a backend can change without touching
a surface and the matcher can be compiled without the store."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import errdex

PACKAGE = Path(errdex.__file__).parent
STORE = PACKAGE / "store"
SQL_CALLS = {"execute", "executemany", "executescript", "set_progress_handler"}
# A string literal that reads as a statement: SQL text written outside the store.
SQL_TEXT = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|PRAGMA|BEGIN)\s")


def _sql_in(path: Path) -> list[str]:
    """Where one module touches a database itself: sqlite3 imported, a cursor method
    called, or an SQL statement written as a string (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
            found.append(f"{where} imports sqlite3")
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            found.append(f"{where} imports from sqlite3")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in SQL_CALLS):
            found.append(f"{where} calls .{node.func.attr}()")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings and SQL_TEXT.match(node.value)):
            found.append(f"{where} writes SQL {node.value[:30]!r}")
    return found


def test_no_sql_outside_the_store_package() -> None:
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if STORE not in p.parents]
    assert len(outside) > 20  # the scan sees the whole package
    assert [hit for path in outside for hit in _sql_in(path)] == []


def test_the_scan_finds_the_sql_the_store_itself_holds() -> None:
    hits = _sql_in(STORE / "sqlite.py")
    assert any("imports sqlite3" in hit for hit in hits)
    assert any("calls .execute()" in hit for hit in hits)
    assert any("calls .executemany()" in hit for hit in hits)
    assert any("writes SQL" in hit for hit in hits)


def test_importing_the_store_does_not_import_the_matcher() -> None:
    code = ("import sys, errdex.store, errdex.store.keys; "
            "print(sorted(m for m in sys.modules if m == 'errdex.match' "
            "or m.startswith('errdex.match.') or m == 'ahocorasick_rs'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "[]"
