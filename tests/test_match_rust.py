"""Rust error output in every shape a user pastes: `Error: ...` with a `Caused by:` chain,
panics (new and old format, with `note:` lines and a stack backtrace), anyhow's `Stack
backtrace:`, and Debug-formatted error values (compact, `{:#?}`, inside `unwrap()`'s
panic, wrapped in a backtrace carrier, a `Msg("...")` string)."""

from __future__ import annotations

import pytest

from errdex.match import Matcher
from tests.test_match import BINARY, DTYPE, KV, LOADING, SHAPE, entry

NARROW = entry("narrow", "{op}: start {start|} + len {len|} > dim_len {dim_len|}")
CRATE_BACKTRACE = (
    "stack backtrace:\n"
    "   0: rust_begin_unwind\n"
    "             at /rustc/82e1608dfa6e0b5569232559e3d385fea5a93112/library/std/src/"
    "panicking.rs:645:5\n"
    "   1: candle_core::tensor::Tensor::narrow\n"
    "             at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
    "candle-core-0.8.0/src/tensor.rs:812:13\n"
    "   2: app::main\n"
    "             at ./src/main.rs:10:5\n"
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
)

SHAPES: dict[str, tuple[str, list[str], dict[str, str]]] = {
    # name: (pasted text, records expected, the first one on top; values of the top match)
    "error with caused-by chain": (
        "Error: cannot load weights from /models/llama.safetensors\n\n"
        "Caused by:\n"
        "    0: shape mismatch k [2, 16, 8, 64] and v [2, 32, 8, 64]\n"
        "    1: only kv-repeat = 1 is supported\n",
        ["loading", "shape", "kv"],
        {"path": "/models/llama.safetensors"},
    ),
    "caused-by with one cause, no index": (
        "Error: cannot load weights from w.bin\n\n"
        "Caused by:\n    only kv-repeat = 1 is supported\n",
        ["loading", "kv"],
        {"path": "w.bin"},
    ),
    "panic, new format": (
        "thread 'main' panicked at src/main.rs:10:5:\n"
        "shape mismatch k [1, 2] and v [1, 3]\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        ["shape"],
        {"k": "[1, 2]", "v": "[1, 3]"},
    ),
    "panic, old format": (
        "thread 'main' panicked at 'shape mismatch k [1] and v [2]', src/main.rs:10:5\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        ["shape"],
        {"k": "[1]", "v": "[2]"},
    ),
    "panic with a stack backtrace": (
        "thread 'main' panicked at src/main.rs:10:5:\n"
        "narrow: start 4 + len 8 > dim_len 10\n" + CRATE_BACKTRACE,
        ["narrow"],
        {"op": "narrow", "start": "4", "len": "8", "dim_len": "10"},
    ),
    "anyhow error with stack backtrace": (
        "Error: shape mismatch k [3] and v [4]\n\n"
        "Stack backtrace:\n"
        "   0: anyhow::error::<impl anyhow::Error>::msg\n"
        "             at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
        "anyhow-1.0.86/src/error.rs:83:36\n"
        "   1: app::main\n",
        ["shape"],
        {"k": "[3]", "v": "[4]"},
    ),
    "debug value, compact": (
        'Error: ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4], op: "add" }',
        ["binary"],
        {"lhs": "[2, 3]", "rhs": "[4]", "op": "add"},
    ),
    "debug value, pretty": (
        "Error: ShapeMismatchBinaryOp {\n"
        "    lhs: [\n        2,\n        3,\n    ],\n"
        "    rhs: [\n        4,\n    ],\n"
        '    op: "mul",\n'
        "}\n",
        ["binary"],
        {"op": "mul"},
    ),
    "unwrap on an Err debug value": (
        "thread 'main' panicked at src/main.rs:4:38:\n"
        "called `Result::unwrap()` on an `Err` value: UnexpectedDType(F16)\n",
        ["dtype"],
        {"dtype": "F16"},
    ),
    "debug value inside a backtrace carrier": (
        "Error: WithBacktrace { inner: ShapeMismatchBinaryOp { lhs: [1], rhs: [2], "
        'op: "sub" }, backtrace: Backtrace [] }',
        ["binary"],
        {"lhs": "[1]", "rhs": "[2]", "op": "sub"},
    ),
    "message string inside a debug value": (
        'Error: Context { context: "cannot load weights from /m/x.bin", '
        'source: Msg("only kv-repeat = 1 is supported") }',
        ["loading", "kv"],
        {"path": "/m/x.bin"},
    ),
}


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher([SHAPE, KV, BINARY, DTYPE, LOADING, NARROW])


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_rust_shape_is_matched(matcher: Matcher, name: str) -> None:
    text, expected, values = SHAPES[name]
    matches = [m for m in matcher.match(text, limit=10) if m.exact]
    assert matches[0].record_id == expected[0]
    assert {m.record_id for m in matches} >= set(expected)
    top = dict(matches[0].values)
    assert {k: top.get(k) for k in values} == values
    start, end = matches[0].span
    assert 0 <= start < end <= len(text)
