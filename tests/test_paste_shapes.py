"""Real-paste shapes around a short message, on fixture repositories indexed through the
CLI: the position an error type appends (serde_json's ` at line 1 column 8`, Python
json's `: line 1 column 1 (char 0)` and its Python 2 range form), a caller's context in
front (`invalid json: ...`), and a hand-written Debug form (`Error("msg", line: 1,
column: 4)`). A short template must still be its whole message: words of a sentence that
merely hold it are no match. Fixture code written for these tests, in the shape of the
libraries whose pastes showed it (bench/pastes)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from errdex.serve.cli import main

ERROR_RS = """\
use std::fmt;

pub enum ErrorCode {
    TrailingCharacters,
    ExpectedSomeValue,
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ErrorCode::TrailingCharacters => f.write_str("trailing characters"),
            ErrorCode::ExpectedSomeValue => f.write_str("expected value"),
        }
    }
}
"""

DE_RS = """\
use crate::error::{Error, ErrorCode};

pub fn end(rest: &str) -> Result<(), Error> {
    if !rest.is_empty() {
        return Err(Error::syntax(ErrorCode::TrailingCharacters, 1, 1));
    }
    Ok(())
}

pub fn value(rest: &str) -> Result<(), Error> {
    if rest.is_empty() {
        return Err(Error::syntax(ErrorCode::ExpectedSomeValue, 1, 1));
    }
    Ok(())
}
"""

DECODER_PY = """\
class DecodeError(ValueError):
    def __init__(self, msg, doc, pos):
        lineno = doc.count("\\n", 0, pos) + 1
        colno = pos - doc.rfind("\\n", 0, pos)
        errmsg = "%s: line %d column %d (char %d)" % (msg, lineno, colno, pos)
        ValueError.__init__(self, errmsg)


def decode(s, end):
    if end != len(s):
        raise DecodeError("Extra data", s, end)
    return s
"""

# jinja2's parser shape: a message assigned in each branch of an `if`, then raised (or
# handed to a helper that raises it).
BRANCHES_PY = """\
class TemplateError(Exception):
    pass


class Parser:
    def fail(self, msg, lineno=None):
        raise TemplateError(msg, lineno)

    def fail_eof(self, name, stack):
        if name is None:
            message = ["Unexpected end of input."]
        else:
            message = [f"Encountered unknown tag {name!r}."]
        if stack:
            message.append(f"The innermost block that needs closing is {stack[-1]!r}.")
        self.fail(" ".join(message), 1)


def check(kind, value):
    if kind == "alpha":
        msg = "bad alpha value"
    elif kind == "beta":
        msg = f"bad beta value {value!r}"
    else:
        msg = "bad value"
    raise ValueError(msg)
"""

# concurrent.futures' and asyncio's shape: an exception handed to a future, and a context
# handed to the event loop's exception handler, are what the user sees.
POOL_PY = """\
class BrokenPool(RuntimeError):
    pass


class Manager:
    def terminate_broken(self, items):
        error = BrokenPool("A worker of the pool died while the job was "
                           "running or pending.")
        for item in items:
            item.future.set_exception(error)

    def on_timeout(self, fut):
        fut.set_exception(TimeoutError("the job took longer than its deadline"))


class Job:
    def __del__(self):
        if self.pending:
            context = {
                "job": self,
                "message": "Job was dropped but it is pending!",
            }
            self._loop.call_exception_handler(context)


def accept(server):
    if server.callback_failed:
        raise RuntimeError("Unhandled exception in client_connected_cb of the server")
