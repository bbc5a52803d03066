"""A message's git history (`errdex.analyze.history.message_history`) is read line by
line from one log: the same whether a commit's lines are looked through at once or in
parts, and a message is found on one line only, never across two."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdex.analyze import history
from errdex.analyze.history import RUNS, message_history
from tests.analysis_repos import commit, init

FILLER = "".join(f"    let v{i} = {i};\n" for i in range(40))


def _repo(root: Path) -> tuple[str, str]:
    init(root)
    (root / "src").mkdir()
    (root / "src" / "a.rs").write_text(
        f'fn a() {{\n{FILLER}    bail!("tensor shape mismatch in {{op}}");\n'
        '    let x = "cannot open";\n    let y = "the checkpoint file";\n}\n')
    first = commit(root, "first", "2024-01-01T10:00:00+00:00")
    (root / "src" / "a.rs").write_text(
        f'fn a() {{\n{FILLER}    bail!("tensor shape mismatch in {{op}}, now");\n}}\n')
    second = commit(root, "second", "2024-02-01T10:00:00+00:00")
    return first, second


def _read(root: Path) -> dict[str, tuple[str | None, str | None, str | None]]:
    keys = {"tensor shape mismatch in": ["shape"],
            RUNS.join(["cannot open", "the checkpoint file"]): ["split"]}
    found = message_history(str(root), keys, paths={"shape": ["src/a.rs"],
                                                    "split": ["src/a.rs"]})
    return {rid: (h.introduced_commit, h.changed_commit, h.removed_commit)
            for rid, h in found.items()}


def test_history_of_a_message_and_of_one_split_over_lines(tmp_path: Path) -> None:
    first, second = _repo(tmp_path / "r")
    read = _read(tmp_path / "r")
    assert read["shape"][:2] == (first, second)
    assert "split" not in read or read["split"][0] is None  # never on one line


def test_looked_through_in_parts_reads_the_same(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(tmp_path / "r")
    whole = _read(tmp_path / "r")
    monkeypatch.setattr(history, "LOOK_CHARS", 16)
    assert _read(tmp_path / "r") == whole
