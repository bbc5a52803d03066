"""Understanding pasted text: which parts are messages, and what surrounds them."""

from __future__ import annotations

import random
import traceback

import pytest

from errdex.match.paste import (
    PREFIX_RULES,
    DebugValue,
    Frame,
    Paste,
    _parse_general,
    _parse_one_line,
    parse_debug,
    parse_paste,
    strip_prefixes,
)
from tests.test_prefixes import BODIES, PREFIXES, generated_lines


def messages(paste: Paste) -> list[str]:
    return [paste.docs[g.doc].text[g.start : g.end] for g in paste.groups]


def test_rules_are_named_data_in_order() -> None:
    names = [rule.name for rule in PREFIX_RULES]
    assert len(names) == len(set(names))
    assert names.index("error_word") < names.index("exception_type")  # `Error:` has no type


@pytest.mark.parametrize(
    ("line", "exception"),
    [
        ("Error: boom", None),
        ("error: boom", None),
        ("ValueError: boom", "ValueError"),
        ("pkg.mod.SomeError: boom", "pkg.mod.SomeError"),
        ("called `Result::unwrap()` on an `Err` value: boom", None),
        ("[2024-01-01T00:00:00Z ERROR candle::model] boom", None),
        ("2024-01-01 12:00:00,123 ERROR boom", None),
        ("2024-01-01T10:00:00.5Z  WARN my_crate::sub: boom", None),
        ("ERROR:root:boom", None),
        ("ERROR - ValueError: boom", "ValueError"),
        ("    boom", None),
    ],
)
def test_prefixes_are_stripped(line: str, exception: str | None) -> None:
    found = strip_prefixes(line)
    assert line[found.start : found.end] == "boom"
    assert found.exception == exception


def test_a_message_with_a_colon_keeps_its_words() -> None:
    found = strip_prefixes("Expecting value: line 1 column 1 (char 0)")
    assert found.start == 0


def test_old_rust_panic_message_and_location() -> None:
    line = "thread 'main' panicked at 'index out of bounds: 3', src/lib.rs:10:5"
    found = strip_prefixes(line)
    assert line[found.start : found.end] == "index out of bounds: 3"
    assert found.frame == Frame("src/lib.rs", 10)


def test_new_rust_panic_message_on_following_lines() -> None:
    paste = parse_paste(
        "thread 'main' panicked at src/lib.rs:10:5:\n"
        "index out of bounds: 3\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
    )
    assert messages(paste) == ["index out of bounds: 3"]
    assert paste.groups[0].frame == Frame("src/lib.rs", 10)


def test_python_warning_gives_type_and_location() -> None:
    [group] = parse_paste("/srv/app/x.py:12: UserWarning: careful now").groups
    assert (group.exception, group.frame) == ("UserWarning", Frame("/srv/app/x.py", 12))


def _raise_chained() -> str:
    try:
        try:
            config: dict[str, int] = {}
            config["depth"]
        except KeyError as error:
            raise ValueError("bad config:\nsecond line") from error
    except ValueError:
        return traceback.format_exc()
    raise AssertionError("unreachable")


def test_a_real_chained_traceback() -> None:
    text = _raise_chained()
    paste = parse_paste(text)
    assert messages(paste) == ["'depth'", "bad config:\nsecond line"]
    first, second = paste.groups
    assert first.exception == "KeyError"
    assert second.exception == "ValueError"
    assert first.frame is not None and first.frame.path.endswith("test_paste.py")
    assert second.frame is not None and second.frame.line > first.frame.line
    for line in paste.docs[0].lines:
        body = text[line.start : line.end].strip()
        if body.startswith("File ") or (body and set(body) <= set("^~")):
            assert line.group == -1, body


def test_traceback_frames_caret_and_code_lines_are_structure() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode\n'
        "    obj, end = self.scan_once(s, idx)\n"
        "               ^^^^^^^^^^^^^^^^^^^^^^\n"
        "StopIteration: 0\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
    )
    paste = parse_paste(text)
    assert messages(paste) == ["0", "Expecting value: line 1 column 1 (char 0)"]
    assert paste.groups[0].frame == Frame("/usr/lib/python3.11/json/decoder.py", 355)
    assert paste.groups[1].frame == Frame("<stdin>", 1)
    assert paste.groups[1].exception == "json.decoder.JSONDecodeError"


def test_a_traceback_pasted_without_its_header() -> None:
    text = '  File "/x/y.py", line 4, in f\n    g()\nTypeError: no good\n'
    [group] = parse_paste(text).groups
    assert (group.exception, group.frame) == ("TypeError", Frame("/x/y.py", 4))


def test_caused_by_chain_each_cause_a_message() -> None:
    text = "Error: x failed\n\nCaused by:\n    0: y failed\n    1: z failed\n"
    assert messages(parse_paste(text)) == ["x failed", "y failed", "z failed"]


def test_rust_backtrace_lines_are_structure() -> None:
    text = (
        "Error: boom\n"
        "Stack backtrace:\n"
        "   0: anyhow::error::<impl anyhow::Error>::msg\n"
        "             at /cargo/anyhow/src/error.rs:83:36\n"
        "   1: main\n"
    )
    assert messages(parse_paste(text)) == ["boom"]


def test_log_lines_are_each_a_message() -> None:
    text = "2024-01-01 00:00:01 INFO started\n2024-01-01 00:00:02 ERROR it broke\n"
    assert messages(parse_paste(text)) == ["started", "it broke"]


def test_crlf_offsets_map_back() -> None:
    text = "a line\r\nError: boom\r\n"
    paste = parse_paste(text)
    doc = paste.docs[0]
    group = paste.groups[1]
    start, end = doc.span_to_original(group.start, group.end)
    assert text[start:end] == "boom"


