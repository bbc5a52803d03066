"""Messages users see that are not one literal at one site (issue 17, items 1, 3, 4, 5):
composed templates, hand-written Display arms, error constructors and macro bodies (Rust);
errors passed through from a dependency; where an error type is defined; Python messages
built by helpers, classes and constants away from the raise. Each fixture is a small
repository written here, indexed by the real CLI into a real SQLite store, and matched
with a paste of the shape users post."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.match import load_matcher
from errdex.serve.cli import main
from errdex.service import explain_text
from errdex.store import SQLiteStore

RUST_ERRORS = """\
use std::fmt;

pub(crate) const NO_RUNTIME: &str = "there is no runtime running, start one with Runtime::new";

#[derive(thiserror::Error, Debug)]
pub enum Error {
    #[error("backend error {0}")]
    Backend(String),
    #[error("{msg}, expected: {expected:?}, got: {got:?}")]
    Mismatch { msg: String, expected: usize, got: usize },
    #[error("unsupported dtype {0:?} for op {1}")]
    UnsupportedDType(String, &'static str),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{source} when loading {name}")]
    Load { source: std::io::Error, name: String },
    #[error("{0}")]
    Wrapped(String),
}

#[derive(Debug)]
pub enum ErrorCode {
    EofWhileParsing,
    Trailing(usize),
    Message(String),
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ErrorCode::EofWhileParsing => f.write_str("EOF while parsing a record"),
            ErrorCode::Trailing(n) => write!(f, "{} trailing bytes after the record", n),
            ErrorCode::Message(m) => f.write_str(m),
        }
    }
}
"""

RUST_LIB = """\
mod error;
use error::{Error, ErrorCode};

macro_rules! cfg_gpu { ($($item:item)*) => { $($item)* } }

pub fn kernel(dev: &str, op: &str) -> Result<(), Error> {
    if dev != "cpu" {
        return Err(Error::Backend(format!("no {} kernel for {}", dev, op).into()));
    }
    Err(Error::Mismatch { msg: format!("bad shape for {op}"), expected: 1, got: 2 })
}

pub fn to_dtype(dtype: &str) -> Result<(), Error> {
    Err(Error::UnsupportedDType(dtype.to_string(), "to_dtype"))
}

pub fn load(path: &str) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Load { source, name: path.to_string() })
}

pub fn dims(n: usize) -> Error {
    Error::Wrapped(format!("tensor has {n} dims, wanted 2"))
}

pub fn parse(s: &str) -> Result<(), ErrorCode> {
    if s.is_empty() {
        return Err(ErrorCode::EofWhileParsing);
    }
    Err(ErrorCode::Trailing(s.len()))
}

pub fn header(path: &str) -> Result<(), PyErr> {
    let bytes = std::fs::read(path)
        .map_err(|e| PyOSError::new_err(format!("cannot read the header of {path}: {e}")))?;
    Ok(())
}

pub fn runtime(handle: Option<u32>) -> u32 {
    match handle {
        Some(h) => h,
        None => panic!("{}", crate::error::NO_RUNTIME),
    }
}

cfg_gpu! {
    pub fn device(handle: Option<u32>) -> u32 {
        handle.expect("no gpu device was found, build with the gpu feature")
    }
    pub fn codes(n: usize) -> Vec<ErrorCode> {
        vec![ErrorCode::EofWhileParsing, ErrorCode::Trailing(n)]
    }
}
"""

PY_ERRORS = """\
class BadValue(Exception):
    pass
"""

PY_PARSER = """\
MISSING_DEP = "the optional dependency {name} is missing: pip install {name}"


class ParseError(Exception):
    def __init__(self, msg, line, col):
        super().__init__(f"{msg} at line {line} col {col}")


class Parser:
    def fail(self, msg, lineno=None, exc=ParseError):
        raise exc(msg, lineno, 0)

    def parse(self, text):
        if not text:
            self.fail("unexpected end of input", 1)
        if text.startswith("}"):
            self.fail(f"unexpected {text[0]!r} before any block", 1)
        return text


def need(name):
    raise ImportError(MISSING_DEP.format(name=name))
"""

PY_CHECKS = """\
from .errors import BadValue


def bad_value(message, value):
    raise BadValue(message)


def check_port(port):
    if port < 0:
        bad_value(f"port must be positive, not {port}", port)
"""

PY_FIELDS = """\
class ValidationError(Exception):
    pass


