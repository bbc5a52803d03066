"""Whole tracebacks raised for real by the standard library and an installed package,
chained and not: every exception in a chain is matched to the line that raised it, the
final one first; and the on-disk key index (what `errdex explain` and the hook load)
finds the same top record as the full in-memory matcher for every real error we have."""

from __future__ import annotations

import io
import ipaddress
import tarfile
import traceback
import zoneinfo
from collections.abc import Callable

import pytest
from packaging.version import Version

from errdex.contract import record_to_dict
from errdex.match import Matcher
from errdex.models import Match
from errdex.service import matcher_for_text
from errdex.store import SQLiteStore
from tests.e2e.cases import CASES


def _traceback(case: Callable[[], object]) -> tuple[str, list[BaseException]]:
    """The printed traceback and the chain, the final exception first."""
    try:
        case()
    except Exception as exc:
        chain: list[BaseException] = []
        link: BaseException | None = exc
        while link is not None:
            chain.append(link)
            link = link.__cause__ or link.__context__
        return "".join(traceback.format_exception(exc)), chain
    raise AssertionError("the case did not raise")


def _raising_line(store: SQLiteStore, match: Match, exc: BaseException) -> bool:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    sites = record_to_dict(store.record(match.record_id))["sites"]
    return any(
        frame.filename.endswith("/" + s["path"]) and s["line"] == frame.lineno for s in sites
    )


def _during_handling() -> None:
    try:
        ipaddress.ip_network("10.0.0.1/24")
    except ValueError:
        Version("1.x!")


def _direct_cause() -> None:
    with tarfile.open(fileobj=io.BytesIO(b"definitely not gzip"), mode="r:gz"):
        pass


def _stdlib_context() -> None:
    zoneinfo.ZoneInfo("Nowhere/Atlantis")


@pytest.mark.parametrize("case", [_during_handling, _direct_cause, _stdlib_context])
def test_each_exception_of_a_chain_is_matched_final_first(
    case: Callable[[], object], indexed: tuple[SQLiteStore, Matcher]
) -> None:
    store, matcher = indexed
    text, chain = _traceback(case)
    assert len(chain) >= 2
    marker = (
        "The above exception was the direct cause"
        if chain[0].__cause__ is not None
        else "During handling of the above exception"
    )
    assert marker in text
    matches = [m for m in matcher.match(text, limit=10) if m.exact]
    assert _raising_line(store, matches[0], chain[0])
    assert matches[0].site_index is not None
    for exc in chain:
        if traceback.extract_tb(exc.__traceback__)[-1].filename.startswith("<frozen"):
            continue  # raised inside the interpreter's frozen modules: no source to index
        assert any(_raising_line(store, m, exc) for m in matches), str(exc)


def test_the_key_index_finds_what_the_full_matcher_finds(
    indexed: tuple[SQLiteStore, Matcher],
) -> None:
    store, matcher = indexed
    cases = [*CASES.values(), _during_handling, _direct_cause, _stdlib_context]
    loaded = []
    for case in cases:
        text, _ = _traceback(case)
        full = matcher.match(text, limit=3)
        indexed_matcher = matcher_for_text(store, text)
        assert indexed_matcher is not None
        loaded.append(len(indexed_matcher.entries))
        disk = indexed_matcher.match(text, limit=3)
        assert [m.record_id for m in disk[:1]] == [m.record_id for m in full[:1]], text
        assert disk[0].values == full[0].values
    # Only a small share of the templates is loaded for each traceback.
    assert max(loaded) < len(matcher.entries) / 5
