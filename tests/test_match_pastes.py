"""What real pastes hold that a template alone doesn't: Debug values inside panics,
wrappers, log strings and cut off (class 2 of issue 17), traceback frames that decide the
site (6), pastes holding only part of a message (7), and matches that explain nothing
(8). Fixture templates written for these tests; each case is a shape seen in pastes."""

from __future__ import annotations

from errdex.match import Matcher
from errdex.models import MatchEntry
from tests.test_match import entry

BINARY = entry("binary", "shape mismatch in {op}, lhs: {lhs|:?}, rhs: {rhs|:?}",
               "Error::ShapeMismatchBinaryOp", variant="ShapeMismatchBinaryOp",
               variant_fields=("lhs", "rhs", "op"))
DTYPE_OP = entry("dtype-op", "unsupported dtype {0|:?} for op {1}",
                 "Error::UnsupportedDTypeForOp", variant="UnsupportedDTypeForOp",
                 variant_fields=("0", "1"))
MISSING = entry("missing", "cannot find tensor {path}", "Error::CannotFindTensor",
                variant="CannotFindTensor", variant_fields=("path",))
RUST = Matcher([BINARY, DTYPE_OP, MISSING])


def _top(matcher: Matcher, text: str) -> tuple[str, bool, dict[str, str]]:
    found = matcher.match(text)
    assert found, text
    return found[0].record_id, found[0].exact, dict(found[0].values)


# --- 2: Debug forms as they appear ---------------------------------------------------


