"""The expectation read on each line of a test file (`errdex.analyze.testrefs`)."""

from __future__ import annotations

from errdex.analyze.testrefs import _ANY_KIND, _KINDS, _kinds_here

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
