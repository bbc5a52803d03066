"""The matching engine against synthetic entries: what a user pasting an error sees."""

from __future__ import annotations

import json
import re
import traceback

import pytest

from errdex.errors import EmptyInputError
from errdex.match import MatchEntry, Matcher
from errdex.models import Match, Placeholder, Template

_HOLE = re.compile(r"\{(\w+)(?:\|([^}]*))?\}")


def tpl(text: str) -> Template:
    """`shape mismatch k {k|:?}` -> literals and placeholders (name, spec after `|`)."""
    literals: list[str] = []
    holes: list[Placeholder] = []
    pos = 0
    for m in _HOLE.finditer(text):
        literals.append(text[pos : m.start()])
        holes.append(Placeholder(m.group(1), m.group(1), m.group(2) or ""))
        pos = m.end()
    literals.append(text[pos:])
    return Template(text, tuple(literals), tuple(holes))


def entry(
    record_id: str,
    text: str,
    exception: str | None = None,
    sites: tuple[tuple[str, int], ...] = (),
    variant: str | None = None,
    variant_fields: tuple[str, ...] = (),
    kind: str = "raise",
) -> MatchEntry:
    return MatchEntry(
        record_id=record_id,
        repo="example/lib",
        exception=exception,
        template=tpl(text),
        sites=sites,
        variant=variant,
        variant_fields=variant_fields,
        language="rust" if variant else "python",
        kind=kind,
    )


SHAPE = entry("shape", "shape mismatch k {k|:?} and v {v|:?}")
KV = entry("kv", "only kv-repeat = 1 is supported")
BINARY = entry(
    "binary",
    "shape mismatch in {op}, lhs: {lhs|:?}, rhs: {rhs|:?}",
    "Error::ShapeMismatchBinaryOp",
    variant="ShapeMismatchBinaryOp",
    variant_fields=("lhs", "rhs", "op"),
)
DTYPE = entry(
    "dtype", "unexpected dtype {dtype|:?}", variant="UnexpectedDType", variant_fields=("0",)
)
LOADING = entry("loading", "cannot load weights from {path}")
INVALID = entry("invalid", "invalid value {value|%d} for option {name|!r}", "ValueError")


def by_id(matches: list[Match]) -> dict[str, Match]:
    return {m.record_id: m for m in matches}


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher([SHAPE, KV, BINARY, DTYPE, LOADING, INVALID])


# --- one message ------------------------------------------------------------------------


def test_binds_values_of_a_plain_message(matcher: Matcher) -> None:
    text = "shape mismatch k [4, 16, 8, 64] and v [4, 32, 8, 64]"
    [best, *_] = matcher.match(text)
    assert best.record_id == "shape"
    assert best.exact
    assert best.values == (("k", "[4, 16, 8, 64]"), ("v", "[4, 32, 8, 64]"))
    assert best.span == (0, len(text))
    assert 0 < best.score <= 1


def test_a_template_that_is_the_whole_line_scores_one(matcher: Matcher) -> None:
    [best] = matcher.match("only kv-repeat = 1 is supported")
    assert (best.record_id, best.score, best.exact) == ("kv", 1.0, True)


@pytest.mark.parametrize(
    "prefix",
    [
        "Error: ",
        "error: ",
        "ValueError: ",
        "pkg.mod.SomeError: ",
        "called `Result::unwrap()` on an `Err` value: ",
        "[2024-01-01T00:00:00Z ERROR candle::model] ",
        "2024-01-01 12:00:00,123 ERROR ",
        "2024-01-01T00:00:00.123456Z ERROR my_crate::module: ",
        "ERROR:root:",
        "  ",
    ],
)
def test_recognised_prefixes_are_not_part_of_the_message(matcher: Matcher, prefix: str) -> None:
    message = "only kv-repeat = 1 is supported"
    [best] = matcher.match(prefix + message)
    assert best.record_id == "kv"
    assert best.span == (len(prefix), len(prefix) + len(message))
    assert best.score == 1.0


def test_a_leading_hole_starts_after_the_prefix() -> None:
    m = Matcher([entry("lead", "{name} is not a valid dtype")])
    [best] = m.match("[2024-01-01T00:00:00Z ERROR app] Error: bf17 is not a valid dtype")
    assert best.values == (("name", "bf17"),)


