"""Code no build compiles is not indexed (issue 20, round 6: 5 of 20 candle pages were
such code): a Rust module declared `#[cfg(test)] mod tests;` is test code, however deep
(`src/ops/checks.rs` of `#[cfg(test)] mod checks;` in `src/ops.rs`)."""

from __future__ import annotations

from pathlib import Path

from tests.builders import indexed_records

CHECK = 'pub fn check(n: usize) {{\n    if n == 0 {{\n        panic!("{}");\n    }}\n}}\n'


def _messages(tmp_path: Path, files: dict[str, str]) -> set[str]:
    return {r.template.message for r in indexed_records(tmp_path, files, "acme/kit")}


def test_a_cfg_test_module_file_is_not_library_code(tmp_path: Path) -> None:
    found = _messages(tmp_path, {
        "Cargo.toml": "[package]\nname = \"kit\"\n",
        "src/lib.rs": "pub mod ops;\n#[cfg(test)]\nmod tests;\n",
        "src/ops.rs": CHECK.format("ops: n must not be zero") + "#[cfg(test)]\nmod checks;\n",
        "src/tests.rs": CHECK.format("tests: only a test reaches this"),
        "src/ops/checks.rs": CHECK.format("checks: only a test reaches this"),
    })
    assert found == {"ops: n must not be zero"}
