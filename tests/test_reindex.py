"""A re-index reuses each unchanged file's extraction from the store's cache and gives
exactly the records a full index gives; a cache entry it can't trust is extracted again."""

from __future__ import annotations

import json
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from errdex.analyze.testrefs import KindsMemo
from errdex.extract.cached import (
    FORMAT,
    decode_extraction,
    decode_kinds,
    encode_extraction,
    encode_kinds,
    kinds_key,
    manifest_key,
    plan_reuse,
)
from errdex.index import (
    FILE_SECONDS,
    MAX_FILE_SITES,
    extract_snapshot,
    index_snapshot,
    snapshot_rules,
)
from errdex.models import IndexSummary, Snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import MemoryStore, SQLiteStore, Store
from errdex.store.base import snapshot_ref
from tests.analysis_repos import commit, git, init
from tests.postgres_server import postgres_server_fixture, postgres_url_fixture  # noqa: F401

FIXTURES = Path(__file__).parent / "fixtures"
REPO = "o/mixed"


def _tree(root: Path) -> Path:
    """A git checkout holding the Rust and Python fixture repositories side by side,
    the Python one's errdex.toml at the top."""
    init(root)
    shutil.copytree(FIXTURES / "rust_repo" / "src", root / "src")
    shutil.copytree(FIXTURES / "python_repo" / "pkg", root / "pkg")
    shutil.copy(FIXTURES / "python_repo" / "errdex.toml", root / "errdex.toml")
    (root / "pkg" / "long.py").write_text(_long_function("the second check failed"))
    (root / "tests").mkdir()
    (root / "tests" / "test_settle.py").write_text(
        "import pytest\nfrom pkg.long import settle\n\n\ndef test_negative():\n"
        "    with pytest.raises(ValueError, match='the first check failed'):\n"
        "        settle(-1, 3)\n")
    commit(root, "first", "2024-02-01T10:00:00+00:00")
    return root


def _long_function(last: str) -> str:
    """Two checks of one function, far enough apart that neither's snippet shows the
    other: a change of the second changes the first's page only through its siblings."""
    filler = "".join(f"    total += {n}\n" for n in range(60))
    return (f"def settle(total, limit):\n    if total < 0:\n"
            f"        raise ValueError('the first check failed')\n{filler}"
            f"    if total > limit:\n        raise ValueError('{last}')\n    return total\n")


def _snapshot(root: Path) -> Snapshot:
    (snapshot,) = resolve(str(root), SourceOptions(repo=REPO))
    return snapshot


def _index(root: Path, store: Store, *, full: bool = False) -> IndexSummary:
    return index_snapshot(_snapshot(root), store, workers=1, full=full)


def _pages(store: Store) -> list[str]:
    """Every stored record (removed ones too) as its contract JSON, in listing order."""
    return [store.record_json(row.id) for row in store.records(REPO)]


def _edit(root: Path) -> None:
    """One file changed (a message reworded, lines shifted), one removed, one added."""
    ops = root / "src" / "ops.rs"
    text = ops.read_text().replace('"other must not be empty"', '"other is empty"')
    ops.write_text("// a new first line shifts every site\n" + text)
    (root / "src" / "broken.rs").unlink()
    (root / "pkg" / "long.py").write_text(_long_function("the second check is over"))
    with (root / "tests" / "test_settle.py").open("a") as test:
        test.write("\n\ndef test_over():\n    with pytest.raises(ValueError, "
                   "match='the second check is over'):\n        settle(5, 3)\n")
    (root / "pkg" / "extra.py").write_text(
        "from pkg.checks import run\n\n\ndef start(mode):\n"
        "    if not mode:\n        raise ValueError('no mode to start')\n"
        "    if mode == 'again':\n        raise RuntimeError('looping')\n    return run(mode)\n")
    git(root, "add", "-A")  # a checkout's files are those git tracks: staged, not committed