def test_rust_panics_new_and_old(matcher: Matcher) -> None:
    new = (
        "thread 'main' panicked at src/main.rs:10:5:\n"
        "only kv-repeat = 1 is supported\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
    )
    old = "thread 'main' panicked at 'only kv-repeat = 1 is supported', src/main.rs:10:5"
    for text in (new, old):
        [best] = matcher.match(text)
        assert best.record_id == "kv"
        assert text[best.span[0] : best.span[1]] == "only kv-repeat = 1 is supported"


def test_exception_type_in_the_prefix_breaks_ties() -> None:
    value = entry("as-value", "bad thing happened to {x}", "ValueError")
    type_ = entry("as-type", "bad thing happened to {x}", "TypeError")
    m = Matcher([value, type_])
    assert [r.record_id for r in m.match("TypeError: bad thing happened to 3")] == [
        "as-type",
        "as-value",
    ]
    first = m.match("mylib.errors.ValueError: bad thing happened to 3")[0]
    assert first.record_id == "as-value"
    assert "exception type ValueError agrees" in first.why


def test_typed_holes_reject_nonsense(matcher: Matcher) -> None:
    good = by_id(matcher.match("invalid value 12 for option 'depth'"))
    assert good["invalid"].values == (("value", "12"), ("name", "'depth'"))
    bad = by_id(matcher.match("invalid value twelve for option 'depth'"))
    assert not bad["invalid"].exact  # only the word overlap is left
    assert bad["invalid"].values == ()


def test_empty_values_only_where_the_format_can_print_nothing() -> None:
    m = Matcher([entry("s", "cannot open file {path} today"), entry("d", "bad shape {s|:?} now")])
    empty = by_id(m.match("cannot open file  today"))["s"]
    full = by_id(m.match("cannot open file x today"))["s"]
    assert empty.values == (("path", ""),)
    assert empty.score < full.score
    assert all(not r.exact for r in m.match("bad shape  now"))


def test_short_templates_must_cover_the_whole_line() -> None:
    m = Matcher([entry("short", "no {x}")])
    assert m.match("no way")[0].values == (("x", "way"),)
    assert m.match("there is no way out") == []


def test_holes_do_not_cross_lines_unless_pretty_debug() -> None:
    m = Matcher([entry("plain", "expected {a} but found {b} here")])
    assert all(not r.exact for r in m.match("expected 1\nbut found 2 here"))
    pretty = Matcher([entry("pretty", "expected {a|:#?} but found {b} here")])
    [best] = pretty.match("expected [\n    1,\n] but found 2 here")
    assert best.values == (("a", "[\n    1,\n]"), ("b", "2"))


def test_a_multi_line_template_matches() -> None:
    m = Matcher([entry("multi", "mismatched inputs:\n  left: {left}\n  right: {right}")])
    text = "Error: mismatched inputs:\n  left: 3\n  right: 4\n"
    [best] = m.match(text)
    assert best.values == (("left", "3"), ("right", "4"))
    assert text[best.span[0] : best.span[1]] == "mismatched inputs:\n  left: 3\n  right: 4"


def test_a_short_template_inside_a_longer_one_both_returned_longer_first() -> None:
    short = entry("short", "index out of range")
    long = entry("long", "index out of range for dimension {dim|%d}")
    [first, second] = Matcher([short, long]).match("index out of range for dimension 3")
    assert (first.record_id, second.record_id) == ("long", "short")
    assert first.score > second.score


def test_the_same_record_twice_keeps_its_best_occurrence(matcher: Matcher) -> None:
    text = "ERROR shape mismatch k [1] and v [2] (retrying)\nshape mismatch k [1] and v [3]"
    [best] = matcher.match(text)
    assert best.values == (("k", "[1]"), ("v", "[3]"))  # the second line is all message


def test_spans_point_into_the_original_text_with_crlf(matcher: Matcher) -> None:
    text = "INFO starting\r\nError: only kv-repeat = 1 is supported\r\n"
    [best] = matcher.match(text)
    assert text[best.span[0] : best.span[1]] == "only kv-repeat = 1 is supported"


def test_unknown_text_matches_nothing(matcher: Matcher) -> None:
    assert matcher.match("the weather is lovely today, nothing failed at all") == []


