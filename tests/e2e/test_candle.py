"""huggingface/candle, the first real corpus: its three seed errors as records at exactly
the seed pages' lines, and the seed paste explained with its values bound.

Needs a checkout of candle at the pinned commit (fetched separately, never committed):
ERRDEX_CANDLE, else /work/candle. Skipped where there is none.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.match import load_matcher
from errdex.service import explain_text
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

PINNED = "2a13b0f3ff62f7e67013597f2996f764c5735e21"
CANDLE = Path(os.environ.get("ERRDEX_CANDLE", "/work/candle"))


def _head() -> str | None:
    if not CANDLE.is_dir():
        return None
    done = subprocess.run(["git", "-C", str(CANDLE), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


pytestmark = pytest.mark.skipif(_head() != PINNED, reason=f"no candle checkout at {PINNED}")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SQLiteStore:
    (snapshot,) = resolve(str(CANDLE), SourceOptions(repo="huggingface/candle"))
    db = SQLiteStore(tmp_path_factory.mktemp("candle") / "candle.sqlite")
    index_snapshot(snapshot, db)
    return db


def _record_for(store: SQLiteStore, message: str) -> dict[str, object]:
    (row,) = [row for row in store.records() if row.message == message]
    return record_to_dict(store.record(row.id))


@pytest.mark.parametrize(("message", "places"), [
    ("only kv-repeat = 1 is supported",
     [("candle-transformers/src/models/mimi/transformer.rs", 151),
      ("candle-transformers/src/models/mimi/transformer.rs", 280)]),
    ("`k` and `v` head dims must match", [("candle-nn/src/ops.rs", 1065)]),
    ("shape mismatch k {:?} and v {:?}", [("candle-flash-attn/src/lib.rs", 563)]),
])
def test_seed_errors_are_records_at_the_seed_lines(
    store: SQLiteStore, message: str, places: list[tuple[str, int]]
) -> None:
    record = _record_for(store, message)
    sites = record["sites"]
    assert isinstance(sites, list)
    assert [(s["path"], s["line"]) for s in sites] == places
    assert record["commit"] == PINNED
    assert sites[0]["url"] == (
        f"https://github.com/huggingface/candle/blob/{PINNED}/{places[0][0]}#L{places[0][1]}")


def test_kv_repeat_guard_and_function(store: SQLiteStore) -> None:
    record = _record_for(store, "only kv-repeat = 1 is supported")
    sites = record["sites"]
    assert isinstance(sites, list)
    assert sites[0]["guard"] == "self.kv_repeat != 1"
    assert sites[0]["function"] == "StreamingMultiheadAttention::forward"
    explanation = record["explanation"]
    assert isinstance(explanation, dict)
    assert "`kv_repeat` must be 1" in explanation["summary"]


def test_seed_paste_finds_the_flash_attn_record_with_values(store: SQLiteStore) -> None:
    result = explain_text(store, load_matcher(store),
                          "shape mismatch k [4, 16, 8, 64] and v [4, 32, 8, 64]")
    top = result["matches"][0]
    assert top["record"]["sites"][0]["path"] == "candle-flash-attn/src/lib.rs"
    assert top["values"] == {"k": "[4, 16, 8, 64]", "v": "[4, 32, 8, 64]"}
    assert top["exact"] is True


def test_debug_form_of_an_error_variant(store: SQLiteStore) -> None:
    result = explain_text(store, load_matcher(store), 'Error: ShapeMismatchBinaryOp '
                          '{ lhs: [2, 3], rhs: [4, 5], op: "matmul" }')
    top = result["matches"][0]
    assert top["record"]["exception"] == "Error::ShapeMismatchBinaryOp"
    assert top["values"] == {"op": "matmul", "lhs": "[2, 3]", "rhs": "[4, 5]"}
