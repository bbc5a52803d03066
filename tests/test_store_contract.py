"""One contract, every store backend: what a surface reads back after a snapshot is
written must not depend on whether the records sit in a SQLite file, in memory or in a
PostgreSQL database (a real server, started for the session)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.contract import record_to_dict
from errdex.errors import NotFoundError, StoreError
from errdex.models import (
    Defensive,
    ExampleFix,
    Explanation,
    FailureClass,
    History,
    IndexSummary,
    Language,
    Record,
    RecordFacts,
    Snapshot,
    record_id,
)
from errdex.service import matcher_for_text
from errdex.store import MemoryStore, SQLiteStore, Store
from errdex.store.base import MAX_SEARCH_TERMS, Backend, mapped, not_found
from errdex.store.postgres import PostgresStore
from tests.builders import make_record
from tests.postgres_server import postgres_server_fixture, postgres_url_fixture  # noqa: F401

LISTING = {"id", "repo", "language", "kind", "exception", "message", "path", "line",
           "site_count"}


@pytest.fixture(params=["sqlite", "memory", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backend: Store
    if request.param == "postgresql":  # a real server (tests/postgres_server.py)
        backend = PostgresStore(request.getfixturevalue("postgres_url"))
    elif request.param == "sqlite":
        backend = SQLiteStore(tmp_path / "db.sqlite")
    else:
        backend = MemoryStore()
    with backend:
        yield backend


def _in(repo: str, record: Record, **changes: object) -> Record:
    """`record` as a record of `repo` (builders make every record in "o/r")."""
    return dataclasses.replace(record, repo=repo, id=record_id(repo, record.template),
                               **changes)


def _snapshot(repo: str, version: str | None = "1.0") -> Snapshot:
    return Snapshot(repo=repo, commit="c0ffee", commit_date="2026-01-01T00:00:00+00:00",
                    version=version, root="/src", url_base=None)


def _summary(repo: str, records: int) -> IndexSummary:
    return IndexSummary(repo=repo, commit="c0ffee", files_read=1, skipped=(),
                        sites_by_kind=(), records=records, dynamic_sites=0, seconds=0.0)


def _write(store: Store, repo: str, records: list[Record],
           vocabulary: frozenset[str] | None = None, version: str | None = "1.0") -> None:
    store.replace_snapshot(_snapshot(repo, version), _summary(repo, len(records)), records,
                           vocabulary)


REMOVED = RecordFacts(sites=(), history=History(removed=True, removed_commit="dead"))


def _library() -> list[Record]:
    return [
        make_record("shape mismatch in {op}: {lhs} vs {rhs}", holes=(
            ("op", "op"), ("lhs", "lhs"), ("rhs", "rhs")), line=30),
        make_record("cannot open checkpoint file", line=10, path="src/io.rs"),
        make_record("invalid dtype {dtype} for kernel", holes=(("dtype", "dtype"),), line=5,
                    variant="UnsupportedDtype", fields=("dtype",)),
        dataclasses.replace(
            make_record("legacy flag no longer supported", line=2, path="src/old.rs"),
            facts=REMOVED, failure_class=FailureClass("removed-api", "Removed API")),
    ]


def test_writing_returns_the_texts_read_back(store: Store) -> None:
    records = _library()
    texts = store.replace_snapshot(_snapshot("o/r"), _summary("o/r", len(records)), records)
    assert texts == [store.record_json(r.id) for r in records]


def test_every_read_after_a_snapshot_is_written(store: Store) -> None:
    records = _library()
    _write(store, "o/r", records, vocabulary=frozenset({"open_file", "Tensor"}))
    assert store.has_repo("o/r") and not store.has_repo("o/elsewhere")
    [repo] = store.repos()
    assert (repo.repo, repo.commit_sha, repo.version, repo.records) == (
        "o/r", "c0ffee", "1.0", 4)
    listing = store.records("o/r")
    assert all(set(dataclasses.asdict(row)) == LISTING for row in listing)
    assert [(row.path, row.line) for row in listing] == [
        ("src/io.rs", 10), ("src/lib.rs", 5), ("src/lib.rs", 30), ("src/old.rs", 2)]
    assert store.records() == listing
    for record in records:
        data = record_to_dict(store.record(record.id))
        assert data["message"] == record.template.message and data["repo"] == "o/r"
        assert store.record(record.id).template == record.template
        assert store.record_json(record.id).startswith("{")
    assert store.vocabulary("o/r") == frozenset({"open_file", "Tensor"})
    assert store.vocabulary("o/elsewhere") == frozenset()


def test_removed_records_are_kept_with_their_status(store: Store) -> None:
    records = _library()
    _write(store, "o/r", records)
    assert record_to_dict(store.record(records[3].id))["status"] == "removed"
    assert record_to_dict(store.record(records[0].id))["status"] == "current"
    assert [row.id for row in store.records_in_class("removed-api")] == [records[3].id]
    assert store.records_in_class("no-such-class") == []


def test_unknown_ids_are_not_found(store: Store) -> None:
    _write(store, "o/r", _library())
    for read in (store.record_json, store.record):
        with pytest.raises(NotFoundError, match="no error with id 'feedface'"):
            read("feedface")


def test_replacing_a_snapshot_replaces_its_records(store: Store) -> None:
    first = _library()
    _write(store, "o/r", first, vocabulary=frozenset({"old_name"}))
    kept = make_record("cannot open checkpoint file", line=12, path="src/io.rs")
    new = make_record("checkpoint is truncated at byte {n}", holes=(("n", "n"),))
    _write(store, "o/r", [kept, new])  # the same version again
    assert [row.id for row in store.records("o/r")] == [kept.id, new.id]
    assert store.records("o/r")[0].line == 12
    assert store.repos()[0].records == 2 and store.repos()[0].versions == ("1.0",)
    with pytest.raises(NotFoundError):
        record_to_dict(store.record(first[0].id))
    assert store.vocabulary("o/r") == frozenset({"old_name"})  # none given: the old one kept
    assert {e.record_id for e in store.match_entries()} == {kept.id, new.id}
    assert store.search_text("shape mismatch") == []


def _two_versions(store: Store) -> tuple[list[Record], Record, Record]:
    """o/r at 1.0 (the library) and at 2.0 (one message moved, one new, the rest gone)."""
    first = _library()
    _write(store, "o/r", first, vocabulary=frozenset({"old_name"}))
    kept = make_record("cannot open checkpoint file", line=12, path="src/io.rs")
    new = make_record("checkpoint is truncated at byte {n}", holes=(("n", "n"),))
    _write(store, "o/r", [kept, new], vocabulary=frozenset({"new_name"}), version="2.0")
    return first, kept, new


def test_two_versions_live_side_by_side(store: Store) -> None:
    first, kept, new = _two_versions(store)
    [repo] = store.repos()
    assert (repo.ref, repo.version, repo.records, repo.versions) == (
        "2.0", "2.0", 2, ("2.0", "1.0"))
    assert [(s.ref, s.records) for s in store.snapshots("o/r")] == [("2.0", 2), ("1.0", 4)]
    # without a version, the newest; with one, that version (a leading v is fine)
    assert [row.id for row in store.records("o/r")] == [kept.id, new.id]
    assert [row.id for row in store.records()] == [kept.id, new.id]
    assert len(store.records("o/r", "1.0")) == 4 == len(store.records("o/r", "v1.0"))
    assert store.record(kept.id).sites[0].line == 12
    assert store.record(kept.id, "1.0").sites[0].line == 10
    with pytest.raises(NotFoundError, match=r"in version '2\.0'"):
        store.record(first[0].id, "2.0")
    # a message only the older version has is still found by its id
    assert store.record(first[0].id).template.message == first[0].template.message
    with pytest.raises(NotFoundError, match=r"o/r has no indexed version '3\.0' "
                       r"\(indexed: 2\.0, 1\.0\)"):
        store.records("o/r", "3.0")
    assert store.vocabulary("o/r") == frozenset({"new_name"})
    assert store.vocabulary("o/r", "1.0") == frozenset({"old_name"})
    # matching and text search see the newest snapshot only: one row per message
    assert [e.record_id for e in store.match_entries()] == [kept.id, new.id]
    assert store.search_text("shape mismatch") == []
    assert [row.id for row in store.search_text("checkpoint file")] == [kept.id]
    text = "Error: shape mismatch in matmul: [2, 3] vs [4, 5]"
    assert store.match_candidates(text) == []
    # in which versions each message exists, and where its sites changed
    assert [(v.ref, v.status, v.changed) for v in store.record_versions(kept.id)] == [
        ("1.0", "current", False), ("2.0", "current", True)]
    assert [(v.ref, v.status) for v in store.record_versions(new.id)] == [
        ("1.0", "absent"), ("2.0", "current")]
    assert [v.status for v in store.record_versions(first[3].id)] == ["removed", "absent"]


def test_a_view_with_chosen_versions_reads_those(store: Store) -> None:
    first, kept, new = _two_versions(store)
    old = store.with_versions({"o/r": "1.0"})
    assert [e.record_id for e in old.match_entries()] == [r.id for r in old.records()]
    assert len(old.records()) == 4 and old.repos()[0].ref == "1.0"
    assert old.record(kept.id).sites[0].line == 10
    assert old.record(new.id).template.message == new.template.message  # not in 1.0: newest
    text = "Error: shape mismatch in matmul: [2, 3] vs [4, 5]"
    candidates = old.match_candidates(text)
    assert candidates is not None and first[0].id in {e.record_id for e in candidates}
    with old:
        pass  # closing a view leaves the store open
    assert store.records("o/r")[0].id == kept.id
    # a version the repository lacks falls back to the newest
    assert [r.id for r in store.with_versions({"o/r": "9.9"}).records()] == [kept.id, new.id]


def test_reindexing_one_version_leaves_the_other_intact(store: Store) -> None:
    _, kept, new = _two_versions(store)
    again = make_record("cannot open checkpoint file", line=99, path="src/io.rs")
    _write(store, "o/r", [again], version="1.0")
    # 1.0 keeps its place: 2.0, first indexed after it, is still the newest
    assert store.repos()[0].versions == ("2.0", "1.0")
    assert [(r.id, r.line) for r in store.records("o/r")] == [(kept.id, 12), (new.id, 1)]
    assert [(r.id, r.line) for r in store.records("o/r", "1.0")] == [(again.id, 99)]
    assert store.vocabulary("o/r", "1.0") == frozenset({"old_name"})
    assert {e.record_id for e in store.match_entries()} == {kept.id, new.id}
    store.update_record_data([dataclasses.replace(kept, failure_class=FailureClass(
        "io", "I/O"))], version="1.0")
    assert store.record(kept.id, "1.0").failure_class.slug == "io"
    assert store.record(kept.id).failure_class is None  # 2.0 untouched


def test_readers_during_a_write_see_the_old_snapshot_or_the_new(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    old = [make_record(f"old message number {i} failed", line=i + 1) for i in range(300)]
    new = [make_record(f"new message number {i} failed", line=i + 1) for i in range(300)]
    seen: list[tuple[int, int, int]] = []
    with SQLiteStore(path) as writer, SQLiteStore(path, create=False) as reader:
        _write(writer, "o/r", old)
        _write(writer, "o/r", old[:5], version="2.0")

        def look() -> int:
            # Runs inside the writer's transaction, mid-statement, on another connection.
            ids = {row.id for row in reader.records("o/r", "1.0")}
            keyed = reader.with_versions({"o/r": "1.0"}).match_candidates(
                "new message number 7 failed") or []
            fresh = {e.record_id for e in keyed} & {r.id for r in new}
            seen.append((len(ids & {r.id for r in old}), len(ids), len(fresh)))
            return 0

        writer._conn.set_progress_handler(look, 5_000)
        _write(writer, "o/r", new, version="1.0")
        writer._conn.set_progress_handler(None, 0)
        assert len(seen) > 3 and set(seen) == {(300, 300, 0)}  # the old one, whole
        after = {row.id for row in reader.records("o/r", "1.0")}
        assert after == {r.id for r in new}  # then the new one, whole
        assert len(reader.records("o/r", "2.0")) == 5


def test_a_database_of_the_old_schema_is_refused_in_one_line(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE snapshots (repo TEXT PRIMARY KEY)")
        conn.execute("PRAGMA user_version=1")
    conn.close()
    for create in (False, True):
        with pytest.raises(StoreError, match=r"older errdex \(schema 1, one version per "
                           r"repository\): index again into a new file$"):
            SQLiteStore(path, create=create)


def test_two_repositories_side_by_side(store: Store) -> None:
    ours = _library()
    theirs = [_in("x/y", ours[1], sites=tuple(
        dataclasses.replace(site, path="lib/io.py") for site in ours[1].sites))]
    _write(store, "o/r", ours)
    _write(store, "x/y", theirs, version=None)
    assert [r.repo for r in store.repos()] == ["o/r", "x/y"]
    assert [r.id for r in store.records("x/y")] == [theirs[0].id]
    assert [r.repo for r in store.records()] == ["o/r"] * 4 + ["x/y"]
    found = store.search_text("checkpoint file")
    assert {(row.repo, row.id) for row in found} == {
        ("o/r", ours[1].id), ("x/y", theirs[0].id)}
    _write(store, "o/r", [])  # emptying one repository leaves the other alone
    assert [r.id for r in store.records()] == [theirs[0].id]
    assert record_to_dict(store.record(theirs[0].id))["repo"] == "x/y"


def test_text_search_is_whole_words_all_of_them_with_a_term_cap(store: Store) -> None:
    records = _library()
    _write(store, "o/r", records)
    [row] = store.search_text("CHECKPOINT open")
    assert row.id == records[1].id
    assert row in store.records("o/r")  # a search row is a listing row
    assert store.search_text("checkpoint missing") == []
    assert store.search_text("checkp") == []
    assert store.search_text("  ...  ") == []
    many = " ".join(f"w{i}" for i in range(MAX_SEARCH_TERMS + 10))
    searched = store.text_search(many)
    assert searched.terms == tuple(f"w{i}" for i in range(MAX_SEARCH_TERMS))
    assert searched.rows == [] and searched.complete
    assert len(store.search_text("in", limit=1)) == 1


def test_match_entries_and_candidates(store: Store) -> None:
    records = _library()
    _write(store, "o/r", records, version="3.1")
    entries = store.match_entries()
    assert [e.record_id for e in entries] == [r.id for r in store.records()]
    variant = next(e for e in entries if e.record_id == records[2].id)
    assert (variant.variant, variant.variant_fields, variant.version, variant.language) == (
        "UnsupportedDtype", ("dtype",), "3.1", "rust")
    assert variant.template == records[2].template and variant.sites == (("src/lib.rs", 5),)
    # The matcher ranks a printed line after a raised error: each entry keeps its kind.
    assert [e.kind for e in entries] == [r.kind for r in store.records()]
    text = "Error: shape mismatch in matmul: [2, 3] vs [4, 5]"
    candidates = store.match_candidates(text)
    assert candidates is not None and records[0].id in {e.record_id for e in candidates}
    assert store.match_candidates(text, limit=0) == []
    matcher = matcher_for_text(store, text)
    assert matcher is not None
    [best] = matcher.match(text, limit=1)
    assert best.record_id == records[0].id and dict(best.values)["op"] == "matmul"
    debug = store.match_candidates("Err(UnsupportedDtype { dtype: F8 })")
    assert debug is not None and records[2].id in {e.record_id for e in debug}


def test_updating_record_data_rewrites_only_the_prose(store: Store) -> None:
    records = _library()
    _write(store, "o/r", records)
    explanation = Explanation(
        summary="The checkpoint path does not exist.", what_it_means="", solutions=("Fix it",),
        example_fix=ExampleFix("", ""), defensive=Defensive("", "", "", ""), prevention=(),
        trigger="", common_situations=())
    store.update_record_data([dataclasses.replace(records[1], explanation=explanation)])
    page = record_to_dict(store.record(records[1].id))
    assert page["explanation"]["summary"] == "The checkpoint path does not exist."
    assert store.record(records[1].id).explanation == explanation
    assert record_to_dict(store.record(records[0].id))["explanation"] is None
    # a record the store doesn't hold is not added by an update
    store.update_record_data([make_record("never indexed", language=Language.PYTHON)])
    assert len(store.records()) == 4


def test_the_cache_and_the_data_version(store: Store) -> None:
    assert store.cache_get("k") is None
    store.cache_put("k", '{"a": 1}')
    store.cache_put("k", '{"a": 2}')
    assert store.cache_get("k") == '{"a": 2}'
    _write(store, "o/r", _library())
    version = store.data_version()
    store.records()
    store.search_text("checkpoint")
    assert store.data_version() == version  # reading changes nothing


def test_the_extraction_cache_keeps_the_last_index_of_each_repository(store: Store) -> None:
    assert store.cached_extractions("o/r", ["a", "b"]) == {}
    store.keep_extractions("o/r", {"a": b"\x00one", "b": b"two"})
    store.keep_extractions("o/other", {"a": b"elsewhere"})
    assert store.cached_extractions("o/r", ["a", "b", "c"]) == {"a": b"\x00one", "b": b"two"}
    # The next index of o/r still uses "a", replaces "c"'s bytes and no longer has "b".
    store.keep_extractions("o/r", {"c": b"three"}, keep=["a"])
    store.keep_extractions("o/r", {"c": b"three again"}, keep=["a", "c"])
    assert store.cached_extractions("o/r", ["a", "b", "c"]) == {"a": b"\x00one",
                                                                "c": b"three again"}
    assert store.cached_extractions("o/other", ["a"]) == {"a": b"elsewhere"}
    assert store.records() == [] and store.repos() == []  # a cache, not a snapshot


def test_an_empty_store_reads_as_empty(store: Store) -> None:
    assert store.repos() == [] and store.records() == [] and store.match_entries() == []
    assert store.search_text("anything") == []
    assert store.match_candidates("anything") == []
    assert not store.has_repo("o/r")


class _FlakyLibraryError(Exception):
    pass


class _Flaky(Backend):
    """A backend whose library fails: what `mapped` must turn into errdex's errors."""

    backend_errors = (_FlakyLibraryError,)

    def describe_error(self, action: str, exc: Exception) -> StoreError:
        return StoreError(f"cannot {action} flaky: {exc}")

    @mapped("read")
    def fails(self, why: str) -> str:
        raise _FlakyLibraryError(why)

    @mapped("read")
    def misses(self, record_id: str) -> str:
        raise not_found(record_id)

    @mapped("write")
    def breaks(self) -> str:
        raise KeyError("a bug, not the library")


def test_backend_errors_become_one_store_error_line() -> None:
    flaky = _Flaky()
    with pytest.raises(StoreError, match=r"^cannot read flaky: disk gone$") as raised:
        flaky.fails("disk gone")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    with pytest.raises(NotFoundError, match="no error with id 'x1'"):
        flaky.misses("x1")  # errdex's own errors pass through as they are
    with pytest.raises(KeyError):
        flaky.breaks()  # a bug is not a store failure: it is not disguised as one


def test_a_file_that_is_no_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    path.write_bytes(b"this is not a database, just bytes " * 200)
    with pytest.raises(StoreError, match=f"^cannot open database {re.escape(str(path))}: "):
        SQLiteStore(path, create=False)
