"""The real-paste set of bench/pastes is well formed: every line parses, every library
file has its pinned source in sources.toml, and every expected site has its fields."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

PASTES = Path(__file__).resolve().parent.parent / "bench" / "pastes"


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_every_library_file_is_pinned_and_well_formed() -> None:
    sources = tomllib.loads((PASTES / "sources.toml").read_text(encoding="utf-8"))
    names = {lib["name"] for lib in sources["library"]}
    files = [p for p in sorted(PASTES.glob("*.jsonl")) if p.stem != "foreign"]
    for untuned in ("fresh", "fresh2", "fresh3"):
        files += [p for p in sorted((PASTES / untuned).glob("*.jsonl")) if p.stem != "foreign"]
    assert {p.stem for p in files} <= names
    for path in files:
        for row in _rows(path):
            assert isinstance(row["url"], str) and row["url"].startswith("https://github.com/")
            assert isinstance(row["text"], str) and row["text"].strip()
            assert isinstance(row["template"], str) and row["template"].strip()
            assert isinstance(row["path"], str) and not row["path"].startswith("/")
            assert isinstance(row["line"], int) and row["line"] > 0


def test_foreign_pastes_name_their_library() -> None:
    rows = _rows(PASTES / "foreign.jsonl")
    assert len(rows) >= 20
    rows += _rows(PASTES / "fresh3" / "foreign.jsonl")
    for row in rows:
        assert isinstance(row["url"], str) and isinstance(row["text"], str)
        assert isinstance(row["library"], str) and row["library"]
