"""The expectation read on each line of a test file, and which records a test exercises
(`errdex.analyze.testrefs`)."""

from __future__ import annotations

import json
from pathlib import Path

from errdex.analyze.testrefs import _ANY_KIND, _KINDS, _kinds_here
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import MemoryStore

TEXT = """\
#[test]
#[should_panic(expected = "bad shape")]
fn a() { assert!(x.is_err()); }
fn b() { let e = y.unwrap_err(); t.is_err(); }
    with pytest.raises(ValueError, match="no"):
self.assertRaisesRegex(KeyError, "k") or pytest.warns(UserWarning)
assertThrows(
    Foo.class, () -> go());
expect(() => f()).toThrow("boom"); assert.throws(g)
EXPECT_DEATH(abort(), ""); xassertRaises(E)
assertEquals("m", e.getMessage());
"""


def _one_pass(text: str) -> list[str | None]:
    """The per-line reading of one alternation over the whole text, as it was first made."""
    lines = text.splitlines()
    out: list[str | None] = [None] * len(lines)
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    for m in _ANY_KIND.finditer(text):
        index = max(i for i, s in enumerate(starts) if s <= m.start())
        if out[index] is None and m.lastgroup:
            out[index] = _KINDS[int(m.lastgroup[1:])][0]
    return out


def test_each_line_reads_its_first_idiom() -> None:
    kinds = _kinds_here(TEXT, TEXT.splitlines())
    assert kinds == [None, "should_panic", "is_err", "is_err", "pytest.raises",
                     "assertRaises", "assertThrows", None, "toThrow", "EXPECT_DEATH",
                     "getMessage"]
    assert kinds == _one_pass(TEXT)


def test_idioms_found_anywhere_in_a_longer_text() -> None:
    text = ("x = 1\n" * 500) + TEXT + ("# assert_ pytest. .is_\n" * 300) + TEXT
    assert _kinds_here(text, text.splitlines()) == _one_pass(text)


def _tests_of(root: Path, message: str) -> list[tuple[str, int]]:
    """Where the index of `root` says the tests exercise the error `message`."""
    (snapshot,) = resolve(str(root), SourceOptions(repo="o/refs"))
    store = MemoryStore()
    index_snapshot(snapshot, store, workers=1)
    for row in store.records("o/refs"):
        record = json.loads(store.record_json(row.id))
        if record["message"] == message:
            return [(t["path"], t["line"]) for t in record["facts"]["tests"]]
    raise AssertionError(f"no record says {message!r}")


def test_a_test_of_another_module_quoting_the_words_is_not_an_example(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "units.py").write_text(
        "def scale(factor):\n    if factor <= 0:\n"
        "        raise ValueError('%r must be a positive number' % factor)\n"
        "    return factor\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_units.py").write_text(
        "import pytest\nfrom pkg.units import scale\n\n\ndef test_zero():\n"
        "    with pytest.raises(ValueError, match='must be a positive number'):\n"
        "        scale(0)\n")
    # The C accelerator's test: same words, another module's error; it never names `units`.
    (tmp_path / "tests" / "test_speedups.py").write_text(
        "import pytest\nimport _speedups\n\n\ndef test_zero():\n"
        "    with pytest.raises(ValueError, match='size must be a positive number'):\n"
        "        _speedups.grow(0)\n")
    assert _tests_of(tmp_path, "%r must be a positive number") == [("tests/test_units.py", 6)]