def test_a_reindex_after_edits_gives_the_records_of_a_full_index(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    with SQLiteStore(tmp_path / "incremental.sqlite") as store, \
            SQLiteStore(tmp_path / "full.sqlite") as full:
        first = _index(root, store)
        _index(root, full, full=True)
        assert first.extra["files_reused"] == 0
        again = _index(root, store)  # nothing changed: nothing is extracted
        assert again.extra["files_reused"] == again.files_read == first.files_read
        _edit(root)
        after = _index(root, store)
        _index(root, full, full=True)
        assert after.extra["files_reused"] == after.files_read - 3  # ops.rs, long.py, extra.py
        assert after.extra.get("removed")  # broken.rs's messages are kept as removed
        assert 0 < after.extra["analyses_reused"] < after.records
        pages = _pages(store)
        assert pages == _pages(full)
        assert sum('"kind": "pytest.raises"' in page for page in pages) == 2
        once_more = _index(root, store)  # with records removed before: still a full index's
        _index(root, full, full=True)
        assert _pages(store) == _pages(full) == pages
        assert once_more.extra["analyses_reused"] > after.extra["analyses_reused"]
        assert after.records == len(pages) - after.extra["removed"]
    with SQLiteStore(tmp_path / "fresh.sqlite") as fresh:  # the changed tree, never seen
        _index(root, fresh)
        current = [p for p in pages if '"status": "removed"' not in p]
        assert current == _pages(fresh)
    assert any("other is empty" in page for page in current)
    assert not any("other must not be empty" in page for page in current)


def test_a_new_tag_or_commit_gives_the_history_a_full_index_gives(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    _edit(root)
    commit(root, "second", "2024-03-01T10:00:00+00:00")
    with MemoryStore() as store, MemoryStore() as full:
        for step in ("first", "tag", "commit"):
            if step == "tag":  # HEAD, and so every record, unchanged; not their history
                git(root, "tag", "v1.0", "HEAD~1")
            if step == "commit":
                (root / "pkg" / "extra.py").write_text("def nothing():\n    pass\n")
                commit(root, "third", "2024-04-01T10:00:00+00:00")
            _index(root, store)
            _index(root, full, full=True)
            assert _pages(store) == _pages(full), step
            tagged = any('"introduced_tag": "v1.0"' in page for page in _pages(store))
            assert tagged == (step != "first"), step


def test_a_reindex_keeps_what_it_can_in_postgresql_too(tmp_path: Path, postgres_url: str) -> None:
    from errdex.store.postgres import PostgresStore

    root = _tree(tmp_path / "tree")
    with PostgresStore(postgres_url) as store, MemoryStore() as full:
        _index(root, store)
        _index(root, full, full=True)
        again = _index(root, store)
        assert again.extra["files_reused"] == again.files_read
        assert again.extra["analyses_reused"] > again.records * 0.9
        _edit(root)
        after = _index(root, store)
        _index(root, full, full=True)
        assert 0 < after.extra["analyses_reused"] < after.records
        # (records at the same line may be listed in another order by PostgreSQL)
        assert sorted(_pages(store)) == sorted(_pages(full))


def test_changing_the_rules_extracts_that_language_again(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    with MemoryStore() as store, MemoryStore() as full:
        _index(root, store)
        _index(root, full, full=True)
        before = {row.id for row in store.records(REPO)}
        (root / "errdex.toml").write_text("")  # `self.fail(...)` no longer raises
        after = _index(root, store)
        _index(root, full, full=True)
        rust_files = len(list((root / "src").rglob("*.rs")))
        assert after.extra["files_reused"] == rust_files  # every Python file again
        assert after.extra.get("removed")  # the messages of `self.fail(...)` are gone
        assert {row.id for row in store.records(REPO)} == before  # (kept as removed)
        assert _pages(store) == _pages(full)


def _tamper(store: Store, root: Path, make: Callable[[bytes], bytes],
            manifests: bool = False) -> int:
    """Overwrite, through the store's own methods, every cached extraction of the
    tree's files (or the manifest of what the last index read) with `make(old bytes)`."""
    snapshot = _snapshot(root)
    plan = plan_reuse(snapshot.files, snapshot_rules(snapshot), (FILE_SECONDS, MAX_FILE_SITES))
    files = [key for key in plan.keys if key is not None]
    ref = snapshot_ref(snapshot)
    held = store.cached_extractions(REPO, [manifest_key(ref)] if manifests else files)
    assert held
    store.keep_extractions(REPO, {key: make(data) for key, data in held.items()},
                           keep=[*files, manifest_key(ref), kinds_key(ref)])
    return len(held)


def _old_format(data: bytes) -> bytes:
    body = json.loads(zlib.decompress(data))
    return zlib.compress(json.dumps(["errdex-extraction-0", *body[1:]]).encode())


def _wrong_shape(data: bytes) -> bytes:
    body = json.loads(zlib.decompress(data))
    body[2][0] = [["not", "a", "site"]]  # sites of the right format tag, wrong shape
    return zlib.compress(json.dumps(body).encode())


@pytest.mark.parametrize("make", [
    lambda data: data[: len(data) // 2],  # truncated
    lambda data: b"\x80\x04garbage that is no zlib",  # garbage (a pickle's opening, too)
    lambda data: zlib.compress(b"[1, 2"),  # compressed, but not JSON
    _old_format,
    _wrong_shape,
], ids=["truncated", "garbage", "not-json", "old-format", "wrong-shape"])
def test_a_cache_entry_that_cannot_be_trusted_is_extracted_again(
    tmp_path: Path, make: Callable[[bytes], bytes]
) -> None:
    root = _tree(tmp_path / "tree")
    with SQLiteStore(tmp_path / "db.sqlite") as store:
        _index(root, store)
        pages = _pages(store)
        _tamper(store, root, make)
        again = _index(root, store)
        assert again.extra["files_reused"] == 0
        assert _pages(store) == pages
        assert _index(root, store).extra["files_reused"] == again.files_read  # healed


@pytest.mark.parametrize("make", [
    lambda data: data[:-3], lambda data: zlib.compress(b'["errdex-manifest-0"]')],
    ids=["truncated", "old-format"])
def test_a_manifest_that_cannot_be_trusted_means_analysing_again(
    tmp_path: Path, make: Callable[[bytes], bytes]
) -> None:
    root = _tree(tmp_path / "tree")
    with SQLiteStore(tmp_path / "db.sqlite") as store:
        _index(root, store)
        pages = _pages(store)
        # Unchanged, nearly every record keeps its analysis (not one that mixes Python
        # and Rust sites: its stored form does not say each site's language).
        reused = _index(root, store).extra["analyses_reused"]
        assert len(pages) > reused > len(pages) * 0.9
        assert _tamper(store, root, make, manifests=True) == 1
        again = _index(root, store)
        assert again.extra["files_reused"] == again.files_read
        assert "analyses_reused" not in again.extra
        assert _pages(store) == pages
        assert _index(root, store).extra["analyses_reused"] == reused  # healed


def test_remembered_test_expectations_are_checked_before_use() -> None:
    text = "def test_x():\n    with pytest.raises(ValueError):\n        f()\n"
    lines = text.splitlines()
    memo = KindsMemo()
    fresh = memo.kinds(text, lines)
    assert fresh[1] == "pytest.raises"
    (key,) = memo.used
    kept = [None] * len(lines)  # what the store kept is what is used (a cache hit)
    assert KindsMemo(known=decode_kinds(encode_kinds({key: kept}))).kinds(text, lines) == kept
    for stored in (["pytest.raises"], ["made up", None, None], "text"):  # but checked first
        assert KindsMemo(known={key: stored}).kinds(text, lines) == fresh
    assert decode_kinds(b"garbage") == {} and decode_kinds(zlib.compress(b"[1]")) == {}


def test_extractions_survive_the_cache_encoding_exactly(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    extractions, _ = extract_snapshot(_snapshot(root), workers=1)
    assert extractions and any(e.structure for e in extractions)
    for extraction in extractions:
        data = encode_extraction(extraction, 3)
        assert decode_extraction(data) == (extraction, 3)
        assert json.loads(zlib.decompress(data))[0] == FORMAT
    for junk in (b"", None, "text", b"x" * 10, zlib.compress(b"null"),
                 zlib.compress(json.dumps([FORMAT, -1, []]).encode()),
                 zlib.compress(json.dumps([FORMAT, 0, [[], [], [], True, None]]).encode())):
        assert decode_extraction(junk) is None


def test_a_re_export_written_in_another_file_is_asked_again(tmp_path: Path) -> None:
    """`pub use inner::Tower` in lib.rs makes `Tower::new` of the crate-kept inner.rs
    the user's again: inner.rs is unchanged, yet its page must be a full index's."""
    root = tmp_path / "tree"
    init(root)
    (root / "src").mkdir()
    (root / "Cargo.toml").write_text('[package]\nname = "vl"\n')
    (root / "src" / "lib.rs").write_text("mod inner;\n")
    (root / "src" / "inner.rs").write_text(
        "pub struct Tower;\n\nimpl Tower {\n    pub fn new(n: usize) -> Result<Self> {\n"
        '        if n == 0 {\n            bail!("a tower needs floors")\n        }\n'
        "        Ok(Self)\n    }\n}\n")
    commit(root, "first", "2024-01-01T12:00:00+00:00")
    with SQLiteStore(tmp_path / "incremental.sqlite") as store, \
            SQLiteStore(tmp_path / "full.sqlite") as full:
        _index(root, store)
        (root / "src" / "lib.rs").write_text("mod inner;\npub use inner::Tower;\n")
        git(root, "add", "-A")
        _index(root, store)
        _index(root, full, full=True)
        assert _pages(store) == _pages(full)
        (page,) = [json.loads(p) for p in _pages(store) if "a tower needs" in p]
        assert page["facts"]["sites"][0]["public"] is True