@pytest.mark.parametrize("blank", ["", "   ", "\n\t\n"])
def test_blank_input_is_an_error(matcher: Matcher, blank: str) -> None:
    with pytest.raises(EmptyInputError):
        matcher.match(blank)


def test_an_empty_index_matches_nothing() -> None:
    assert Matcher([]).match("anything at all") == []


def test_limit_caps_the_results() -> None:
    entries = [entry(f"e{i}", f"widget failure number {{n}} in zone{i}") for i in range(5)]
    text = "\n".join(f"widget failure number 7 in zone{i}" for i in range(5))
    m = Matcher(entries)
    assert len(m.match(text)) == 5
    assert len(m.match(text, limit=2)) == 2


# --- Rust Debug forms --------------------------------------------------------------------


def test_msg_string_is_unescaped_and_matched() -> None:
    m = Matcher([entry("quoted", 'cannot parse "{name}" as a dtype')])
    text = 'Error: WithBacktrace { inner: Msg("cannot parse \\"bf17\\" as a dtype"), backtrace: x }'
    [best] = m.match(text)
    assert best.values == (("name", "bf17"),)
    assert text[best.span[0] : best.span[1]] == 'cannot parse \\"bf17\\" as a dtype'


def test_variant_debug_form_binds_fields_by_name(matcher: Matcher) -> None:
    text = (
        "called `Result::unwrap()` on an `Err` value: "
        'ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 5], op: "matmul" }'
    )
    best = matcher.match(text)[0]
    assert best.record_id == "binary"
    assert best.exact
    assert best.values == (("op", "matmul"), ("lhs", "[2, 3]"), ("rhs", "[4, 5]"))
    assert text[best.span[0] : best.span[1]].startswith("ShapeMismatchBinaryOp {")


def test_pretty_debug_form_binds_the_same_values(matcher: Matcher) -> None:
    text = (
        "Error: ShapeMismatchBinaryOp {\n"
        "    lhs: [\n        2,\n        3,\n    ],\n"
        "    rhs: [\n        4,\n        5,\n    ],\n"
        '    op: "matmul",\n'
        "}\n"
    )
    best = matcher.match(text)[0]
    assert best.values == (("op", "matmul"), ("lhs", "[2, 3]"), ("rhs", "[4, 5]"))


def test_a_variant_with_other_fields_is_not_that_variant(matcher: Matcher) -> None:
    text = "Error: ShapeMismatchBinaryOp { left: [2, 3], right: [4, 5] }"
    assert "binary" not in by_id(matcher.match(text))


def test_context_and_tuple_variant_both_matched(matcher: Matcher) -> None:
    text = (
        'Error: Context { context: "cannot load weights from model.safetensors", '
        "error: UnexpectedDType(F32) }"
    )
    found = by_id(matcher.match(text))
    assert found["loading"].values == (("path", "model.safetensors"),)
    assert found["dtype"].values == (("dtype", "F32"),)


def test_caused_by_chain_matches_each_cause(matcher: Matcher) -> None:
    text = (
        "Error: cannot load weights from a.bin\n\n"
        "Caused by:\n"
        "    0: only kv-repeat = 1 is supported\n"
        "    1: shape mismatch k [1] and v [2]\n"
    )
    found = by_id(matcher.match(text))
    assert set(found) == {"loading", "kv", "shape"}
    assert found["shape"].values == (("k", "[1]"), ("v", "[2]"))


# --- Python tracebacks -------------------------------------------------------------------

JSON_TEMPLATE = "{msg}: line {lineno|%d} column {colno|%d} (char {pos|%d})"


def _json_traceback() -> tuple[str, str, int]:
    """A real traceback of json.loads("{"), and where its last frame points."""
    try:
        json.loads("{")
    except ValueError as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
        return traceback.format_exc(), last.filename, last.lineno or 0
    raise AssertionError("json.loads should have failed")


