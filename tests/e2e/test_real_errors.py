"""End to end on real code: index the standard library and an installed package with
errdex, raise real errors from them, and check that explaining the printed exception
(and the whole traceback) lands on the record of the line that raised it."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import pytest

from errdex.match import Matcher
from errdex.service import explain_text
from errdex.store import SQLiteStore
from tests.e2e.cases import CASES


def _raise(case: Callable[[], object]) -> BaseException:
    try:
        case()
    except Exception as exc:
        return exc
    raise AssertionError("the case did not raise")


def _top_site_hits(result: dict[str, object], frame: traceback.FrameSummary) -> bool:
    matches = result["matches"]
    assert isinstance(matches, list)
    return bool(matches) and _site_hits(matches[0], frame)


def _site_hits(match: dict[str, Any], frame: traceback.FrameSummary) -> bool:
    return any(frame.filename.endswith("/" + site["path"]) and site["line"] == frame.lineno
               for site in match["record"]["sites"])


def test_there_are_at_least_sixty_distinct_real_errors() -> None:
    messages = {str(_raise(case)) for case in CASES.values()}
    assert len(messages) >= 60


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_exception_explains_to_the_raising_line(
    name: str, indexed: tuple[SQLiteStore, Matcher]
) -> None:
    store, matcher = indexed
    error = _raise(CASES[name])
    frame = traceback.extract_tb(error.__traceback__)[-1]
    printed = "".join(traceback.format_exception_only(type(error), error))
    result = explain_text(store, matcher, printed)
    inner = error.__cause__ or error.__context__
    if inner is not None and str(inner) == str(error) and not _top_site_hits(result, frame):
        # `raise InvalidMarker(str(e)) from e`: the text is the cause's own message, and
        # the cause comes first (issue 17: the innermost error of a chain is the cause);
        # the wrapper that raised it follows among the matches.
        # (raised where it is, or where an error helper it went through was called)
        causes = traceback.extract_tb(inner.__traceback__)
        assert any(_top_site_hits(result, c) for c in causes), (printed, result["matches"][:1])
        assert any(_site_hits(m, frame) for m in result["matches"]), result["matches"]
        return
    assert _top_site_hits(result, frame), (printed, frame, result["matches"][:1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_full_traceback_explains_to_the_raising_line(
    name: str, indexed: tuple[SQLiteStore, Matcher]
) -> None:
    store, matcher = indexed
    error = _raise(CASES[name])
    frame = traceback.extract_tb(error.__traceback__)[-1]
    printed = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    result = explain_text(store, matcher, printed)
    assert _top_site_hits(result, frame), (printed, frame, result["matches"][:1])
