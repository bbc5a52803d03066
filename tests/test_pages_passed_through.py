"""An error variant that wraps another whole (`#[error(transparent)] FromUtf8(#[from]
FromUtf8Error)`) is built by `?`, not at its declaration: the page names the functions
of the repository whose `?` converts one, or says that none does (round 7 candle #1, #17:
32 pages said the error file "always returns this error on this path")."""

from __future__ import annotations

from pathlib import Path

from errdex.analyze.check import unknown_names
from errdex.contract import record_to_dict
from errdex.models import Record
from tests.builders import indexed_records

ERROR = '''#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad shape {0}")]
    Shape(String),

    #[error(transparent)]
    FromUtf8(#[from] std::string::FromUtf8Error),

    #[error(transparent)]
    TryFromIntError(#[from] core::num::TryFromIntError),
}

pub type Result<T> = std::result::Result<T, Error>;
'''
LIB = '''pub mod error;
use crate::error::Result;

pub fn kernel_name(bytes: Vec<u8>) -> Result<String> {
    let name = String::from_utf8(bytes)?;
    Ok(name)
}

pub fn label(bytes: &[u8]) -> anyhow::Result<String> {
    Ok(String::from_utf8(bytes.to_vec())?)
}

pub fn count(n: u64) -> Result<usize> {
    let f = |n: u64| -> Result<u32> { Ok(u32::try_from(n)?) };
    Ok(f(n)? as usize)
}
'''


def _records(tmp_path: Path) -> dict[str, Record]:
    found = indexed_records(tmp_path, {
        "Cargo.toml": "[package]\nname = \"kit\"\n",
        "src/error.rs": ERROR,
        "src/lib.rs": LIB,
    }, "acme/kit")
    return {r.exception or "": r for r in found}


def test_the_page_names_the_function_whose_question_mark_converts_it(tmp_path: Path) -> None:
    record = _records(tmp_path)["Error::FromUtf8"]
    assert [(s.path, s.line, s.function) for s in record.sites] == [
        ("src/error.rs", 7, None), ("src/lib.rs", 5, "kernel_name")]  # not `label` (anyhow)
    page = record.explanation
    assert page is not None
    assert "always returns" not in page.summary and "module `" not in page.summary
    assert "wraps a `std::string::FromUtf8Error`" in page.summary
    assert "`kernel_name` (src/lib.rs:5)" in page.summary
    assert "Err(Error::FromUtf8(e))" in page.defensive.try_catch
    assert "Calling" not in page.trigger


def test_a_variant_nothing_converts_says_it_comes_from_your_own_code(tmp_path: Path) -> None:
    # `u32::try_from(n)?` inside a closure converts to the closure's result, unseen here
    record = _records(tmp_path)["Error::TryFromIntError"]
    assert [s.function for s in record.sites] == [None]
    page = record.explanation
    assert page is not None
    assert "nothing in the repository converts one" in page.summary
    assert "your own code" in page.summary and "always returns" not in page.summary
    assert "Err(Error::TryFromIntError(e))" in page.defensive.try_catch


def test_the_pages_of_wrapping_variants_cite_no_unknown_names(tmp_path: Path) -> None:
    """Their code invents no function of the user's (it was `returns_from_utf8_error(..)`):
    what gives the wrapped error is a parameter of the snippet's own function."""
    for record in _records(tmp_path).values():
        data = record_to_dict(record)
        assert unknown_names(data, frozenset()) == [], record.exception