def test_traceback_frame_picks_the_site_it_points_at() -> None:
    text, path, line = _json_traceback()
    assert path.endswith("json/decoder.py")
    elsewhere = entry("elsewhere", JSON_TEMPLATE, "JSONDecodeError", (("json/decoder.py", 1),))
    here = entry(
        "here",
        JSON_TEMPLATE,
        "JSONDecodeError",
        (("json/scanner.py", 5), ("json/decoder.py", line)),
    )
    other_file = entry("other", JSON_TEMPLATE, "JSONDecodeError", (("yaml/decoder2.py", line),))
    matches = Matcher([elsewhere, other_file, here]).match(text)
    assert [m.record_id for m in matches] == ["here", "elsewhere", "other"]
    best = matches[0]
    assert best.site_index == 1
    assert f"traceback frame json/decoder.py:{line}" in best.why
    assert "exception type JSONDecodeError agrees" in best.why
    assert matches[1].site_index is None
    assert dict(best.values) == {
        "msg": "Expecting property name enclosed in double quotes",
        "lineno": "1",
        "colno": "2",
        "pos": "1",
    }
    assert text[best.span[0] : best.span[1]].startswith("Expecting property name")


def test_site_packages_frames_match_by_path_suffix() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 3, in <module>\n'
        "    Version(v)\n"
        '  File "/srv/venv/lib/python3.11/site-packages/packaging/version.py", line 202,'
        " in __init__\n"
        "    raise InvalidVersion(f\"Invalid version: '{version}'\")\n"
        "packaging.version.InvalidVersion: Invalid version: 'x.y'\n"
    )
    src = entry(
        "src",
        "Invalid version: {version|!r}",
        "InvalidVersion",
        (("src/packaging/version.py", 202),),
    )
    other = entry(
        "other",
        "Invalid version: {version|!r}",
        "InvalidVersion",
        (("src/packaging/specifiers.py", 202),),
    )
    [first, second] = Matcher([other, src]).match(text)
    assert (first.record_id, first.site_index) == ("src", 0)
    assert first.values == (("version", "'x.y'"),)
    assert second.record_id == "other"


def test_code_and_caret_lines_are_not_messages() -> None:
    m = Matcher([entry("code", "raise ValueError({msg})")])
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/m.py", line 3, in f\n'
        "    raise ValueError(msg)\n"
        "    ^^^^^^^^^^^^^^^^^^^^^\n"
        "ValueError: boom\n"
    )
    assert m.match(text) == []


def test_chained_exceptions_are_each_matched() -> None:
    try:
        try:
            json.loads("{")
        except ValueError as error:
            raise RuntimeError("could not read config settings.json") from error
    except RuntimeError:
        text = traceback.format_exc()
    first = entry("json", JSON_TEMPLATE, "JSONDecodeError")
    second = entry("config", "could not read config {name}", "RuntimeError")
    found = by_id(Matcher([first, second]).match(text))
    assert set(found) == {"json", "config"}
    assert found["config"].values == (("name", "settings.json"),)
    assert "RuntimeError agrees" in found["config"].why


def test_a_record_given_twice_is_returned_once_at_its_best() -> None:
    m = Matcher([entry("r", "{what} out of range"), entry("r", "index {i} out of range"),
                 entry("other", "out of range")])
    found = m.match("index 7 out of range")
    assert [r.record_id for r in found] == ["r", "other"]
    assert found[0].values == (("i", "7"),)


def test_a_multi_line_exception_message_matches() -> None:
    m = Matcher([entry("two", "bad config:\n  key {key} is unknown")])
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/m.py", line 3, in f\n'
        "    load()\n"
        "ValueError: bad config:\n"
        "  key 'depth' is unknown\n"
    )
    [best] = m.match(text)
    assert best.values == (("key", "'depth'"),)


# --- near misses -------------------------------------------------------------------------


def test_a_message_from_a_nearby_version_matches_approximately() -> None:
    m = Matcher(
        [
            entry("near", "the attention mask must be broadcastable to the scores shape {s|:?}"),
            entry("far", "tokenizer vocabulary file is missing from the repository"),
        ]
    )
    text = "the attention mask should be broadcastable to the logits shape [2, 3]"
    [best] = m.match(text)
    assert best.record_id == "near"
    assert not best.exact
    assert 0.5 <= best.score < 1
    assert best.span == (0, len(text))
    assert best.why.startswith("approximate")


def test_approximate_matches_rank_after_exact_ones() -> None:
    m = Matcher(
        [
            entry("exact", "only kv-repeat = 1 is supported"),
            entry("near", "the attention mask must be broadcastable to the scores"),
        ]
    )
    text = "only kv-repeat = 1 is supported\nthe attention mask should be broadcastable to scores"
    assert [(r.record_id, r.exact) for r in m.match(text)] == [("exact", True), ("near", False)]