class Field:
    messages = {
        "required": "This field is required.",
        "bad_value": "Not a valid value: {value!r} (expected {kind}).",
    }

    def fail(self, key, **kwargs):
        text = self.messages[key]
        return ValidationError(text.format(**kwargs))

    def check(self, value):
        if value is None:
            raise self.fail("required")
        if not isinstance(value, int):
            raise self.fail("bad_value", value=value, kind="int")
        return value
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    root = tmp_path_factory.mktemp("repos")
    crate = root / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "src" / "error.rs").write_text(RUST_ERRORS)
    (crate / "src" / "lib.rs").write_text(RUST_LIB)
    pkg = root / "pylib" / "pylib"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text(PY_ERRORS)
    (pkg / "parser.py").write_text(PY_PARSER)
    (pkg / "checks.py").write_text(PY_CHECKS)
    (pkg / "fields.py").write_text(PY_FIELDS)
    db = root / "errdex.sqlite"
    assert main(["--db", str(db), "index", str(crate), "--repo", "acme/crate"]) == 0
    assert main(["--db", str(db), "index", str(root / "pylib"), "--repo", "acme/pylib"]) == 0
    return SQLiteStore(db, create=False)


def _top(store: SQLiteStore, text: str) -> dict[str, Any]:
    result = explain_text(store, load_matcher(store), text)
    assert result["matches"], f"nothing matched {text!r}"
    top: dict[str, Any] = result["matches"][0]
    return top


def _line(source: str, needle: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if needle in line)


def _sites(record: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["path"], s["line"]) for s in record["sites"]]


# -- 1. composed templates ----------------------------------------------------------------


def test_formatted_payload_is_its_own_template_at_the_construction(store: SQLiteStore) -> None:
    top = _top(store, "Error: backend error no cuda kernel for softmax")
    record = top["record"]
    assert record["template"] == "backend error no {dev} kernel for {op}"
    assert record["exception"] == "Error::Backend"
    assert _sites(record) == [("src/lib.rs", _line(RUST_LIB, "Error::Backend(format!"))]
    assert top["values"] == {"dev": "cuda", "op": "softmax"}


def test_debug_form_of_a_composed_variant_finds_it(store: SQLiteStore) -> None:
    top = _top(store, 'called `Result::unwrap()` on an `Err` value: '
                      'Backend("no cuda kernel for softmax")')
    assert top["record"]["template"] == "backend error no {dev} kernel for {op}"


def test_field_set_to_format_is_inlined(store: SQLiteStore) -> None:
    record = _top(store, "bad shape for matmul, expected: 1, got: 2")["record"]
    assert record["template"] == "bad shape for {op}, expected: {expected}, got: {got}"
    assert _sites(record) == [("src/lib.rs", _line(RUST_LIB, "Error::Mismatch {"))]


def test_variant_printing_one_field_shows_the_text_passed(store: SQLiteStore) -> None:
    record = _top(store, "Error: tensor has 3 dims, wanted 2")["record"]
    assert record["template"] == "tensor has {n} dims, wanted 2"
    assert record["exception"] == "Error::Wrapped"


def test_a_plain_literal_payload_stays_a_bound_value(store: SQLiteStore) -> None:
    record = _top(store, "unsupported dtype \"f16\" for op to_dtype")["record"]
    assert record["template"] == "unsupported dtype {0:?} for op {1}".replace(
        "{0:?}", "{dtype}").replace("{1}", "{op}")
    assert record["sites"][0]["bound"] == {"1": '"to_dtype"'}


def test_display_arms_are_the_variants_messages(store: SQLiteStore) -> None:
    top = _top(store, 'Error("EOF while parsing a record", line: 1, column: 0)')
    record = top["record"]
    assert record["template"] == "EOF while parsing a record"
    assert record["exception"] == "ErrorCode::EofWhileParsing"
    assert ("src/lib.rs", _line(RUST_LIB, "return Err(ErrorCode::EofWhileParsing)")) in _sites(
        record
    )
    top = _top(store, "12 trailing bytes after the record")
    assert top["record"]["exception"] == "ErrorCode::Trailing"
    assert list(top["values"].values()) == ["12"]


def test_error_constructor_in_map_err_is_a_site(store: SQLiteStore) -> None:
    text = ("OSError: cannot read the header of model.bin: No such file or directory "
            "(os error 2)")
    record = _top(store, text)["record"]
    assert record["template"] == "cannot read the header of {path}: {e}"
    assert record["exception"] == "PyOSError"
    assert _sites(record) == [("src/lib.rs", _line(RUST_LIB, "PyOSError::new_err"))]


def test_sites_inside_macro_bodies(store: SQLiteStore) -> None:
    text = ("thread 'main' panicked at src/lib.rs:40:16:\n"
            "no gpu device was found, build with the gpu feature")
    record = _top(store, text)["record"]
    assert record["kind"] == "expect"
    assert _sites(record) == [("src/lib.rs", _line(RUST_LIB, 'handle.expect("no gpu'))]
    eof = _top(store, "EOF while parsing a record")["record"]
    assert ("src/lib.rs", _line(RUST_LIB, "vec![ErrorCode::EofWhileParsing")) in _sites(eof)


# -- 3. errors passed through -------------------------------------------------------------


def test_transparent_variant_names_the_wrapped_type(store: SQLiteStore) -> None:
    records = [r for r in store.records("acme/crate") if r.exception == "Error::Io"]
    assert len(records) == 1
    record = record_to_dict(store.record(records[0].id))
    assert record["template"] == "{source}"
    assert record["placeholders"][0]["expression"] == "std::io::Error"
    assert _sites(record) == [("src/error.rs", _line(RUST_ERRORS, "Io(#[from]"))]
    top = _top(store, "Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })")
    assert top["record"]["exception"] == "Error::Io"


