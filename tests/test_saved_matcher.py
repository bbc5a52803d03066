"""The matcher saved with its snapshots (errdex.match.saved, errdex.match.load): read back,
it answers every paste exactly as a matcher built from the records does; a re-index makes
it stale; bytes that are cut, flipped or of another format are rebuilt with one note;
and all of it on every store backend (SQLite, memory, a real PostgreSQL server)."""

from __future__ import annotations

import hashlib
import json
import logging
import random
import struct
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from errdex.index import index_snapshot
from errdex.match import MatchEntry, Matcher, load_matcher
from errdex.match.saved import FORMAT, MAGIC, SavedMatcherError, dump_matcher, load_saved
from errdex.models import IndexSummary, Placeholder, Record, Snapshot, Template, record_id
from errdex.service import Explainer, MatcherMode
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import MemoryStore, SQLiteStore, Store
from errdex.store.postgres import PostgresStore
from tests.postgres_server import postgres_server_fixture, postgres_url_fixture  # noqa: F401

FIXTURES = Path(__file__).parent / "fixtures"
REPOS = ("python_repo", "rust_repo", "go_repo", "js_repo", "java_repo", "analysis_python")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture repositories indexed once into SQLite."""
    db = tmp_path_factory.mktemp("saved") / "corpus.sqlite"
    with SQLiteStore(db) as store:
        for name in REPOS:
            for snapshot in resolve(str(FIXTURES / name), SourceOptions()):
                index_snapshot(snapshot, store)
    return db


@pytest.fixture(params=["sqlite", "memory", "postgresql"])
def store(request: pytest.FixtureRequest, corpus: Path, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each backend holding the corpus (its snapshots copied over)."""
    backend: Store
    if request.param == "sqlite":
        backend = SQLiteStore(tmp_path / "copy.sqlite")
    elif request.param == "memory":
        backend = MemoryStore()
    else:  # a real server (tests/postgres_server.py)
        backend = PostgresStore(request.getfixturevalue("postgres_url"))
    with SQLiteStore(corpus, create=False) as source:
        for repo in source.repos():
            _copy_snapshot(source, backend, repo.repo)
    yield backend
    backend.close()


def _copy_snapshot(source: Store, target: Store, repo: str,
                   extra: tuple[Record, ...] = ()) -> None:
    records = [source.record(row.id) for row in source.records(repo)]
    snapshot = Snapshot(repo=repo, commit=None, commit_date=None, version=None,
                        root="/nonexistent", url_base=None)
    summary = IndexSummary(repo, None, 0, (), (), len(records) + len(extra), 0, 0.0)
    target.replace_snapshot(snapshot, summary, [*records, *extra])