def test_a_line_with_an_exact_match_gets_no_approximate_ones() -> None:
    m = Matcher(
        [
            entry("exact", "failed to open the model file {path}"),
            entry("near", "failed to open the tokenizer file {path}"),
        ]
    )
    assert [r.record_id for r in m.match("failed to open the model file a.bin")] == ["exact"]


def test_the_lines_of_a_multi_line_exact_match_get_no_approximate_ones() -> None:
    # Each line of a paste is a message of its own until a template spans them: the
    # second line, inside the exact match, must not be explained again by a near miss.
    m = Matcher(
        [
            entry("exact", "could not start the worker pool:\nthe child process {pid} has"
                  " finished its bootstrapping phase too early"),
            entry("near", "the child process has not finished its bootstrapping phase"),
        ]
    )
    text = ("could not start the worker pool:\nthe child process 4242 has finished its"
            " bootstrapping phase too early\nthe child process had not finished its"
            " bootstrapping phase")
    found = [(r.record_id, r.exact) for r in m.match(text)]
    assert found == [("exact", True), ("near", False)]
    assert m.match(text)[1].span[0] > text.index("early")  # the third line, not the second
    [only] = m.match(text[: text.index("early") + len("early")])
    assert only.record_id == "exact"


def test_among_near_misses_sharing_words_the_one_keeping_their_order_ranks_first() -> None:
    m = Matcher(
        [
            entry("qk", "shape mismatch q {:?} and k {:?}"),
            entry("qv", "shape mismatch q {:?} and v {:?}"),
            entry("kv", "shape mismatch k {:?} and v {:?}"),
        ]
    )
    found = m.match("shape mismatch k [4, 16] and value [4, 32]")
    assert (found[0].record_id, found[0].exact) == ("kv", False)


def test_an_error_ranks_before_a_line_the_library_prints_beside_it() -> None:
    """cobra prints its usage hint after the error, and an application may print the
    error again: the error is what the paste is about, wherever the hint is."""
    m = Matcher([entry("hint", "Run '{cmd} --help' for usage.", kind="log"),
                 entry("unknown", "unknown command {name} for {cmd}", kind="bail")])
    for text in ('Error: unknown command "serve" for "halcyon"\n'
                 "Run 'halcyon --help' for usage.",
                 "Run 'halcyon --help' for usage.\n"
                 'unknown command "serve" for "halcyon"'):
        assert [f.record_id for f in m.match(text)] == ["unknown", "hint"], text
    # Alone, the printed line is still found.
    assert [f.record_id for f in m.match("Run 'halcyon --help' for usage.")] == ["hint"]


def test_a_near_miss_that_explains_more_of_the_message_ranks_first() -> None:
    """An older wording of one of two throws (pybind11's cast error before 2.10): the short
    template's words are nearly all in the message, but only the longer one explains the
    message's own tail, so the longer one is the nearest record."""
    m = Matcher(
        [
            entry("detailed", "Unable to cast Python instance of type {t} to C++ type '{u}'"),
            entry("plain", "Unable to cast Python instance of type {t} to C++ type '?' "
                           "(#define DETAILED_ERROR_MESSAGES or compile in debug mode for "
                           "details)"),
        ]
    )
    found = m.match("RuntimeError: Unable to cast Python instance to C++ type "
                    "(compile in debug mode for details)")
    assert [(f.record_id, f.exact) for f in found][:2] == [("plain", False), ("detailed", False)]
    # A message that is the short wording with a word changed still finds the short one.
    found = m.match("Unable to cast Python object of type list to C++ type 'Variable'")
    assert found[0].record_id == "detailed"


# --- hostile input -----------------------------------------------------------------------


def test_a_huge_single_line_stays_linear(matcher: Matcher) -> None:
    text = ("x" * 1000 + " shape mismatch k ") * 10_000  # 10 MB, one line, many anchors
    matches, stats = matcher.match_with_stats(text)
    assert stats.work <= 50 * len(text)
    assert all(not r.exact for r in matches)  # no " and v " anywhere


