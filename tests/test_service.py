"""`errdex.service.Explainer` over a database indexed from a small library written here
(tests/shapes.py): each call returns the contract the CLI prints, finds the records a
file or line can raise, and follows the database when a repository is indexed again."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.errors import EmptyInputError, NotFoundError, StoreError, UsageError
from errdex.match import load_matcher
from errdex.serve.cli import main
from errdex.service import Explainer, MatcherMode, explain_text
from tests.shapes import COMMIT, GRID, OTHER_REPO, REPO, STORAGE, TRACEBACK, index_shapes, line_of


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_shapes(tmp_path_factory.mktemp("service"))


@pytest.fixture(params=list(MatcherMode), ids=lambda m: m.value)
def explainer(db: Path, request: pytest.FixtureRequest) -> Iterator[Explainer]:
    with Explainer(db, mode=request.param) as service:
        yield service


def _id_of(service: Explainer, message_start: str) -> str:
    ids = [r.id for r in service.store.records() if r.message.startswith(message_start)]
    assert len(ids) == 1, ids
    return ids[0]


def test_explain_finds_the_record_with_the_values_of_a_traceback(explainer: Explainer) -> None:
    result = explainer.explain(TRACEBACK)
    assert result["input"] == TRACEBACK
    best = result["matches"][0]
    assert best["exact"] is True
    assert best["values"] == {"rows": "-3"}
    assert best["record"]["repo"] == REPO
    assert best["record"]["message"] == "grid needs at least one row, got {rows}"
    assert best["record"]["sites"][0]["path"] == "shapes/grid.py"


def test_explain_is_the_explain_json_shape(explainer: Explainer, db: Path) -> None:
    text = "ValueError: unknown save mode 'q' for /tmp/g.txt"
    expected = explain_text(explainer.store, load_matcher(explainer.store), text, 3)
    assert explainer.explain(text, limit=3) == expected
    assert expected["matches"][0]["values"] == {"mode": "'q'", "path": "/tmp/g.txt"}


def test_explain_refuses_empty_oversized_and_bad_limits(db: Path) -> None:
    with Explainer(db, max_text_chars=100) as service:
        with pytest.raises(EmptyInputError):
            service.explain("  \n\t")
        with pytest.raises(UsageError, match="too large"):
            service.explain("x" * 101)
        with pytest.raises(UsageError, match="limit"):
            service.explain("ValueError: grid too wide", limit=0)


def test_explain_of_unknown_text_has_no_exact_match(explainer: Explainer) -> None:
    matches = explainer.explain("the coffee machine is out of beans")["matches"]
    assert not [m for m in matches if m["exact"]]


def test_show_returns_the_record_contract_and_refuses_an_unknown_id(
    explainer: Explainer,
) -> None:
    record_id = _id_of(explainer, "unknown save mode")
    record = explainer.show(record_id)
    assert record["id"] == record_id
    assert record["exception"] == "ValueError"
    assert record["sites"][0]["line"] == line_of(STORAGE, "unknown save mode")
    assert record["sites"][0]["url"].endswith(f"{COMMIT}/shapes/storage.py#L3")
    assert record["explanation"]["summary"]
    with pytest.raises(NotFoundError, match="no error with id"):
        explainer.show("0000000000000000")


def test_search_finds_messages_by_their_words(explainer: Explainer) -> None:
    rows = explainer.search("out of range")
    assert [r["message"] for r in rows] == [
        "row {row} out of range for a grid of {self.rows} rows"]
    assert rows[0]["path"] == "shapes/grid.py"
    assert len(explainer.search("grid")) == 4
    assert len(explainer.search("grid", limit=1)) == 1
    assert explainer.search("zebra") == []
    with pytest.raises(EmptyInputError):
        explainer.search("   ")


def test_scan_counts_every_known_error_in_a_log(explainer: Explainer) -> None:
    log = (b"starting\n"
           b"ValueError: grid needs at least one row, got 0\n"
           b"ok\n"
           b"ValueError: grid needs at least one row, got -1\n")
    report = explainer.scan(io.BytesIO(log))
    assert report["lines"] == 4
    [hit] = report["records"]
    assert hit["count"] == 2
    assert hit["lines"] == [2, 4]
    assert hit["message"] == "grid needs at least one row, got {rows}"


def test_at_a_site_line_returns_its_record(explainer: Explainer) -> None:
    line = line_of(GRID, "out of range for a grid")
    [hit] = explainer.at("shapes/grid.py", line)
    assert hit["message"] == "row {row} out of range for a grid of {self.rows} rows"
    assert hit["repo"] == REPO
    assert hit["summary"]
    assert [(s["path"], s["line"]) for s in hit["sites"]] == [("shapes/grid.py", line)]
    assert hit["sites"][0]["function"] == "shapes.grid.Grid.cell"


def test_at_any_line_of_a_multiline_raise_returns_it(explainer: Explainer) -> None:
    first = line_of(GRID, "grid too wide") - 1  # `raise ValueError(`
    last = line_of(GRID, "the limit is") + 1
    for line in range(first, last + 1):
        assert [h["message"] for h in explainer.at("shapes/grid.py", line)] == [
            "grid too wide: {cols} columns, the limit is {arg1}"], line
    assert explainer.at("shapes/grid.py", last + 1) == []  # `self.rows = rows`


def test_at_a_line_without_a_site_returns_nothing(explainer: Explainer) -> None:
    assert explainer.at("shapes/grid.py", 1) == []  # `class Grid:`
    assert explainer.at("shapes/grid.py", 10_000) == []
    assert explainer.at("shapes/missing.py", 3) == []


def test_at_without_a_line_returns_every_record_of_the_file(explainer: Explainer) -> None:
    hits = explainer.at("shapes/grid.py")
    assert [h["sites"][0]["line"] for h in hits] == [
        line_of(GRID, "at least one row"), line_of(GRID, "grid too wide") - 1,
        line_of(GRID, "out of range")]
    assert {h["repo"] for h in hits} == {REPO}


def test_at_takes_the_path_a_traceback_prints(explainer: Explainer) -> None:
    line = line_of(GRID, "at least one row")
    for path in ("/home/me/venv/lib/python3.11/site-packages/shapes/grid.py",
                 r"C:\Users\me\venv\Lib\site-packages\shapes\grid.py",
                 "./shapes/grid.py"):
        assert [h["message"] for h in explainer.at(path, line)] == [
            "grid needs at least one row, got {rows}"], path


def test_at_prefers_the_stored_path_sharing_most_components(explainer: Explainer) -> None:
    # Both repositories have a grid.py: the full traceback path names shapes/grid.py...
    deep = explainer.at("/venv/site-packages/shapes/grid.py")
    assert {h["repo"] for h in deep} == {REPO}
    # ...another directory's grid.py is the other repository's top-level one...
    assert [h["repo"] for h in explainer.at("/srv/app/grid.py", 2)] == [OTHER_REPO]
    # ...and the bare file name is either.
    assert {h["repo"] for h in explainer.at("grid.py")} == {REPO, OTHER_REPO}


def test_at_refuses_an_empty_path_and_line_zero(explainer: Explainer) -> None:
    with pytest.raises(UsageError):
        explainer.at("  ")
    with pytest.raises(UsageError):
        explainer.at("shapes/grid.py", 0)


def test_repositories_lists_both_with_their_counts(explainer: Explainer) -> None:
    repos = {r["repo"]: r for r in explainer.repositories()}
    assert set(repos) == {REPO, OTHER_REPO}
    assert repos[REPO]["records"] == 4
    assert repos[REPO]["commit_sha"] == COMMIT


def test_a_missing_database_is_a_store_error_and_stays_missing(tmp_path: Path) -> None:
    path = tmp_path / "none.sqlite"
    with pytest.raises(StoreError, match="no database"):
        Explainer(path)
    assert not path.exists()


@pytest.mark.parametrize("mode", list(MatcherMode), ids=lambda m: m.value)
def test_a_long_lived_explainer_sees_a_repository_indexed_again(
    tmp_path: Path, mode: MatcherMode
) -> None:
    db = index_shapes(tmp_path)
    with Explainer(db, mode=mode) as service:
        assert service.explain("SyntaxError: cannot parse grid text 'x'")["matches"][0]["exact"]
        assert len(service.at("grid.py", 2)) == 1
        (tmp_path / "other_repo" / "grid.py").write_text(
            "def parse(text):\n\n    raise SyntaxError(f'grid text {text!r} has no rows')\n")
        code = main(["--db", str(db), "index", str(tmp_path / "other_repo"),
                     "--repo", OTHER_REPO, "--commit", COMMIT], out=io.StringIO())
        assert code == 0
        best = service.explain("SyntaxError: grid text 'x' has no rows")["matches"][0]
        assert best["exact"] and best["values"] == {"text": "'x'"}
        assert [h["message"] for h in service.at("/srv/app/grid.py", 3)] == [
            "grid text {text!r} has no rows"]
        assert service.at("/srv/app/grid.py", 2) == []


def test_without_a_key_index_explain_falls_back_to_the_whole_matcher(tmp_path: Path) -> None:
    db = index_shapes(tmp_path)
    with sqlite3.connect(db) as conn:  # what a database from before the key index holds
        conn.execute("DELETE FROM match_index")
    with Explainer(db, mode=MatcherMode.PER_TEXT) as service:
        best = service.explain(TRACEBACK)["matches"][0]
        assert best["exact"] and best["values"] == {"rows": "-3"}