def _pastes(entries: list[MatchEntry]) -> list[str]:
    """Each template filled with values, bare, under its type, inside a traceback that
    names its site, with a word dropped and cut short; plus text no template holds."""
    rng = random.Random(3)
    values = ["[4, 8]", "'llama'", "7", "BF16", "/data/model.bin", "", "x y"]
    out: list[str] = []
    for e in entries:
        t = e.template
        text = t.literals[0] + "".join(rng.choice(values) + lit for lit in t.literals[1:])
        kind = (e.exception or "Error").rsplit(".", 1)[-1]
        path, line = e.sites[0] if e.sites else ("a.py", 1)
        words = text.split(" ")
        out += [text, f"{kind}: {text}",
                f'Traceback (most recent call last):\n  File "/venv/{path}", line {line}, '
                f"in run\n    raise\n{kind}: 'some_key'",
                " ".join(words[:1] + words[2:]), text[: max(12, len(text) // 2)]]
    out += ["nothing here matches anything at all", "panicked at src/lib.rs:1:1:\nboom"]
    return out


def _answers(matcher: Matcher, pastes: list[str]) -> list[list[Any]]:
    return [[(m.record_id, m.score, m.exact, m.values, m.span, m.why, m.site_index)
             for m in matcher.match(text, limit=5)] for text in pastes]


def test_a_saved_matcher_answers_every_paste_as_a_fresh_build(store: Store) -> None:
    fresh = Matcher(store.match_entries())
    assert len(fresh.entries) > 50
    pastes = _pastes(list(fresh.entries))
    expected = _answers(fresh, pastes)
    assert sum(bool(found) for found in expected) > len(fresh.entries)  # most are found
    built = load_matcher(store)  # nothing saved yet: built, and saved
    state = store.matcher_state()
    assert store.saved_matcher(state) is not None
    restored = load_matcher(store)
    assert len(restored.entries) == len(fresh.entries)
    assert _answers(restored, pastes) == expected
    assert _answers(built, pastes) == expected
    assert list(restored.entries) == list(fresh.entries)
    assert sorted(restored.scan_keys()) == sorted(fresh.scan_keys())


def test_a_reindex_makes_the_saved_matcher_stale(store: Store, corpus: Path) -> None:
    load_matcher(store)
    before = store.matcher_state()
    assert store.saved_matcher(before) is not None
    message = "the grid holds no row called {name!r} after reindexing"
    with SQLiteStore(corpus, create=False) as source:
        repo = source.repos()[0].repo
        some = source.record(source.records(repo)[0].id)
        extra = _record_with(some, message)
        _copy_snapshot(source, store, repo, (extra,))
    after = store.matcher_state()
    assert after != before
    assert store.saved_matcher(before) is None and store.saved_matcher(after) is None
    found = load_matcher(store).match("the grid holds no row called 'zz' after reindexing")
    assert found and found[0].record_id == extra.id and found[0].exact
    again = load_matcher(store)  # saved for the new state, and read back
    assert store.saved_matcher(after) is not None
    assert again.match("the grid holds no row called 'zz' after reindexing")[0].record_id \
        == extra.id


def _record_with(like: Record, message: str) -> Record:
    """A record of a new message `... {name!r} ...`, shaped like `like` (its site moved
    to a line of its own)."""
    head, tail = message.split("{name!r}")
    template = Template(message, (head, tail), (Placeholder("name", "name", "!r"),))
    site = replace(like.sites[0], template=template, line=9_999, end_line=9_999)
    return replace(like, id=record_id(like.repo, template), template=template,
                   sites=(site,), site_urls=(None,))


@pytest.mark.parametrize("damage", ["truncated", "flipped", "format", "magic", "empty"])
def test_damaged_saved_bytes_are_rebuilt_with_one_note(
    store: Store, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    good = load_matcher(store)
    state = store.matcher_state()
    data = store.saved_matcher(state)
    assert data is not None
    bad = {"truncated": data[: len(data) // 2],
           "flipped": data[:-40] + bytes([data[-40] ^ 0x55]) + data[-39:],
           "format": MAGIC + struct.pack("<I", FORMAT + 1) + data[len(MAGIC) + 4:],
           "magic": b"\x80\x04pickle" + data[10:],
           "empty": b""}[damage]
    assert store.save_matcher(state, bad)
    pastes = _pastes(list(good.entries))[:60]
    with caplog.at_level(logging.WARNING, logger="errdex.match"):
        rebuilt = load_matcher(store)
    notes = [r.getMessage() for r in caplog.records if r.name == "errdex.match"]
    assert len(notes) == 1 and "\n" not in notes[0] and "building it again" in notes[0]
    assert _answers(rebuilt, pastes) == _answers(good, pastes)
    assert store.saved_matcher(state) not in (None, bad)  # and saved again, sound


def test_sound_bytes_with_out_of_range_numbers_are_refused(store: Store) -> None:
    """Bytes whose digest is right but whose numbers point past the entries (what only a
    writer that meant it makes) are refused as a whole, before any matching."""
    matcher = Matcher(store.match_entries())
    state = store.matcher_state()
    data = dump_matcher(matcher, state)
    body = data[len(MAGIC) + 4 + 32:]
    (size,) = struct.unpack_from("<I", body)
    header = json.loads(body[4 : 4 + size])
    header["entries"] = 3  # far fewer entries than the postings name
    new_header = json.dumps(header).encode()
    new_body = struct.pack("<I", len(new_header)) + new_header + body[4 + size:]
    forged = (MAGIC + struct.pack("<I", FORMAT)
              + hashlib.blake2b(new_body, digest_size=32).digest() + new_body)
    with pytest.raises(SavedMatcherError) as caught:
        load_saved(forged, state)
    assert not caught.value.stale
    with pytest.raises(SavedMatcherError) as other:
        load_saved(data, state + "x")
    assert other.value.stale


def test_explain_batch_starts_from_the_saved_matcher_and_notes_a_corrupt_one(
    corpus: Path, tmp_path: Path
) -> None:
    db = tmp_path / "batch.sqlite"
    db.write_bytes(corpus.read_bytes())
    with SQLiteStore(db, create=False) as store:
        entry = next(e for e in store.match_entries() if len(e.template.literals[0]) > 20
                     and "\n" not in e.template.message)
        state = store.matcher_state()
        assert store.saved_matcher(state) is None
    t = entry.template
    text = t.literals[0] + "".join("7" + lit for lit in t.literals[1:])
    batch = tmp_path / "one.txt"
    batch.write_text(json.dumps({"text": text}) + "\n")

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "errdex", "--db", str(db), "explain",
                               "--batch", str(batch)], capture_output=True, text=True,
                              check=False)

    first = run()
    assert first.returncode == 0, first.stderr
    with SQLiteStore(db, create=False) as store:
        saved = store.saved_matcher(state)
        assert saved is not None
        assert store.save_matcher(state, saved[:-100])
    second = run()
    assert second.returncode == 0
    assert second.stdout == first.stdout
    assert second.stderr.count("\n") == 1 and "truncated or corrupt" in second.stderr
    assert "Traceback" not in second.stderr
    third = run()
    assert third.stdout == first.stdout and third.stderr == ""
    with Explainer(db, mode=MatcherMode.KEPT) as explainer:
        assert explainer.explain(text)["matches"][0]["id"] == entry.record_id