def test_a_run_of_one_letter_against_templates_of_that_letter() -> None:
    entries = [
        entry("a1", "aaaaaaaaaa{x}aaaaaaaaaa{y}aaaaaaaaaa"),
        entry("a2", "{x}aaaa{y|%d}aaaa"),
        entry("a3", "aaaaaaaa aaaaaaaa {x} aaaaaaaa"),
        entry("a4", "a{x}a"),
    ]
    text = "a" * 10**6
    matches, stats = Matcher(entries).match_with_stats(text)
    assert stats.work <= 50 * len(text)
    assert {m.record_id for m in matches} <= {"a1", "a4"}


def test_many_repeated_anchors_are_capped() -> None:
    m = Matcher([SHAPE])
    line = "shape mismatch k [1] and v [2]\n"
    matches, stats = m.match_with_stats(line * 20_000)
    assert stats.verifications <= 100
    assert stats.work <= 50 * len(line) * 20_000
    assert [x.record_id for x in matches] == ["shape"]


def test_many_templates_sharing_an_anchor_are_bounded() -> None:
    entries = [entry(f"t{i}", f"common failure prefix here {{x}} code{i} end") for i in range(2000)]
    text = "common failure prefix here 1 code77 end\n" * 1000
    matches, stats = Matcher(entries).match_with_stats(text)
    assert matches[0].record_id == "t77"
    assert stats.work <= 50 * len(text) + 2_000_000 + 100_000


# One sentence, as a library's versions and siblings word it: each differs from the
# others only by a short word (its check word) outside the shared anchor.
CROWD_WORDS = ["opening", "receive", "joined", "form", "load", "loading", "batch", "stride",
               "aliased", "rows", "nothing", "not"]


def test_templates_crowding_one_anchor_are_told_apart_in_one_pass() -> None:
    entries = [entry(w, w + " {a} is not divisible by {b}") for w in CROWD_WORDS]
    entries.append(entry("bare", "{a} is not divisible by {b}"))
    m = Matcher(entries)
    for word in CROWD_WORDS:
        text = f"ValueError: {word} 7 is not divisible by 3"
        matches, stats = m.match_with_stats(text, exact_only=True)
        assert matches[0].record_id == word
        assert dict(matches[0].values) == {"a": "7", "b": "3"}
        # Verified: this sibling, the bare one, and those whose word is in this one's
        # ("load" in "loading", "not" in "nothing" and in the sentence itself).
        assert stats.verifications <= 4
        # Their check words were found in one pass over the text, not one search each.
        assert stats.scanned < 6 * len(text)
    matches = m.match("ValueError: 7 is not divisible by 3")
    assert [x.record_id for x in matches if x.exact] == ["bare"]


def test_a_log_line_with_a_crowded_anchor_is_judged_as_the_matcher_judges_it() -> None:
    m = Matcher([entry(w, w + " {a} is not divisible by {b}") for w in CROWD_WORDS])
    tags = [tag for _, tag in m.scan_keys()]
    for line, expected in [("stride 7 is not divisible by 3", True),
                           ("nothing 1 is not divisible by 2", True),
                           ("x 7 is not divisible by 3", False),
                           ("rows: 7 is not divisible by 3", False)]:
        exact = any(x.exact for x in m.match_with_stats(line, exact_only=True)[0])
        assert exact == expected
        assert m.plausible_hits(line, tags) == expected


def test_a_whole_line_template_inside_a_sentence_is_not_verified() -> None:
    """`interrupted` must be the whole message: where the word sits inside a sentence, the
    matcher rejects it without reading the template, and still finds it as a message.
    So for `callable {}` (opens the line) and `{} not found` (closes it)."""
    m = Matcher([entry("short", "interrupted"), entry("opens", "callable {name}"),
                 entry("closes", "{name} not found")])
    for sentence in ["ValueError: the download was interrupted; callable x not found here",
                     "interrupted by the user"]:
        matches, stats = m.match_with_stats(sentence, exact_only=True)
        assert matches == []
        assert stats.verifications == 0 and stats.anchor_hits >= 1
    for text, record in [("interrupted", "short"), ("KeyboardInterrupt: interrupted", "short"),
                         ("  interrupted  ", "short"), ("Error: callable x.y", "opens"),
                         ("first line\n    callable x.y", "opens"),
                         ("KeyError: 'k' not found", "closes"), ("x not found \nnext", "closes")]:
        found, stats = m.match_with_stats(text, exact_only=True)
        assert [x.record_id for x in found] == [record] and found[0].exact
        assert stats.verifications == 1


