"""Stored records are packed (errdex.store.packing): smaller, read back exactly, and a
database written before packing (records as text) still reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from errdex.errors import StoreError
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from errdex.store.packing import pack, unpack

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_packed_record_reads_back_exactly_and_is_smaller() -> None:
    text = json.dumps({"summary": "`n` must be at least 0 when calling `grid::pad`",
                       "sites": [{"path": "src/lib.rs", "line": 3}] * 20}, ensure_ascii=False)
    packed = pack(text + "é")
    assert unpack(packed) == text + "é"
    assert len(packed) < len(text) / 4
    assert unpack(text) == text  # a value stored as text, before packing


def test_a_value_packed_by_a_newer_errdex_is_one_clear_error() -> None:
    packed = bytearray(pack("{}"))
    packed[3] = 99  # the dictionary's number
    with pytest.raises(StoreError, match=r"packed with dictionary 99.*upgrade errdex"):
        unpack(bytes(packed))


def test_a_database_of_text_records_still_reads(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    (snapshot,) = resolve(str(FIXTURES / "python_repo"), SourceOptions(repo="o/py"))
    with SQLiteStore(db) as store:
        index_snapshot(snapshot, store, workers=1)
        wanted = {row.id: store.record_json(row.id) for row in store.records()}
    with sqlite3.connect(db) as conn:  # as an errdex before packing wrote them
        for record_id, text in wanted.items():
            conn.execute("UPDATE records SET data = ? WHERE id = ?", (text, record_id))
    with SQLiteStore(db) as store:
        assert {row.id: store.record_json(row.id) for row in store.records()} == wanted
        slug = json.loads(next(iter(wanted.values())))["failure_class"]["slug"]
        assert store.records_in_class(slug)
