"""The shared format-string families split a message into literal text and fields the
way the language's runtime reads it."""

from __future__ import annotations

from errdex.extract.formats import braces, printf
from errdex.extract.formats.braces import BraceField
from errdex.extract.formats.printf import PrintfField


def test_strict_braces_read_conversions_paths_and_escapes() -> None:
    assert braces.split_strict("{{x}} {0.shape!r:>5} of {}") == [
        "{", "x}", " ", BraceField("0", ".shape", "!r:>5"), " of ", BraceField("", "", ""),
    ]  # fmt: skip


def test_strict_braces_refuse_what_python_refuses() -> None:
    assert braces.split_strict("unmatched { brace") is None


def test_lenient_braces_keep_a_lone_brace_and_a_fill_brace() -> None:
    assert braces.split_lenient("a } b {x:}>5} c {") == [
        "a } b ", BraceField("x", "", ":}>5"), " c {",
    ]  # fmt: skip
    assert braces.split_lenient("{{{name}}}") == ["{", BraceField("name", "", ""), "}"]


def test_printf_reads_names_stars_and_percent() -> None:
    pieces = printf.split("%(n)d items, %*.*f%% done")
    assert pieces == [
        "", PrintfField("n", 0, "%(n)d"), " items, ", PrintfField(None, 2, "%*.*f"),
        "", "%", " done",
    ]  # fmt: skip
    assert printf.count_fields(pieces) == 2