def test_a_rare_anchor_in_text_lacking_the_templates_other_words_is_not_verified() -> None:
    """The anchor `not extra for` is this template's alone, but text holding it and not
    the template's other words (here `builds`) is rejected without reading the template."""
    m = Matcher([entry("extra", "module {name} is not extra for {target} builds")])
    found, stats = m.match_with_stats("module x is not extra for y", exact_only=True)
    assert found == [] and stats.anchor_hits == 1 and stats.verifications == 0
    found, stats = m.match_with_stats("module x is not extra for y builds", exact_only=True)
    assert [f.record_id for f in found] == ["extra"] and stats.verifications == 1


def test_an_anchor_inside_text_its_literal_does_not_fit_is_not_verified() -> None:
    """`not extra for` is found, and `module` and `builds` are there too, but its literal
    ` is not extra for ` would start at the `w` of `was`: rejected from the posting alone."""
    m = Matcher([entry("extra", "module {name} is not extra for {target} builds")])
    found, stats = m.match_with_stats("module x was not extra for y builds", exact_only=True)
    assert found == [] and stats.anchor_hits == 1 and stats.verifications == 0
    found, stats = m.match_with_stats("module x is not extra for", exact_only=True)
    assert found == [] and stats.verifications == 0  # the literal runs past the text's end
    found, stats = m.match_with_stats("module x is not extra for y builds", exact_only=True)
    assert [f.record_id for f in found] == ["extra"] and stats.verifications == 1
    assert dict(found[0].values) == {"name": "x", "target": "y"}


def test_a_one_word_template_does_not_claim_an_unrelated_sentence() -> None:
    """`{} must {}` fits any sentence with "must" in it: on a long line it is offered as a
    near miss that says why, and on a line it mostly explains it is still exact."""
    matcher = Matcher([entry("must", "{name} must {rule}"), KV])
    long_line = "labels 69832 appropriate container binding must indices of the batch"
    found = matcher.match(long_line)
    assert [m.record_id for m in found] == ["must"]
    assert not found[0].exact
    assert "only fixed text 'must'" in found[0].why
    short = matcher.match("axis must be an int")
    assert short[0].record_id == "must" and short[0].exact
    assert dict(short[0].values) == {"name": "axis", "rule": "be an int"}
    # A typed hole is evidence of its own: `unclosed {!r}` is claimed on a long repr.
    typed = Matcher([entry("unclosed", "unclosed {obj|!r}")])
    sock = "unclosed <socket.socket fd=3, family=AF_INET, type=SOCK_STREAM, proto=6>"
    assert typed.match(sock)[0].exact


def test_the_template_that_accounts_for_the_whole_line_wins_a_tie() -> None:
    """`unknown compression type` is in `unknown compression type 'zstd'` too, but only the
    template with a hole explains the rest of the line."""
    matcher = Matcher([entry("bare", "unknown compression type"),
                       entry("named", "unknown compression type {kind|!r}")])
    found = matcher.match("ValueError: unknown compression type 'zstd'")
    assert [m.record_id for m in found] == ["named", "bare"]
    assert dict(found[0].values) == {"kind": "'zstd'"}
    assert matcher.match("unknown compression type")[0].record_id == "bare"


def test_a_value_holding_the_text_that_follows_it_still_binds() -> None:
    """`No such weights file {!r}.`: the `.` that ends the template is also inside the
    file name, so the first `.` would cut the value short."""
    matcher = Matcher([entry("file", "No such weights file {path|!r}."),
                       entry("thread", "There is no current event loop in thread %r.")])
    found = matcher.match("OSError: No such weights file 'model.safetensors'.")
    assert found[0].record_id == "file" and found[0].exact
    assert dict(found[0].values) == {"path": "'model.safetensors'"}


def test_a_long_paste_is_searched_in_pieces_without_losing_a_message_across_a_seam() -> None:
    """Anchors are looked for piece by piece in a long text: a message that straddles
    the seam between two pieces, or sits in the last one, is still found once."""
    from errdex.match.index import ANCHOR_CHUNK

    matcher = Matcher([SHAPE])
    message = "shape mismatch k [1, 2] and v [1, 3]"
    for at in (ANCHOR_CHUNK - 10, ANCHOR_CHUNK - 1, 3 * ANCHOR_CHUNK + 7):
        text = "x" * at + "\n" + message + "\n" + "y" * 100
        found = matcher.match(text)
        assert [m.record_id for m in found] == ["shape"]
        assert found[0].span == (at + 1, at + 1 + len(message))