# --- Rust Debug ---------------------------------------------------------------------------


def test_msg_string_becomes_its_own_unescaped_message() -> None:
    text = 'Error: WithBacktrace { inner: Msg("a \\"quoted\\" word\\n next"), backtrace: x }'
    paste = parse_paste(text)
    derived = paste.docs[1]
    assert derived.text == 'a "quoted" word\n next'
    start, end = derived.span_to_original(0, len(derived.text))
    assert text[start:end] == 'a \\"quoted\\" word\\n next'
    start, end = derived.span_to_original(2, 10)
    assert text[start:end] == '\\"quoted\\"'
    assert [hit.value.name for hit in paste.debug] == ["WithBacktrace", "Msg"]


def test_top_level_string_and_context_strings_are_messages() -> None:
    assert parse_paste('Error: "plain failure"').docs[1].text == "plain failure"
    paste = parse_paste('Error: Context { context: "while loading", error: Io(NotFound) }')
    assert [doc.text for doc in paste.docs[1:]] == ["while loading"]
    assert [hit.value.name for hit in paste.debug] == ["Context", "Io"]


def test_variant_fields_and_bindings() -> None:
    value = parse_debug('ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 5], op: "matmul" }')
    assert value is not None
    assert (value.kind, value.name) == ("struct", "ShapeMismatchBinaryOp")
    fields = {key: child.binding() for key, child in value.fields}
    assert fields == {"lhs": "[2, 3]", "rhs": "[4, 5]", "op": "matmul"}
    tuple_variant = parse_debug("UnexpectedDType(F32)")
    assert tuple_variant is not None
    assert [(k, v.binding()) for k, v in tuple_variant.fields] == [("0", "F32")]


def test_pretty_and_compact_debug_render_the_same() -> None:
    compact = parse_debug('Outer { a: [1, 2], b: Some("x"), c: {"k": 1} }')
    pretty = parse_debug(
        'Outer {\n    a: [\n        1,\n        2,\n    ],\n    b: Some(\n        "x",\n    ),\n'
        '    c: {\n        "k": 1,\n    },\n}'
    )
    assert isinstance(compact, DebugValue) and isinstance(pretty, DebugValue)
    assert compact.render() == pretty.render() == 'Outer { a: [1, 2], b: Some("x"), c: {"k": 1} }'


def test_pretty_debug_lines_are_not_separate_messages() -> None:
    text = 'Error: WithBacktrace {\n    inner: Msg(\n        "boom here",\n    ),\n}\nnext line'
    paste = parse_paste(text)
    main = [g for g in paste.groups if g.doc == 0]
    assert len(main) == 2  # the Debug value (all its lines) and "next line"
    assert paste.docs[1].text == "boom here"


@pytest.mark.parametrize("text", ["Foo(", "Foo { a: }", '"unterminated', "Foo { a: 1 ", "(" * 100])
def test_broken_debug_is_not_parsed(text: str) -> None:
    assert parse_debug(text) is None


def test_a_huge_line_is_scanned_once() -> None:
    text = "Error: " + "x" * 5_000_000
    paste = parse_paste(text)
    assert len(paste.groups) == 1
    assert paste.groups[0].end - paste.groups[0].start == 5_000_000


# --- the one-line fast path gives what the general scanner gives ------------------------


def _one_line_inputs() -> list[str]:
    lines = generated_lines(4000, seed=2) + PREFIXES + BODIES
    rng = random.Random(3)
    # Every line of real tracebacks and Rust output, alone.
    lines += _raise_chained().split("\n")
    lines += [
        "thread 'main' panicked at src/lib.rs:10:5:",
        "Error: WithBacktrace { inner: Msg(\"boom\"), backtrace: x }",
        'Error: Context { context: "while loading", error: Io(NotFound) }  ',
        "Error: WithBacktrace {",
        '"plain failure"',
        "ValueError: Foo(1) \t",
        "U8() got multiple values for argument [3, 3]",
        "Expected [58, 35]",
        "AssertionError: Expected [1, [2, 3]] \t",
        "Shape [2, (3, 4), {a: 5}]",
        'Shape [2, "a"]',
        "Dims [Foo { a: 1 }]",
        "Dims [Some(1)]",
        "x" * 300_000 + ' Foo("a")',
        'Foo("' + "a" * 250_000 + '")',
    ]
    lines += [line + rng.choice(["\r", "\r\r", " \r", ""]) for line in lines[:500]]
    return lines


def test_one_line_fast_path_equals_the_general_scanner() -> None:
    checked = 0
    for text in _one_line_inputs():
        assert "\n" not in text
        fast = _parse_one_line(text)
        general = _parse_general(text)
        if fast is not None:
            checked += 1
            assert fast == general, repr(text)
            assert repr(fast) == repr(general)
        assert parse_paste(text) == general, repr(text)
    assert checked > 3000  # the fast path is the usual one


def test_a_one_line_debug_value_with_nothing_inside_is_read_once() -> None:
    # `Expected [58, 35]` parses as a Debug value (a named list) but holds no message and
    # no variant: the fast path answers for it instead of handing it to the general one.
    for text in ("Expected [58, 35]", "ValueError: Shape [2, (3, 4)]"):
        fast = _parse_one_line(text)
        assert fast is not None and fast.groups[0].debug, text
    for text in ('Shape [2, "a"]', "Dims [Some(1)]", 'Msg("boom")'):
        assert _parse_one_line(text) is None, text


def test_multi_line_and_crlf_pastes_take_the_general_path() -> None:
    rng = random.Random(4)
    pool = _one_line_inputs()[:4000]
    for _ in range(500):
        text = rng.choice(["\n", "\r\n"]).join(rng.choice(pool) for _ in range(rng.randint(2, 4)))
        assert parse_paste(text) == _parse_general(text)
