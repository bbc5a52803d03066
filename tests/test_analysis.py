"""Facts read from real repositories built commit by commit: requirement, origins (a
config field, a parameter, a shape, an environment variable), sibling checks, entry
points, tests that exercise the error, and git history, including a message removed
between two indexed snapshots. Every fact is compared exactly: it is what a page shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.match import load_matcher
from errdex.serve.cli import main
from errdex.service import explain_text
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.analysis_repos import commit, git, init, python_repo, rust_version

DATES = ("2024-01-01T12:00:00+00:00", "2024-02-01T12:00:00+00:00", "2024-03-01T12:00:00+00:00")


def _index(root: Path, store: SQLiteStore, repo: str) -> None:
    (snapshot,) = resolve(str(root), SourceOptions(repo=repo))
    index_snapshot(snapshot, store, workers=1)


def _by_message(store: SQLiteStore, repo: str) -> dict[str, dict[str, Any]]:
    return {row.message: record_to_dict(store.record(row.id)) for row in store.records(repo)}


@pytest.fixture(scope="module")
def rust(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, dict[str, Any]], list[str], Path]:
    root = tmp_path_factory.mktemp("rust") / "repo"
    db = root.parent / "db.sqlite"
    init(root)
    shas = []
    store = SQLiteStore(db)
    for version, date, tag in zip(("v1", "v2", "v3"), DATES, ("v0.1.0", "v0.2.0", None),
                                  strict=True):
        rust_version(root, version)
        shas.append(commit(root, version, date, tag))
        if version != "v1":  # snapshots at v2 and v3: the legacy message goes in between
            _index(root, store, "t/rust")
    records = _by_message(store, "t/rust")
    store.close()
    return records, shas, db


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, Any]], str]:
    root = tmp_path_factory.mktemp("py") / "repo"
    sha = python_repo(root)
    with SQLiteStore(root.parent / "db.sqlite") as store:
        _index(root, store, "t/py")
        return _by_message(store, "t/py"), sha


def _site(record: dict[str, Any]) -> dict[str, Any]:
    (site,) = record["facts"]["sites"]
    assert isinstance(site, dict)
    return site


def test_config_field_origin_and_requirement(rust: Any) -> None:
    records, _, _ = rust
    site = _site(records["only kv-repeat = 1 is supported"])
    assert site["requirement"] == "`kv_repeat` must be 1"
    assert site["origins"] == [{
        "name": "kv_repeat", "how": "field", "expression": "cfg.kv_repeat",
        "path": "src/attn.rs", "line": 16, "text": "kv_repeat: cfg.kv_repeat,",
        "source": "Config.kv_repeat"}]
    page = records["only kv-repeat = 1 is supported"]["explanation"]
    assert "the `kv_repeat` field of `Config`" in page["what_it_means"]
    assert "A `Config` built with a `kv_repeat` value this check rejects" in (
        page["common_situations"])


def test_shape_requirement_parameters_and_siblings_in_order(rust: Any) -> None:
    records, _, _ = rust
    site = _site(records["q and k last dims must match"])
    assert site["requirement"] == "`q` and `k` must have the same last dimension"
    assert [(o["name"], o["how"], o["source"]) for o in site["origins"]] == [
        ("q", "parameter", "parameter `q` of `check`"),
        ("k", "parameter", "parameter `k` of `check`"),
        ("q.dim(D::Minus1)?", "value", "shape of `q`"),
        ("k.dim(D::Minus1)?", "value", "shape of `k`"),
    ]
    assert [(s["message"], s["line"], s["requirement"], s["position"])
            for s in site["siblings"]] == [
        ("only kv-repeat = 1 is supported", 26, "`kv_repeat` must be 1", "after"),
        ("q and k must have the same dtype", 29, "`q` and `k` must have the same dtype",
         "after"),
    ]


def test_entry_points_are_public_callers(rust: Any, python: Any) -> None:
    records, _, _ = rust
    assert _site(records["q and k must have the same dtype"])["entry_points"] == [
        {"function": "Model::forward", "path": "src/attn.rs", "line": 40, "depth": 2,
         "arguments": None, "parameters": None, "set_from": {}, "group": None,
         "group_message": None, "group_at": None, "lazy": ""}]
    py, _ = python
    assert _site(py["retries must be an int"])["entry_points"] == [
        {"function": "pkg.loader.open_model", "path": "pkg/loader.py", "line": 19, "depth": 1,
         "arguments": ["name", "3"], "parameters": ["name"], "set_from": {}, "group": None,
         "group_message": None, "group_at": None, "lazy": ""}]
    assert _site(py["PKG_CACHE is not set to a directory"])["entry_points"] == []


def test_environment_variable_origins(rust: Any, python: Any) -> None:
    records, _, _ = rust
    (origin,) = _site(records["MODEL_DIR is not set to a directory"])["origins"]
    assert (origin["how"], origin["line"], origin["source"]) == (
        "local", 50, "environment variable MODEL_DIR")
    py, _ = python
    (origin,) = _site(py["PKG_CACHE is not set to a directory"])["origins"]
    assert (origin["expression"], origin["source"]) == (
        'os.environ.get("PKG_CACHE")', "environment variable PKG_CACHE")


def test_tests_that_exercise_the_error(rust: Any, python: Any) -> None:
    records, _, _ = rust
    kv = records["only kv-repeat = 1 is supported"]["facts"]["tests"]
    assert [(t["path"], t["line"], t["kind"]) for t in kv] == [
        ("tests/attn.rs", 4, "should_panic"), ("tests/attn.rs", 13, "is_err")]
    assert records["MODEL_DIR is not set to a directory"]["facts"]["tests"] == []
    py, _ = python
    assert py["retries must be an int"]["facts"]["tests"] == [{
        "path": "tests/check_loader.py", "line": 6, "kind": "pytest.raises",
        "text": 'with pytest.raises(TypeError, match=r"retries must be an int"):'}]
    # `pytest.raises(ValueError)` without a match: the ValueErrors of the called function
    for message in ("retries must not be negative", "a path to load is required"):
        assert [(t["line"], t["kind"]) for t in py[message]["facts"]["tests"]] == [
            (11, "pytest.raises")]
    trigger = py["retries must be an int"]["explanation"]["trigger"]
    assert "A working example is the test at tests/check_loader.py:6" in trigger


def test_history_introduced_changed_and_tagged(rust: Any) -> None:
    records, shas, _ = rust
    kv = records["only kv-repeat = 1 is supported"]["facts"]["history"]
    assert (kv["introduced_commit"], kv["introduced_date"], kv["introduced_tag"]) == (
        shas[0], DATES[0], "v0.1.0")
    assert (kv["changed_commit"], kv["changed_date"]) == (shas[1], DATES[1])  # line rewritten
    dtype = records["q and k must have the same dtype"]["facts"]["history"]
    assert (dtype["introduced_commit"], dtype["introduced_tag"], dtype["changed_commit"]) == (
        shas[1], "v0.2.0", shas[1])
    assert records["q and k must have the same dtype"]["status"] == "current"
    page = records["only kv-repeat = 1 is supported"]["explanation"]["what_it_means"]
    assert f"introduced in commit {shas[0][:10]} on 2024-01-01, first released in v0.1.0" in page


def test_a_message_in_two_files_dates_each_commit_with_its_file(tmp_path: Path) -> None:
    # The v2 copy of a check, then a v3 copy made from it: the commit that made the copy
    # never touched v2's line, so the page names the file each commit dates, as that
    # commit named it (v2's file is renamed afterwards).
    root = tmp_path / "repo"
    init(root)
    check = ("def attend(q, k):\n    if q != k:\n"
             "        raise ValueError(f'shape mismatch q {q} and k {k}')\n")
    (root / "v2").mkdir()
    (root / "v2" / "attn.py").write_text(check)
    first = commit(root, "v2", DATES[0])
    (root / "v3").mkdir()
    (root / "v3" / "attn.py").write_text(check)
    copied = commit(root, "v3", DATES[1])
    git(root, "mv", "v2/attn.py", "v2/attention.py")
    commit(root, "rename", DATES[2])
    with SQLiteStore(tmp_path / "db.sqlite") as store:
        _index(root, store, "t/copies")
        (page,) = _by_message(store, "t/copies").values()
    history = page["facts"]["history"]
    assert (history["introduced_commit"], history["introduced_path"]) == (first, "v2/attn.py")
    assert (history["changed_commit"], history["changed_path"]) == (copied, "v3/attn.py")
    assert (f"introduced in commit {first[:10]} on 2024-01-01 in v2/attn.py; last changed in "
            f"{copied[:10]} on 2024-02-01 in v3/attn.py") in page["explanation"]["what_it_means"]


def test_a_whole_message_is_not_dated_by_a_longer_one_that_starts_with_it(
    tmp_path: Path,
) -> None:
    # "Expected CPU" came after "Expected CPU storage for q": the longer message's commit
    # is not the shorter one's introduction (round 13 changed-pages review, C11).
    root = tmp_path / "repo"
    init(root)
    (root / "storage.py").write_text(
        "def q(x):\n    raise ValueError('Expected CPU storage for q')\n")
    commit(root, "storage", DATES[0])
    (root / "model.py").write_text(
        "def run(x):\n    if x:\n        raise ValueError('Expected CPU')\n")
    (root / "storage.py").write_text("def q(x):\n    return x\n")
    added = commit(root, "model", DATES[1])
    with SQLiteStore(tmp_path / "db.sqlite") as store:
        _index(root, store, "t/short")
        page = _by_message(store, "t/short")["Expected CPU"]
    assert page["facts"]["history"]["introduced_commit"] == added


def test_removed_message_is_kept_and_found(rust: Any) -> None:
    records, shas, db = rust
    gone = records["the legacy attention cache is not supported"]
    assert gone["status"] == "removed"
    history = gone["facts"]["history"]
    assert (history["removed"], history["removed_commit"], history["removed_date"]) == (
        True, shas[2], DATES[2])
    assert history["introduced_commit"] == shas[0]
    with SQLiteStore(db) as store:
        result = explain_text(store, load_matcher(store),
                              "Error: the legacy attention cache is not supported")
    record = result["matches"][0]["record"]
    assert record["status"] == "removed"
    assert record["facts"]["history"]["removed_commit"] == shas[2]


def test_python_requirement_and_parameter(python: Any) -> None:
    py, sha = python
    site = _site(py["retries must be an int"])
    assert site["requirement"] == "`retries` must be an instance of `int`"
    assert [(o["name"], o["how"], o["line"]) for o in site["origins"]] == [
        ("retries", "parameter", 9)]
    assert [s["message"] for s in site["siblings"]] == [
        "retries must not be negative", "a path to load is required"]
    assert py["retries must be an int"]["facts"]["history"]["introduced_tag"] == "py-1.0"
    assert py["retries must be an int"]["facts"]["history"]["introduced_commit"] == sha


def test_check_reports_no_unknown_names_for_facts_pages(
    rust: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, db = rust
    assert main(["--db", str(db), "check"]) == 0
    assert "0 unknown names (0 in facts-written pages)" in capsys.readouterr().out


def test_check_reports_an_invented_name(rust: Any, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _, _, db = rust
    with SQLiteStore(db) as store:
        row = next(r for r in store.records("t/rust")
                   if r.message == "q and k must have the same dtype")
        record = store.record(row.id)
    from dataclasses import replace

    assert record.explanation is not None
    bad = replace(record.explanation, summary="Call `Model::set_dtype_policy` first")
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(db.read_bytes())
    with SQLiteStore(copy) as store:
        store.update_record_data([replace(record, explanation=bad)])
    assert main(["--db", str(copy), "check", "--json"]) == 1
    out = capsys.readouterr().out
    assert '"name": "set_dtype_policy"' in out and '"section": "summary"' in out