def test_a_debug_value_inside_a_new_style_unwrap_panic() -> None:
    text = ("thread 'main' panicked at src/main.rs:4:5:\ncalled `Result::unwrap()` on an "
            '`Err` value: ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4], op: "add" }\n'
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace")
    assert _top(RUST, text) == ("binary", True, {"lhs": "[2, 3]", "rhs": "[4]", "op": "add"})


def test_a_debug_value_inside_an_old_style_panic_before_its_location() -> None:
    text = ("thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: "
            'ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4], op: "add" }\', src/main.rs:4:5')
    assert _top(RUST, text)[:2] == ("binary", True)


def test_a_debug_value_nested_in_wrappers_and_a_tuple_variant() -> None:
    nested = ("Error: WithBacktrace { inner: Wrapped(ShapeMismatchBinaryOp { lhs: [2, 3], "
              'rhs: [4], op: "add" }), backtrace: Backtrace [] }')
    assert _top(RUST, nested)[:2] == ("binary", True)
    assert _top(RUST, 'Error: UnsupportedDTypeForOp(F16, "conv2d")') == (
        "dtype-op", True, {"0": "F16", "1": "conv2d"})


def test_a_debug_value_escaped_inside_a_quoted_log_string() -> None:
    logfmt = ('ts=2024-05-01T10:00:00Z level=error msg="load failed: CannotFindTensor '
              '{ path: \\"model.embed.weight\\" }"')
    assert _top(RUST, logfmt) == ("missing", True, {"path": "model.embed.weight"})
    as_json = '{"level":"error","err":"CannotFindTensor { path: \\"a.b\\" }"}'
    assert _top(RUST, as_json) == ("missing", True, {"path": "a.b"})


def test_a_debug_value_cut_off_is_found_by_its_variant_with_the_fields_present() -> None:
    cut = "Error: WithBacktrace { inner: Wrapped(ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4"
    record, _, values = _top(RUST, cut)
    assert record == "binary" and values == {"lhs": "[2, 3]"}
    assert "ends inside it" in RUST.match(cut)[0].why
    assert _top(RUST, "Error: WithBacktrace { inner: Wrapped(CannotFindTensor")[0] == "missing"
    # a cut value of no known variant finds nothing; a plain cut list is no Debug value
    assert not RUST.match("Error: WithBacktrace { inner: Wrapped(SomethingElse { a: 1")
    assert not RUST.match("Expected [58, 35")


# --- 6: frames first -----------------------------------------------------------------

TWIN_A = entry("twin-a", "invalid header: {reason}", "ValueError", (("pkg/reader.py", 40),))
TWIN_B = entry("twin-b", "invalid header: {reason}!", "ValueError", (("pkg/writer.py", 88),))
LOOKUP = entry("lookup", "{key}", "KeyError", (("pkg/registry.py", 12),))
OTHER_KEY = entry("other-key", "{name}", "KeyError", (("pkg/cache.py", 70),))
OLD = entry("old", "could not parse the config file {path}", "ValueError",
            (("pkg/config.py", 31),))


def _traceback(path: str, line: int, last: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/srv/app/main.py", line 3, in <module>\n    run()\n'
            f'  File "/venv/lib/python3.11/site-packages/{path}", line {line}, in f\n'
            "    raise Whatever(...)\n" + last + "\n")


def test_the_innermost_frame_picks_the_site_among_equal_texts() -> None:
    m = Matcher([TWIN_A, TWIN_B])
    # `invalid header: x!` fits both (the first with `x!` in its hole); the frame decides
    assert _top(m, _traceback("pkg/writer.py", 88, "ValueError: invalid header: x!"))[0] == (
        "twin-b")
    assert _top(m, _traceback("pkg/reader.py", 40, "ValueError: invalid header: x!"))[0] == (
        "twin-a")


def test_a_rich_boxed_traceback_gives_its_innermost_frame() -> None:
    box = ("╭──────── Traceback (most recent call last) ────────╮\n"
           "│ /srv/app/main.py:12 in <module>                    │\n"
           "│ ❱ 12 │   write(header)                             │\n"
           "│ /venv/lib/python3.11/site-packages/pkg/writer.py:88 in write │\n"
           '│ ❱ 88 │   raise ValueError(f"invalid header: {x}!") │\n'
           "╰────────────────────────────────────────────────────╯\n"
           "ValueError: invalid header: x!")
    found = Matcher([TWIN_A, TWIN_B]).match(box)
    assert found[0].record_id == "twin-b" and found[0].site_index == 0
    assert "traceback frame" in found[0].why


def test_a_value_only_message_is_resolved_by_its_frame() -> None:
    m = Matcher([LOOKUP, OTHER_KEY])
    record, exact, values = _top(m, _traceback("pkg/cache.py", 70, "KeyError: 'llama'"))
    assert (record, exact, values) == ("other-key", True, {"name": "'llama'"})
    assert m.match(_traceback("pkg/cache.py", 70, "KeyError: 'llama'"))[0].site_index == 0


def test_a_frame_at_the_site_beats_wording_that_changed() -> None:
    """A nearby version's wording: the frame names the raising line, text alone the
    closest template; the frame's record comes first, flagged not exact."""
    m = Matcher([OLD, entry("similar", "could not parse the file {path} as config",
                            "ValueError", (("pkg/other.py", 9),))])
    text = _traceback("pkg/config.py", 31, "ValueError: failed to parse config file x.toml")
    found = m.match(text)
    assert found[0].record_id == "old" and not found[0].exact
    assert "innermost frame" in found[0].why


def test_equal_texts_of_two_libraries_say_the_text_cannot_tell_them_apart() -> None:
    a = entry("a", "connection pool is full, discarding connection: {host}")
    b = MatchEntry("b", "other/lib", None, a.template, (), language="python")
    found = Matcher([a, b]).match("connection pool is full, discarding connection: db1")
    assert {f.record_id for f in found} == {"a", "b"}
    assert "the text alone fits a record of" in found[0].why


# --- 7: partial pastes ---------------------------------------------------------------

LONG = entry("long", "You are trying to save a non contiguous tensor: `{name}` which is not "
             "allowed. It either means you are trying to save tensors which are reference "
             "of each other, or simply call `.contiguous()` on your tensor to pack it.")
STATUS = entry("status", "Command {cmd|!r} returned non-zero exit status {code}.",
               "CalledProcessError")
LOOKALIKE = entry("lookalike", "Command {cmd} returned non-zero exit status {code}",
                  "ValueError")
PARAGRAPHS = entry("paragraphs", "\n        An attempt has been made to start a new process "
                   "before the\n        current process has finished its bootstrapping "
                   "phase.\n\n        To fix this issue, refer to the docs.\n        ",
                   "RuntimeError")
PARTIAL = Matcher([LONG, STATUS, LOOKALIKE, PARAGRAPHS])


def test_a_long_template_of_which_the_paste_holds_the_beginning_cut_mid_word() -> None:
    text = ("You are trying to save a non contiguous tensor: `enc.layer.0.weight` \nwhich "
            "is not allowed. It either means you are trying to save tens")
    found = PARTIAL.match(text)
    assert found[0].record_id == "long" and not found[0].exact
    assert "partial paste" in found[0].why
    assert 0.3 < found[0].score < 1.0  # the share of the template the text holds


def test_a_message_cut_at_its_end_is_found_by_the_type_it_names() -> None:
    text = ("subprocess.CalledProcessError: Command '['cmake', '--build', '.']' returned "
            "non-zero exit status 2")  # the final period was not pasted
    found = PARTIAL.match(text)
    assert found[0].record_id == "status" and not found[0].exact
    assert "lookalike" in {f.record_id for f in found}  # exact, but of another type


def test_a_multi_paragraph_message_from_an_older_version() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/usr/lib/python3.8/multiprocessing/spawn.py", line 134, in check\n'
            "    raise RuntimeError('''\nRuntimeError:\n"
            "        An attempt has been made to start a new process before the\n"
            "        current process has finished its bootstrapping phase.\n\n"
            "        This probably means that you are not using fork.\n")
    found = PARTIAL.match(text)
    assert found[0].record_id == "paragraphs" and not found[0].exact


# --- 8: matches that explain nothing -------------------------------------------------

RUNTIME = entry("runtime", "{msg}", "ValueError", (("lib/util.py", 5),))
PREFIX_ONLY = entry("prefix-only", "ReadError: {message}", None, (("lib/cli.py", 9),))
READ = entry("read", "file could not be opened successfully:\n{summary}", "ReadError",
             (("lib/archive.py", 30),))


def test_a_type_alone_does_not_explain_a_sentence() -> None:
    m = Matcher([RUNTIME])
    assert m.match("ValueError: invalid literal for int() with base 10: 'abc'") == []
    # a value alone is what `raise ValueError(value)` prints: that it explains
    assert _top(m, "ValueError: 'abc'")[:2] == ("runtime", True)


def test_a_template_whose_fixed_text_is_the_exception_name_explains_nothing() -> None:
    found = Matcher([PREFIX_ONLY, READ]).match(
        "tarfile.ReadError: file could not be opened successfully")
    assert found[0].record_id == "read"


def test_unrelated_text_gets_no_match_at_all() -> None:
    m = Matcher([LONG, STATUS, LOOKALIKE, PARAGRAPHS, RUNTIME, BINARY, MISSING])
    for text in ("the moon is made of cheese", "RuntimeError: CUDA out of memory",
                 "panic: runtime error: invalid memory address or nil pointer dereference"):
        assert m.match(text) == [], text
