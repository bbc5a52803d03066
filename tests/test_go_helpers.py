"""Go error helpers a file defines for itself (issue 18: helpers are discovered): a
function that records its message in an object's error state and returns, the way
parsers ported from C report (`p.error = ..; p.problem = problem; return false`), makes
each of its calls with a literal message a site; so does a function that hands its
message on to one. A message appended to a list of errors (`errs = append(errs,
fmt.Sprintf(..))`) is a site where it is appended. Such a record is what a user's
paste of the parser's output finds, inside the wrappers around it. And a conversion to
an error type (`return UnsupportedTypeError(kind)`) builds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.extract import extractor_for, load_rules
from errdex.match import MatchEntry, Matcher
from errdex.models import Language, SiteKind
from tests.builders import indexed_records
from tests.test_match import tpl

SCANNER = b'''package lexer

type state struct {
	err     int
	context string
	problem string
	line    int
	name    string
}

func setError(s *state, context string, line int, problem string) bool {
	s.err = 1
	s.context = context
	s.line = line
	s.problem = problem
	return false
}

func setTagError(s *state, directive bool, problem string) bool {
	context := "while reading a tag"
	if directive {
		context = "while reading a directive"
	}
	return setError(s, context, s.line, problem)
}

func rename(s *state, name string) bool {
	s.name = name
	return true
}

func scanKey(s *state, c byte) bool {
	if c == '\\t' {
		return setError(s, "while scanning a key", s.line, "tabs are not allowed here")
	}
	if c == '!' {
		return setTagError(s, false, "did not find the tag's end")
	}
	return rename(s, "plain key")
}
'''

DECODER = b'''package lexer

import "fmt"

type decoder struct {
	terrors []string
	lines   []string
}

func (d *decoder) wrongType(n int, kind, into string) {
	d.terrors = append(d.terrors, fmt.Sprintf("line %d: cannot decode %s into %s", n, kind, into))
	d.lines = append(d.lines, fmt.Sprintf("line %d seen", n))
}
'''


def _sites(source: bytes) -> dict[str, Any]:
    found = extractor_for(Language.GO).extract("lexer/scan.go", source, load_rules(Language.GO))
    return {s.template.text: s for s in found.sites}


def test_a_recording_helpers_calls_are_sites_of_the_message_they_pass() -> None:
    sites = _sites(SCANNER)
    tabs = sites["tabs are not allowed here"]
    assert tabs.kind is SiteKind.BAIL and tabs.function == "scanKey"
    assert tabs.guard == "c == '\\t'" and tabs.line == 34
    # A helper that passes its own `problem` on to the recording one is a helper too.
    assert sites["did not find the tag's end"].line == 37
    # The context argument is not the message, and a setter that records no error
    # state (`rename`) is no helper: its literal is no error.
    assert "while scanning a key" not in sites
    assert "plain key" not in sites


def test_a_message_appended_to_a_list_of_errors_is_a_site() -> None:
    sites = _sites(DECODER)
    wrong = sites["line {n}: cannot decode {kind} into {into}"]
    assert wrong.kind is SiteKind.BAIL and wrong.function == "decoder.wrongType"
    assert [p.spec for p in wrong.template.placeholders] == ["%d", "%s", "%s"]
    assert "line {n} seen" not in sites  # `lines` is no list of errors


def test_the_parsers_output_inside_its_wrappers_finds_the_helpers_site(tmp_path: Path) -> None:
    sites = _sites(SCANNER)
    tabs = sites["tabs are not allowed here"]
    entries = [MatchEntry(record_id="tabs", repo="example/lexer", exception=None,
                          template=tabs.template, sites=(("lexer/scan.go", tabs.line),),
                          language="go")]  # fmt: skip
    matcher = Matcher(entries)
    for text in (
        "lexer: line 12: tabs are not allowed here",
        "2024/01/02 10:11:12 error loading config: lexer: line 3: tabs are not allowed here",
    ):
        [best] = matcher.match(text)
        assert best.record_id == "tabs" and best.exact


CONFIG = '''package config

import "fmt"

// UnsupportedTypeError is a string type with an Error method.
type UnsupportedTypeError string

func (e UnsupportedTypeError) Error() string {
	return fmt.Sprintf("unsupported config type %q", string(e))
}

func check(kind string) error {
	if kind != "yaml" {
		return UnsupportedTypeError(kind)
	}
	return nil
}
'''


def test_a_conversion_to_an_error_type_builds_it(tmp_path: Path) -> None:
    """`return UnsupportedTypeError(kind)`: no composite literal builds a string-typed
    error; the conversion in the `return` does, and the type's text is a record there."""
    records = indexed_records(tmp_path, {"config/config.go": CONFIG}, "example/config")
    [record] = [r for r in records if "unsupported config type" in r.template.message]
    assert [(s.path, s.line, s.function) for s in record.sites] == [
        ("config/config.go", 14, "check")]
    assert record.sites[0].guard == 'kind != "yaml"'


def test_an_error_printed_as_go_syntax_finds_its_type() -> None:
    """`fmt.Printf("%#v", err)` prints the value as Go syntax, the type qualified by its
    package (`config.NotFoundError{..}`, `&config.NotFoundError{..}` for a pointer): the
    type names the record, as its Error() text would."""
    found = MatchEntry(record_id="notfound", repo="example/config", exception=None,
                       template=tpl("config {name|%q} not found in {dir|%q}"),
                       sites=(("config/find.go", 20),), variant="NotFoundError",
                       variant_fields=("name", "dir"), language="go")  # fmt: skip
    other = MatchEntry(record_id="other", repo="example/config", exception=None,
                       template=tpl("config {name|%q} is not valid"), sites=(),
                       variant="InvalidError", variant_fields=("name",),
                       language="go")  # fmt: skip
    matcher = Matcher([found, other])
    for text in ('config.NotFoundError{name:"app", dir:"[/etc /home/u]"}',
                 '&config.NotFoundError{name:"app", dir:"[/etc]"}'):
        [best, *_] = matcher.match(text)
        assert best.record_id == "notfound"
