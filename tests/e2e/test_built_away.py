"""End to end on installed PyPI packages whose messages are built away from the raise:
a helper that raises its argument (click's `self.fail(..)`/`ctx.fail(..)`, jinja2's parser
`self.fail(..)`, packaging's `tokenizer.raise_syntax_error(..)` in another module), with
the text made by gettext/ngettext and `.format`, and a class that builds its message in
`__init__` and hands it to a base (urllib3's `MaxRetryError`). Each error is raised for
real here; explaining what Python prints must land on the place that wrote the text."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import jinja2
import packaging.requirements
import pytest
import urllib3

from errdex.match import Matcher, load_matcher
from errdex.serve.cli import main
from errdex.service import explain_text
from errdex.store import SQLiteStore


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[SQLiteStore, Matcher]:
    db = tmp_path_factory.mktemp("built-away") / "errdex.sqlite"
    packages = ["py:click", "py:jinja2", "py:packaging", "py:urllib3"]
    assert main(["--db", str(db), "index", *packages]) == 0
    store = SQLiteStore(db, create=False)
    return store, load_matcher(store)


@click.command()
def _no_arguments() -> None:
    """A command that takes no arguments."""


def _raise(case: Callable[[], object]) -> BaseException:
    try:
        case()
    except Exception as exc:  # the real error of the library is what we want
        return exc
    raise AssertionError("the case did not raise")


def _caller_of_helper(error: BaseException) -> traceback.FrameSummary:
    """The frame that called the helper which raised: where the text was written."""
    return traceback.extract_tb(error.__traceback__)[-2]


def _raising_frame(error: BaseException) -> traceback.FrameSummary:
    return traceback.extract_tb(error.__traceback__)[-1]


# name -> (what raises, which error of the chain wrote the message, the frame of its text)
CASES: dict[str, tuple[Callable[[], object], Callable[[BaseException], traceback.FrameSummary]]] = {
    # click.types.ParamType.fail(message) raises BadParameter(message)
    "click int": (lambda: click.INT.convert("x", None, None), _caller_of_helper),
    "click range": (lambda: click.IntRange(0, 5).convert("9", None, None), _caller_of_helper),
    # click.core.Context.fail(message) raises UsageError(message); the text is ngettext's
    "click extra argument": (lambda: _no_arguments.main(["extra"], standalone_mode=False),
                             _caller_of_helper),
    # packaging._tokenizer.Tokenizer.raise_syntax_error, called from packaging._parser
    "packaging requirement": (
        lambda: packaging.requirements.Requirement("name; os_name =="),
        lambda e: _caller_of_helper(e.__cause__ or e.__context__ or e),
    ),
    # urllib3.exceptions.MaxRetryError builds its message in __init__
    "urllib3 max retries": (
        lambda: urllib3.PoolManager().request("GET", "http://127.0.0.1:1/", retries=0),
        _raising_frame,
    ),
}


def _top(store: SQLiteStore, matcher: Matcher, text: str) -> dict[str, Any]:
    result = explain_text(store, matcher, text)
    assert result["matches"], f"nothing matched {text!r}"
    top: dict[str, Any] = result["matches"][0]
    return top


@pytest.mark.parametrize("name", sorted(CASES))
def test_message_built_away_explains_to_where_it_is_written(
    name: str, indexed: tuple[SQLiteStore, Matcher]
) -> None:
    store, matcher = indexed
    case, where = CASES[name]
    error = _raise(case)
    frame = where(error)
    printed = "".join(traceback.format_exception_only(type(error), error))
    matches = explain_text(store, matcher, printed)["matches"]
    hits = [m for m in matches if _has_site(m["record"], frame)]
    assert hits, (printed, frame, [m["record"]["sites"][:2] for m in matches])
    assert hits[0]["record"]["template"].split("{")[0].strip()[:8] in printed
    # Ranked first, except behind a wrapper re-raising it (`raise InvalidRequirement(str(e))
    # from e`) whose record has no text of its own: the matcher's order (errdex.match).
    for before in matches[: matches.index(hits[0])]:
        assert before["score"] == 0.0 and "{" in before["record"]["template"], before


def _has_site(record: dict[str, Any], frame: traceback.FrameSummary) -> bool:
    return any(frame.filename.endswith("/" + s["path"]) and s["line"] == frame.lineno
               for s in record["sites"])


def test_jinja2_parser_fail_is_the_site(indexed: tuple[SQLiteStore, Matcher]) -> None:
    # jinja2 rewrites the traceback into the template's, so the parser's frame is gone:
    # the site must be the parser line that passes this text to `self.fail`.
    store, matcher = indexed
    error = _raise(lambda: jinja2.Environment().from_string("{% %}"))
    printed = "".join(traceback.format_exception_only(type(error), error))
    record = _top(store, matcher, printed)["record"]
    assert record["template"] == "tag name expected"
    assert record["exception"] == "TemplateSyntaxError"
    site = record["sites"][0]
    root = Path(jinja2.__file__).parent.parent
    line = (root / site["path"]).read_text().splitlines()[site["line"] - 1]
    assert site["path"] == "jinja2/parser.py"
    assert 'self.fail("tag name expected"' in line
    assert record["definition"]["path"] == "jinja2/parser.py"