def test_text_around_a_wrapped_error_matches_with_it_inside(store: SQLiteStore) -> None:
    top = _top(store, "Error: No such file or directory (os error 2) when loading model.bin")
    assert top["record"]["exception"] == "Error::Load"
    assert top["values"]["name"] == "model.bin"


# -- 4. where the type is defined ---------------------------------------------------------


def test_variant_records_carry_their_definition(store: SQLiteStore) -> None:
    record = _top(store, "Error: backend error no cuda kernel for softmax")["record"]
    assert record["definition"] == {
        "path": "src/error.rs", "line": _line(RUST_ERRORS, '"backend error {0}"'), "url": None
    }
    arm = _top(store, "EOF while parsing a record")["record"]
    assert arm["definition"]["line"] == _line(RUST_ERRORS, "ErrorCode::EofWhileParsing =>")


def test_definition_links_the_pinned_line_of_a_hosted_repository(tmp_path: Path) -> None:
    crate = tmp_path / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "src" / "error.rs").write_text(RUST_ERRORS)
    (crate / "src" / "lib.rs").write_text(RUST_LIB)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["remote", "add", "origin", "https://github.com/acme/crate.git"],
                 ["add", "."], ["commit", "-qm", "first"]):
        subprocess.run(["git", "-C", str(crate), *args], check=True, env=env)
    commit = subprocess.run(["git", "-C", str(crate), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    db = tmp_path / "errdex.sqlite"
    assert main(["--db", str(db), "index", str(crate)]) == 0
    hosted = SQLiteStore(db, create=False)
    record = _top(hosted, "Error: backend error no cuda kernel for softmax")["record"]
    line = _line(RUST_ERRORS, '"backend error {0}"')
    assert record["definition"] == {
        "path": "src/error.rs", "line": line,
        "url": f"https://github.com/acme/crate/blob/{commit}/src/error.rs#L{line}",
    }


def test_message_sites_without_a_type_have_no_definition(store: SQLiteStore) -> None:
    record = _top(store, "no gpu device was found, build with the gpu feature")["record"]
    assert record["definition"] is None


# -- 5. Python messages built away from the raise -----------------------------------------


def test_helper_raising_its_argument_through_a_class(store: SQLiteStore) -> None:
    text = ('Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
            "pylib.errors.ParseError: unexpected end of input at line 1 col 0")
    record = _top(store, text)["record"]
    assert record["template"] == "unexpected end of input at line {line} col {col}"
    assert record["exception"] == "ParseError"
    assert _sites(record) == [("pylib/parser.py", _line(PY_PARSER, 'self.fail("unexpected end'))]
    assert record["definition"] == {
        "path": "pylib/parser.py", "line": _line(PY_PARSER, "def fail"), "url": None
    }


def test_helper_with_a_formatted_message(store: SQLiteStore) -> None:
    top = _top(store, "ParseError: unexpected '}' before any block at line 1 col 0")
    assert top["record"]["sites"][0]["line"] == _line(PY_PARSER, "before any block")


def test_helper_defined_in_another_module(store: SQLiteStore) -> None:
    record = _top(store, "pylib.errors.BadValue: port must be positive, not -1")["record"]
    assert record["exception"] == "BadValue"
    assert _sites(record) == [("pylib/checks.py", _line(PY_CHECKS, "bad_value(f\"port"))]


def test_module_constant_message(store: SQLiteStore) -> None:
    text = "ImportError: the optional dependency yaml is missing: pip install yaml"
    record = _top(store, text)["record"]
    assert _sites(record) == [("pylib/parser.py", _line(PY_PARSER, "raise ImportError"))]


def test_message_table_read_by_a_helper(store: SQLiteStore) -> None:
    top = _top(store, "pylib.fields.ValidationError: Not a valid value: 'x' (expected int).")
    record = top["record"]
    assert record["template"] == "Not a valid value: {value} (expected {kind})."
    assert record["exception"] == "ValidationError"
    assert _sites(record) == [("pylib/fields.py", _line(PY_FIELDS, 'self.fail("bad_value"'))]
    assert top["values"]["value"] == "'x'"
    required = _top(store, "ValidationError: This field is required.")["record"]
    assert _sites(required) == [("pylib/fields.py", _line(PY_FIELDS, 'self.fail("required")'))]


def test_panic_printing_a_constant_of_another_module(store: SQLiteStore) -> None:
    text = ("thread 'main' panicked at src/lib.rs:31:17:\n"
            "there is no runtime running, start one with Runtime::new")
    record = _top(store, text)["record"]
    assert record["kind"] == "panic"
    assert record["template"] == "there is no runtime running, start one with Runtime::new"
    assert _sites(record) == [("src/lib.rs", _line(RUST_LIB, "panic!(\"{}\", crate::error"))]