"""


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("shapes")
    rust = root / "jsonish"
    (rust / "src").mkdir(parents=True)
    (rust / "Cargo.toml").write_text('[package]\nname = "jsonish"\nversion = "0.1.0"\n')
    (rust / "src" / "error.rs").write_text(ERROR_RS)
    (rust / "src" / "de.rs").write_text(DE_RS)
    python = root / "pyjson"
    (python / "pyjson").mkdir(parents=True)
    (python / "pyjson" / "decoder.py").write_text(DECODER_PY)
    (python / "pyjson" / "pool.py").write_text(POOL_PY)
    (python / "pyjson" / "parser.py").write_text(BRANCHES_PY)
    path = str(root / "db.sqlite")
    for tree, repo, commit in ((rust, "acme/jsonish", "1" * 40), (python, "acme/pyjson", "2" * 40)):
        code, out = run("--db", path, "index", str(tree), "--repo", repo, "--commit", commit)
        assert code == 0, out
    return path


def explain(db: str, text: str) -> list[dict[str, Any]]:
    code, out = run("--db", db, "explain", "--json", text)
    matches: list[dict[str, Any]] = json.loads(out)["matches"]
    assert code == (0 if any(m["exact"] for m in matches) else 1)  # 0: a real match
    return matches


def exact_messages(db: str, text: str) -> list[str]:
    return [m["record"]["message"] for m in explain(db, text) if m["exact"]]


@pytest.mark.parametrize(
    "text",
    [
        "trailing characters at line 1 column 8",
        "Error: trailing characters at line 1 column 10",
        "invalid json: trailing characters at line 1 column 90",
        "Caused by:\n    JSON deserialization error: trailing characters at line 1 column 281",
    ],
)
def test_a_short_message_with_the_position_its_error_appends(db: str, text: str) -> None:
    assert exact_messages(db, text)[:1] == ["trailing characters"]


def test_a_hand_written_debug_form_names_its_message(db: str) -> None:
    text = (
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: "
        "Error(\"trailing characters\", line: 1, column: 552)', src/main.rs:62:36"
    )
    top = explain(db, text)[0]
    assert (top["record"]["message"], top["exact"]) == ("trailing characters", True)
    assert top["record"]["sites"][0]["path"] == "src/de.rs"


def test_the_python_2_range_form_of_a_json_position(db: str) -> None:
    text = "ValueError: Extra data: line 2 column 15 - line 5 column 1 (char 15 - 46)"
    assert "Extra data" in exact_messages(db, text)


@pytest.mark.parametrize(
    "text",
    [
        "trailing characters are not allowed in this file",  # words of a longer sentence
        "no trailing characters at line 1 column 8",  # no context separator before it
        "trailing characters at line 1 column 8 and more after it",
    ],
)
def test_a_short_message_inside_other_text_is_no_exact_match(db: str, text: str) -> None:
    assert "trailing characters" not in exact_messages(db, text)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
         "    job.result()\npyjson.pool.BrokenPool: A worker of the pool died while the job"
         " was running or pending.", 10),
        ("TimeoutError: the job took longer than its deadline", 13),
        ("2024-05-01 10:00:00 ERROR (MainThread) [app] Error doing job: Job was dropped but"
         " it is pending!", 23),
    ],
)
def test_a_message_handed_to_a_future_or_the_loop_handler(db: str, text: str, line: int) -> None:
    top = explain(db, text)[0]
    assert top["exact"] is True
    site = top["record"]["sites"][0]
    assert (site["path"], site["line"]) == ("pyjson/pool.py", line)


def test_a_paste_cut_inside_a_message_is_its_beginning(db: str) -> None:
    top = explain(db, "RuntimeError: Unhandled exception in client_connected_cb of the se")[0]
    assert top["record"]["message"].startswith("Unhandled exception in client_connected_cb")
    assert top["exact"] is False and "partial paste" in top["why"]


def test_a_shared_opening_phrase_is_no_partial_paste(db: str) -> None:
    text = "Unhandled exception in task 5b84b0c1-e087-4557-924c-ac5d5ae2b985."
    assert not any(
        m["record"]["message"].startswith("Unhandled exception in client_connected_cb")
        and "partial paste" in m["why"]
        for m in explain(db, text)
    )


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("pyjson.parser.TemplateError: Unexpected end of input. The innermost block that"
         " needs closing is 'for'.", "Unexpected end of input.", 16),
        ("pyjson.parser.TemplateError: Encountered unknown tag 'endfor'.",
         "Encountered unknown tag {name}.", 16),
        ("ValueError: bad alpha value", "bad alpha value", 26),
        ("ValueError: bad beta value 'x'", "bad beta value {value}", 26),
    ],
)
def test_a_message_assigned_in_each_branch_of_an_if(
    db: str, text: str, message: str, line: int
) -> None:
    top = explain(db, text)[0]
    assert top["exact"] is True
    assert top["record"]["message"].startswith(message.split("{")[0])
    site = top["record"]["sites"][0]
    assert (site["path"], site["line"]) == ("pyjson/parser.py", line)
