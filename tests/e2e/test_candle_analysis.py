"""Grounded analysis on huggingface/candle at the pinned commit: the kv-repeat page states
the requirement and that the value comes from the config, the `k`/`v` head-dims page
lists its sibling checks in order, and no page names anything the code lacks.

Needs a checkout of candle at the pinned commit (ERRDEX_CANDLE, else /work/candle)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex.analyze.check import check_store
from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.e2e.test_candle import CANDLE, PINNED, _head

pytestmark = pytest.mark.skipif(_head() != PINNED, reason=f"no candle checkout at {PINNED}")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    (snapshot,) = resolve(str(CANDLE), SourceOptions(repo="huggingface/candle"))
    db = SQLiteStore(Path(tmp_path_factory.mktemp("candle")) / "candle.sqlite")
    index_snapshot(snapshot, db)
    return db


def _record(store: SQLiteStore, message: str) -> dict[str, Any]:
    (row,) = [row for row in store.records() if row.message == message]
    return record_to_dict(store.record(row.id))


def test_kv_repeat_requirement_comes_from_the_config(store: SQLiteStore) -> None:
    record = _record(store, "only kv-repeat = 1 is supported")
    first = record["facts"]["sites"][0]
    assert first["requirement"] == "`kv_repeat` must be 1"
    assert [(o["expression"], o["source"], o["line"]) for o in first["origins"]] == [
        ("cfg.kv_repeat", "Config.kv_repeat", 137)]
    assert record["explanation"]["summary"].startswith("`kv_repeat` must be 1")
    assert ("`kv_repeat` is copied from `cfg.kv_repeat`, i.e. the `kv_repeat` field of "
            "`Config`") in record["explanation"]["what_it_means"]
    assert "StreamingTransformer::forward" in [
        e["function"] for e in first["entry_points"]]
    history = record["facts"]["history"]
    assert history["introduced_commit"].startswith("c58c5d5b01")
    assert history["introduced_tag"] == "0.7.0"


def test_kv_head_dims_lists_its_sibling_checks(store: SQLiteStore) -> None:
    record = _record(store, "`k` and `v` head dims must match")
    (site,) = record["facts"]["sites"]
    assert site["requirement"] == "`v_l` and `k_l` must have the same third-to-last dimension"
    assert [(s["line"], s["position"], s["message"]) for s in site["siblings"]][:4] == [
        (1060, "before", "`q` and `k` last dims must match"),
        (1070, "after", "query `n_heads` must be a multiple of `n_kv_heads`"),
        (1098, "after", "Meta SDPA does not support q head dim {q_head}: q dims {:?}, "
                        "k dims {:?}, v dims {:?}."),
        (1106, "after", "Meta SDPA does not support q dims {:?}, k dims {:?}, v dims {:?}."),
    ]
    assert [o["source"] for o in site["origins"]] == ["shape of `v_l`", "shape of `k_l`"]


def test_check_finds_no_unknown_names(store: SQLiteStore) -> None:
    report = check_store(store, "huggingface/candle")
    assert report["records"] >= 942
    assert report["unknown"] == []
