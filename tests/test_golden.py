"""Golden pages: the JSON of every record of the fixture repositories, as `errdex show
--json` prints it, checked in under `tests/golden/`.

They are the safety net for moving code around: a change that is meant to leave pages as
they are must leave these files identical, and one that changes pages on purpose rewrites
them (`ERRDEX_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`) and says in its
commit which pages changed and why. The repositories are built with fixed dates and
authors, so their commits (and so their permalinks and history) are the same everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.analysis_repos import FIXTURES, commit, init, python_repo, rust_version

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ERRDEX_UPDATE_GOLDEN") == "1"
DATES = ("2024-01-01T12:00:00+00:00", "2024-02-01T12:00:00+00:00", "2024-03-01T12:00:00+00:00")


def _plain(name: str) -> Callable[[Path], list[Path]]:
    def build(root: Path) -> list[Path]:
        shutil.copytree(FIXTURES / name, root)
        return [root]

    return build


def _analysis_python(root: Path) -> list[Path]:
    python_repo(root)
    return [root]


def _analysis_rust(root: Path) -> list[Path]:
    """Snapshots at v2 and v3, as the analysis tests take them: v1's legacy message is
    gone by v3, so the golden pages include a removed record."""
    init(root)
    snapshots = []
    for version, date, tag in zip(("v1", "v2", "v3"), DATES, ("v0.1.0", "v0.2.0", None),
                                  strict=True):
        rust_version(root, version)
        commit(root, version, date, tag)
        if version != "v1":
            snapshot = root.parent / f"{root.name}-{version}"
            shutil.copytree(root, snapshot, symlinks=True)
            snapshots.append(snapshot)
    return snapshots


REPOSITORIES: dict[str, Callable[[Path], list[Path]]] = {
    "python_repo": _plain("python_repo"),
    "rust_repo": _plain("rust_repo"),
    "go_repo": _plain("go_repo"),
    "js_repo": _plain("js_repo"),
    "java_repo": _plain("java_repo"),
    "analysis_python": _analysis_python,
    "analysis_rust": _analysis_rust,
}


def _pages(tmp: Path, name: str) -> list[dict[str, Any]]:
    roots = REPOSITORIES[name](tmp / name)
    with SQLiteStore(tmp / f"{name}.sqlite") as store:
        for root in roots:
            (snapshot,) = resolve(str(root), SourceOptions(repo=f"fixtures/{name}"))
            index_snapshot(snapshot, store, workers=1)
        return [record_to_dict(store.record(row.id)) for row in store.records()]


@pytest.mark.parametrize("name", sorted(REPOSITORIES))
def test_pages_are_the_golden_ones(name: str, tmp_path: Path) -> None:
    pages = sorted(_pages(tmp_path, name), key=lambda page: str(page["id"]))
    text = json.dumps(pages, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    golden = GOLDEN / f"{name}.json"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    expected = json.loads(golden.read_text(encoding="utf-8"))
    assert len(pages) == len(expected), f"{name}: {len(pages)} records, golden has {len(expected)}"
    for page, want in zip(pages, expected, strict=True):
        assert json.loads(json.dumps(page)) == want, f"{name}: page {page['id']} changed"
