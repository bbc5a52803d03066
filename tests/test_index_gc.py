"""Indexing takes the extractions out of the cyclic collector's way while it runs and
leaves the process's collector as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import MemoryStore

FIXTURES = Path(__file__).parent / "fixtures"


def _index() -> int:
    (snapshot,) = resolve(str(FIXTURES / "rust_repo"), SourceOptions(repo="o/rust"))
    store = MemoryStore()
    return index_snapshot(snapshot, store, workers=1).records


def test_nothing_stays_frozen_after_an_index() -> None:
    assert gc.get_freeze_count() == 0
    assert _index() > 0
    assert gc.get_freeze_count() == 0


def test_what_the_process_froze_stays_frozen() -> None:
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        assert _index() > 0
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()
