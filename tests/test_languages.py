"""Every registered language fills every table of its spec, and no module outside
`errdex/languages/` names a language: adding one is its folder and one registry line."""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest
from tree_sitter import Language as TSLanguage
from tree_sitter import Query

from errdex.extract import extractor_for, load_rules, parse_rules
from errdex.extract.formats import FAMILIES
from errdex.extract.outline import OUTLINE_SECTIONS
from errdex.languages import CAPABILITIES, LanguageSpec, all_specs, spec_for
from errdex.models import Language

SPECS = all_specs()
IDS = [spec.language.value for spec in SPECS]

# Tables a language may leave empty, and why.
MAY_BE_EMPTY = {
    "test_names",  # Rust's tests live in `tests/` and `benches/` (source.TEST_DIRS)
    "local_binding",  # Python assigns a local with no keyword
    "statement_end",  # Python ends a statement with the line
    "char_literal", "case_arm", "pattern_guard", "not_operand", "reference_prefix",
    "output_prefixes", "output_frames",  # a runtime whose output the shared rules read
    "tuple_binding", "tuple_element", "tuple_elements_named",  # Go and Java destructure nothing
    "rethrow", "handlers",  # Rust and Go hand errors back: nothing re-raises
    "cli_arguments",  # a command-line parser errdex knows the flags of
    # a build tool that runs a program's files (`cargo run --example`), and how its
    # flags' values read (Rust's `Option` accessors and `is_some()`)
    "program", "cli_accessors", "cli_presence", "cli_phrases", "path_segment",
    "before",  # idioms before a check that change what it tests (a `getattr` in a `try`)
    "importer",  # where users name a library's class by a path other than the one written
    "helpers_reach",  # a language whose files call the helpers of another (C and C++)
    "unbuilt",  # a language whose build files say what of a tree no build compiles
    "snippet_languages",  # pages that show code of another language (Rust's wasm JsError)
    "build_condition",  # code only some builds compile (Rust's `#[cfg(feature = "x")]`)
    "build_fix",  # and how to build so that other code is compiled instead
    "optional_results",  # methods whose result is an optional value (Rust's `Option`)
    "loop_binding",  # a for-each loop (C has none)
    "loop_items",  # loop values that yield more than their items (`enumerate(xs)`)
    "inner_binding",  # names bound inside one expression (a comprehension, a closure)
}  # fmt: skip
REGEX_FIELDS = ("compare", "negation", "char_literal", "case_arm", "not_operand",
                "reference_prefix", "local_binding", "statement_end", "tuple_binding",
                "rethrow", "optional_results", "loop_binding",
                "inner_binding")  # fmt: skip


def test_every_language_has_a_spec() -> None:
    assert {spec.language for spec in SPECS} == set(Language)
    for language in Language:
        assert spec_for(language).language is language


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_table_is_filled(spec: LanguageSpec) -> None:
    for field in fields(spec):
        value = getattr(spec, field.name)
        if field.name not in MAY_BE_EMPTY:
            assert value not in (None, "", (), frozenset(), {}), field.name


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_regex_tables_compile(spec: LanguageSpec) -> None:
    for name in REGEX_FIELDS:
        pattern = getattr(spec, name)
        if pattern is not None:
            re.compile(pattern)
    for pattern in (*spec.test_names, *spec.generated_names, spec.typed_binding,
                    *spec.output_frames, *(p for _, p, _ in spec.output_prefixes),
                    *(p for _, p in spec.bool_ops), *(p for _, p in spec.test_idioms)):  # fmt: skip
        re.compile(pattern)
    assert "{root}" in spec.typed_binding


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_outline_reads_definitions_and_calls_from_the_tags_query(spec: LanguageSpec) -> None:
    """The grammar's tags query, with the folder's `tags` section, compiles and captures
    what the outline reads; every owner block is a node type of the grammar."""
    grammar = TSLanguage(spec.grammar())
    tags = Query(grammar, spec.outline.tags() + "\n" + spec.queries().get("tags", ""))
    captures = {tags.capture_name(i) for i in range(tags.capture_count)}
    assert {"name", "definition.function", "reference.call"} <= captures
    for block, _, _ in spec.outline.owners:
        assert grammar.id_for_node_kind(block, True) is not None, block


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_queries_compile_against_the_grammar(spec: LanguageSpec) -> None:
    queries = spec.queries()
    assert set(queries) - set(OUTLINE_SECTIONS) == set(spec.query_names)  # the outline's: optional
    grammar = TSLanguage(spec.grammar())
    for name, text in queries.items():
        filled = text.replace("{names}", '"x"').replace("{regex}", "^x$")
        assert Query(grammar, filled).pattern_count >= 1, name


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_built_in_rules_parse(spec: LanguageSpec) -> None:
    entries = tomllib.loads(spec.rules_text())["rules"]
    assert parse_rules(entries, "test") and load_rules(spec.language)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_extractor_and_writer(spec: LanguageSpec, tmp_path: Path) -> None:
    extractor = extractor_for(spec.language)
    assert extractor.language is spec.language
    assert extractor.extensions == spec.suffixes
    writer = spec.writer()
    assert writer.ops["eq"] == "==" and writer.comment == spec.comment
    assert writer.negate("x", bare=True) != "x"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_capabilities_are_known(spec: LanguageSpec) -> None:
    assert spec.capabilities <= CAPABILITIES
    with pytest.raises(ValueError, match="unknown capability"):
        spec.can("speaks_klingon")


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_format_families_are_shared_parsers(spec: LanguageSpec) -> None:
    assert set(spec.format_families) <= FAMILIES


def test_languages_do_not_share_suffixes() -> None:
    suffixes = [s for spec in SPECS for s in spec.suffixes]
    assert len(suffixes) == len(set(suffixes))


# A language named outside its folder, the way shared code used to branch on one.
NAMED = re.compile(
    r"Language\.[A-Z]+\b|\bis (?:not )?(?:RUST|PYTHON)\b|[=!]= ?[\"'](?:rust|python)[\"']"
    r"|[\"'](?:rust|python)[\"'] ?[=!]=|import tree_sitter_[a-z]+|from tree_sitter_[a-z]+"
    r"|(?<![\w.])(?:RUST|PYTHON)(?![\w*])"
)
ROOT = Path(__file__).resolve().parent.parent / "errdex"
ALLOWED = {
    # The registry's keys: `Language` is where a language's name is written once.
    ("models.py", 'RUST = "rust"'),
    ("models.py", 'PYTHON = "python"'),
    # A stored entry's language, defaulted for the tests that build entries by hand: it
    # should become the record's own `Language`, with no default.
    ("models.py", 'language: str = "python"  # "python" | "rust"'),
}


def test_no_module_outside_languages_names_a_language() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("languages/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAMED.search(line) and (relative, line.strip()) not in ALLOWED:
                found.append(f"{relative}:{number}: {line.strip()}")
    assert found == []


def test_the_check_finds_a_language_named() -> None:
    for line in ('if f.lang is RUST:', 'if language is Language.PYTHON:',
                 'if entry.language == "rust":', "import tree_sitter_python"):  # fmt: skip
        assert NAMED.search(line), line


def test_a_language_without_a_folder_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the registry, a new `Language` member silently got the Python extractor."""
    import errdex.languages as languages

    monkeypatch.setattr(languages, "_FOLDERS", {})
    languages.spec_for.cache_clear()
    try:
        with pytest.raises(KeyError):
            extractor_for(Language.RUST)
    finally:
        monkeypatch.undo()
        languages.spec_for.cache_clear()
    assert extractor_for(Language.RUST).language is Language.RUST
