"""Wrapped errors in one message (`a: b: c`, issue 17): each segment is its own match, the
innermost is the cause and comes first, and each says where in the chain it is; and a
message a line wraps in Markdown marks binds its last hole without them. Fixture templates
written for these tests, in the shapes of real pastes."""

from __future__ import annotations

from errdex.match import Matcher
from errdex.models import MatchEntry
from tests.test_match import entry, tpl


def _of(repo: str, record_id: str, text: str) -> MatchEntry:
    return MatchEntry(record_id=record_id, repo=repo, exception=None, template=tpl(text),
                      sites=(), language="go")


# The wrapper has more fixed text than the error it wraps: by text alone it would rank first.
WRAPPER = _of("example/config", "wrapper", "While parsing the configuration file: {detail}")
INNER = _of("example/yaml", "inner", "did not find expected key")
BODY = _of("example/http", "body", "error decoding the response body")
EOF_ERROR = _of("example/json", "eof", "EOF while parsing a value")
CHAINS = Matcher([WRAPPER, INNER, BODY, EOF_ERROR])


def test_the_innermost_error_of_a_wrapped_chain_comes_first_as_the_cause() -> None:
    text = ("Error reading config file: While parsing the configuration file: yaml: line 89: "
            "did not find expected key")
    found = CHAINS.match(text)
    assert [m.record_id for m in found[:2]] == ["inner", "wrapper"]
    assert all(m.exact for m in found[:2])
    assert "the cause" in found[0].why and "While parsing the configuration file" in found[0].why
    assert "wraps 'did not find expected key'" in found[1].why
    # Nested segments are not two readings of one text: no "fits a record of .. too".
    assert "too" not in found[0].why


def test_an_error_put_after_another_with_a_colon_is_the_cause() -> None:
    found = CHAINS.match("error decoding the response body: EOF while parsing a value")
    assert [m.record_id for m in found[:2]] == ["eof", "body"]
    assert "innermost error of a chain" in found[0].why


def test_two_errors_side_by_side_without_a_join_are_no_chain() -> None:
    found = CHAINS.match("did not find expected key. EOF while parsing a value")
    assert {m.record_id for m in found} == {"inner", "eof"}
    assert not any("chain" in m.why for m in found)


def test_one_text_two_libraries_fit_still_says_the_text_cannot_tell_them_apart() -> None:
    twins = Matcher([_of("example/a", "a", "connection reset by the peer"),
                     _of("example/b", "b", "connection reset by the peer")])
    found = twins.match("connection reset by the peer")
    assert len(found) == 2 and "fits a record of example/" in found[0].why


MARKED = Matcher([entry("broken", "Connection broken: {e}")])


def test_a_trailing_hole_stops_before_the_markdown_marks_that_wrap_the_message() -> None:
    for text in ("`Connection broken: Reset(0 bytes read)`",
                 "**Connection broken: Reset(0 bytes read)**",
                 "```Connection broken: Reset(0 bytes read)```"):
        found = MARKED.match(text)
        assert found and found[0].exact, text
        assert dict(found[0].values) == {"e": "Reset(0 bytes read)"}, text


def test_marks_the_line_does_not_open_with_stay_in_the_value() -> None:
    found = MARKED.match("Connection broken: see `docs`")
    assert dict(found[0].values) == {"e": "see `docs`"}


def test_a_message_far_inside_a_hole_that_ran_on_over_a_log_is_no_chain() -> None:
    failed = _of("example/http", "failed", "Failed to establish a new connection: {e}")
    retry = _of("example/http", "retry", "Retrying after the connection broke: {why}")
    matcher = Matcher([failed, retry])
    text = ("Failed to establish a new connection: refused\\n---- captured logging ----\\n"
            "pool: WARNING: Retrying after the connection broke: refused\\n"
            "pool: INFO: Starting new HTTP connection (2): localhost")
    assert not any("chain" in m.why for m in matcher.match(text))


def test_two_records_of_one_library_over_the_same_text_say_the_text_cannot_tell() -> None:
    root = MatchEntry(record_id="root", repo="example/cli", exception=None,
                      template=tpl("unknown command {cmd} for {root}{hint}"),
                      sites=(("args.go", 36),), language="go")
    bare = MatchEntry(record_id="bare", repo="example/cli", exception=None,
                      template=tpl("unknown command {cmd} for {root}"),
                      sites=(("args.go", 44),), language="go")
    found = Matcher([root, bare]).match('Error: unknown command "serve" for "app"')
    assert {m.record_id for m in found[:2]} == {"root", "bare"}
    other = "args.go:36" if found[0].record_id == "bare" else "args.go:44"
    assert f"fits another record of example/cli too ({other})" in found[0].why


def test_a_wrapper_closing_after_its_hole_and_twin_inner_records() -> None:
    wrapper = _of("example/net", "url", "<urlopen error {reason}>")
    tunnel = _of("example/net", "tunnel", "Tunnel connection failed: {code} {why}")
    twin = _of("example/pool", "twin", "Tunnel connection failed: {code} {why}")
    found = Matcher([wrapper, tunnel, twin]).match(
        "WARNING: unable to fetch login page: <urlopen error Tunnel connection failed: 407 "
        "Proxy Authentication Required>")
    assert found[-1].record_id == "url" and "wraps" in found[-1].why
    assert {m.record_id for m in found[:2]} == {"tunnel", "twin"}
    assert "the cause" in found[0].why and "fits a record of example/" in found[0].why