def test_matches_are_made_whole() -> None:
    """The matcher's quick way of making a Match gives the same frozen value as Match()."""
    import dataclasses

    found = Matcher([SHAPE]).match("shape mismatch k [1] and v [2]")[0]
    rebuilt = Match(**{f.name: getattr(found, f.name) for f in dataclasses.fields(Match)})
    assert found == rebuilt and hash(found) == hash(rebuilt) and repr(found) == repr(rebuilt)
    assert vars(found).keys() == vars(rebuilt).keys()
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.score = 0.0  # type: ignore[misc]


def test_near_misses_are_found_by_shared_word_pairs_with_bounded_work() -> None:
    """Thousands of templates share the words `tensor must be`: a message from a nearby
    version of one of them still finds it as the nearest record, by the word pairs only
    it has, and the lookup reads at most APPROX_READ postings however common its words."""
    from errdex.match.near import APPROX_READ

    crowd = [entry(f"c{i}", f"tensor must be contiguous for op{i} {{name}}")
             for i in range(3_000)]
    target = entry("target", "tensor must be contiguous before the fused rotary kernel {name}")
    matcher = Matcher([*crowd, target])
    found, stats = matcher.match_with_stats(
        "tensor must be contiguous before the fused rotary embedding kernel 'q'"
    )
    assert found[0].record_id == "target" and not found[0].exact
    assert 0 < stats.approximate <= APPROX_READ
    _, salad = matcher.match_with_stats("must tensor be for contiguous op7 op9 op11")
    assert salad.approximate <= APPROX_READ


def test_load_matcher_builds_from_any_store_that_lists_its_entries() -> None:
    """`errdex.load_matcher` (public) is the package's own, and asks a store for nothing
    but `match_entries()`: a store of another backend, or a stand-in, gives the same
    answers as a Matcher built from the same entries."""
    import errdex
    from errdex.match import load_matcher

    class Entries:
        def match_entries(self) -> list[MatchEntry]:
            return [SHAPE, KV, BINARY]

    assert errdex.load_matcher is load_matcher
    text = "Error: shape mismatch k [2, 3] and v [4]"
    loaded = load_matcher(Entries()).match(text)
    assert [m.record_id for m in loaded][:1] == ["shape"]
    assert loaded == Matcher([SHAPE, KV, BINARY]).match(text)


def test_holes_side_by_side_at_the_end_bind_the_first_and_leave_the_suffix_empty() -> None:
    """`unknown command %q for %q%s` with no suggestion (`%s` empty): the first of the two
    holes takes the value, the optional suffix is empty, and the record is found beside
    the shorter template of the same words that the text cannot tell it from."""
    with_suffix = entry("suffix", 'unknown command {cmd|%q} for {path|%q}{hint|%s}')
    plain = entry("plain", 'unknown command {cmd|%q} for {path|%q}')
    matcher = Matcher([with_suffix, plain])
    found = by_id(matcher.match('Error: unknown command "serve" for "halcyon"'))
    assert set(found) == {"suffix", "plain"}
    assert found["suffix"].exact
    assert found["suffix"].values == (("cmd", '"serve"'), ("path", '"halcyon"'), ("hint", ""))
    # A typed hole beside a suffix: the suffix takes what the number can't hold.
    count = Matcher([entry("count", "got {n|%d}{unit|%s} of data")])
    [best] = count.match("got 12MB of data")
    assert best.exact and best.values == (("n", "12"), ("unit", "MB"))


def test_a_constructor_in_a_quoted_source_line_is_not_a_printed_value() -> None:
    """Node prints the throwing line above its caret: `throw new TypeError('..')` is code,
    not a Debug value `TypeError(..)` that a type of another library could claim."""
    from errdex.match.paste import parse_paste

    text = ("/app/node_modules/kit/lib/app.js:210\n"
            "    throw new TypeError('app.use() requires middleware functions');\n"
            "    ^\n\nTypeError: app.use() requires middleware functions\n")
    paste = parse_paste(text)
    assert [hit.value.name for hit in paste.debug] == [], paste.debug
