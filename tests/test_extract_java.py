"""Java, read from its own folder (issue 18): exceptions thrown with a message built by
concatenation, `String.format`, `.formatted` or `MessageFormat`; the checks of
`rules.toml` (requireNonNull, Guava, Validate) with their own placeholders; SLF4J logs;
exception classes whose constructor builds the message, found where they are thrown;
the conditions that lead to each (if/else, switch cases old and new, catch, earlier
exits); Java code on the pages; and a real stack trace with `Caused by:` and jar frames
matched back to its record. The fixture is tests/fixtures/java_repo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.extract import extractor_for, load_rules
from errdex.extract.structure import ARM, EARLY_EXIT, EARLY_RETURN, EXCEPT, RULE
from errdex.index import index_snapshot
from errdex.match.paste import parse_paste
from errdex.match.versions import named_versions
from errdex.models import Language, SiteKind
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

FIXTURE = Path(__file__).parent / "fixtures" / "java_repo"
GRID = FIXTURE / "src" / "main" / "java" / "com" / "example" / "grid"


def _extract(source: bytes, path: str = "src/main/java/p/X.java") -> Any:
    return extractor_for(Language.JAVA).extract(path, source, load_rules(Language.JAVA))


def _line(path: Path, needle: str) -> int:
    """The 1-based line of the first line holding `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_throws_and_checks_give_templates_exceptions_guards_and_functions() -> None:
    shape = GRID / "Shape.java"
    found = _extract(shape.read_bytes(), "src/main/java/com/example/grid/Shape.java")
    sites = {s.template.text: s for s in found.sites}
    rank = sites["reshape: rank {rank} over 8"]
    assert (rank.kind, rank.exception) == (SiteKind.RAISE, "IllegalArgumentException")
    assert (rank.function, rank.guard) == ("Shape.reshape", "rank > 8")
    assert rank.line == _line(shape, '"reshape: rank "')
    null = sites["xs must not be null"]
    assert (null.exception, null.guard) == ("NullPointerException", "xs == null")
    # Guava's template takes `%s` only; the check fails when its condition does not hold.
    size = sites["size must be positive, got {size}"]
    assert (size.function, size.guard) == ("Shape.Shape", "!(size > 0)")
    assert sites["pool is closed"].guard == "closed"  # `checkState(!closed, ..)`
    fmt = sites["tensor: unsupported rank {rank}"]
    assert fmt.exception == "UnsupportedOperationException"
    assert [p.spec for p in fmt.template.placeholders] == ["%d"]
    assert fmt.guard == "!(rank == 1) && !(rank == 2)"  # `default:` after `case 1: case 2:`
    message_format = sites["pool: buffer of {n} bytes over {size}"]
    assert [p.expression for p in message_format.template.placeholders] == ["n", "size"]
    logged = sites["pool: buffer of {n} bytes over the pool size {size}"]
    assert (logged.kind, logged.exception) == (SiteKind.LOG, None)
    assert sites["pool: empty take"].kind is SiteKind.WARN
    assert sites["pool: empty take"].guard == "n == 0"
    assert sites["loader found nothing at {path}"].function == "Loader.loadOrFail"
    # A bare word given to a class that is not the JDK's is not its message.
    assert "reshape" not in sites


def test_formats_of_every_family_and_what_they_print() -> None:
    codec = GRID / "Codec.java"
    found = _extract(codec.read_bytes(), "src/main/java/com/example/grid/Codec.java")
    sites = {s.template.text: s for s in found.sites}
    assert sites["cell {cell} is negative"].guard == "!(cell >= 0)"  # Validate.isTrue
    formatted = sites["mode {mode} is not supported for cell {cell}"]  # `%2$d`, `.formatted`
    assert formatted.guard == "!(mode == TEXT) && (mode == BINARY || mode == PACKED)"
    # `%%` is a percent sign and `%n` a line break; a Locale first is not the format.
    assert "bad cell {text} in {radix}%\n" in sites
    assert sites["bad cell {text} in {radix}%\n"].guard == "NumberFormatException"
    assert sites["cannot parse {text} in radix {radix}"].kind is SiteKind.LOG
    # A literal given for a placeholder is text; a number concatenated after text is too.
    assert sites["mode name for codec"].exception == "NullPointerException"
    assert "no mode named '{name}' (of 3)" in sites
    asserted = sites["radix must be above 1, got {radix}"]
    assert (asserted.kind, asserted.exception, asserted.guard) == (
        SiteKind.ASSERT, "AssertionError", "!(radix > 1)")
    check = sites["text {text}... is {text_length} chars, over 80"]
    assert [p.spec for p in check.template.placeholders] == ["%s", "%d"]


def test_paths_hold_switch_cases_catch_clauses_and_earlier_exits() -> None:
    shape = GRID / "Shape.java"
    found = _extract(shape.read_bytes(), "src/main/java/com/example/grid/Shape.java")
    by_line = {p.line: p for p in found.structure.paths}
    default = by_line[_line(shape, "throw new UnsupportedOperationException(")]
    kinds = [s.kind for s in default.steps]
    # requireNonNull, `return xs` when empty and the rank check all come before it.
    assert kinds[:3] == [EARLY_EXIT, EARLY_RETURN, EARLY_EXIT] and kinds[-1] == ARM
    closed = by_line[_line(shape, 'checkState(!closed')]
    assert [s.kind for s in closed.steps] == [RULE]
    codec = GRID / "Codec.java"
    steps = {p.line: p for p in _extract(codec.read_bytes()).structure.paths}
    caught = steps[_line(codec, "throw new IllegalArgumentException(")]
    assert caught.steps[-1].kind == EXCEPT
    assert caught.steps[-1].condition.text == "NumberFormatException"


def test_functions_are_owned_and_public_by_their_modifier() -> None:
    found = _extract((GRID / "Shape.java").read_bytes())
    defs = {(d.owner, d.name): d for d in found.structure.defs}
    assert defs[("Shape", "reshape")].public and defs[("Shape", "take")].public
    assert defs[("Shape", "Shape")].params == ("size",)  # a constructor is a function too
    assert not defs[("Shape", "key")].public  # package-private
    assert defs[("Loader", "loadOrFail")].public  # an interface's methods are public


def test_exception_classes_build_their_message_where_thrown() -> None:
    found = _extract((GRID / "DimensionException.java").read_bytes())
    (dimension,) = found.definitions
    assert dimension.template.text == "{op}: want rank {want}, got {got}"
    assert dimension.fields == ("op", "want", "got")
    config = _extract((GRID / "ConfigException.java").read_bytes()).definitions
    assert [d.template.text for d in config] == ["config: {message}"]


def test_escapes_text_blocks_and_odd_literals() -> None:
    source = rb'''class P {
    void f(String name, char c) {
        if (name == null) throw new IllegalStateException("tab\there \"q\" \u0041\101 \s end");
        if (c == 'x') throw new IllegalStateException("char " + 'y' + " and " + c);
        throw new IllegalStateException("""
            text block
              indented\
             joined""");
    }
}
'''
    texts = [s.template.text for s in _extract(source).sites]
    assert texts == ['tab\there "q" AA   end', "char y and {c}", "text block\n  indented joined"]


def test_stack_traces_logs_and_jars_are_read_as_java_prints_them() -> None:
    paste = parse_paste(
        'Exception in thread "main" java.lang.IllegalStateException: wrapper failed\n'
        "\tat com.example.app.Main.run(Main.java:9)\n"
        "Caused by: java.lang.NullPointerException: xs must not be null\n"
        "\tat java.base/java.util.Objects.requireNonNull(Objects.java:259)\n"
        "\tat com.example.grid.Shape$Loader.reshape(Shape.java:24) ~[gridlib-1.2.0.jar:1.2.0]\n"
        "\t... 3 more\n"
        "2024-01-01 12:00:00.123 [main] ERROR c.e.grid.Shape - pool: empty take\n")
    groups = [(g.exception, paste.docs[0].text[g.start:g.end], g.frame) for g in paste.groups]
    assert [(e, m) for e, m, _ in groups] == [
        ("java.lang.IllegalStateException", "wrapper failed"),
        ("java.lang.NullPointerException", "xs must not be null"),
        (None, "pool: empty take")]
    # The frame below each exception that is not the JDK's says where it was thrown.
    assert groups[0][2] is not None and groups[0][2].path == "com/example/app/Main.java"
    assert groups[1][2] is not None and (groups[1][2].path, groups[1][2].line) == (
        "com/example/grid/Shape.java", 24)
    crash = parse_paste("Fatal Exception: java.lang.IllegalStateException: pool is closed")
    assert [g.exception for g in crash.groups] == ["java.lang.IllegalStateException"]
    found = named_versions("/home/u/.m2/repository/com/example/gridlib/1.2.0/gridlib-1.2.0.jar")
    assert [(v.name, v.version) for v in found] == [("gridlib", "1.2.0")]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("java")
    root = tmp / "repo"
    shutil.copytree(FIXTURE, root)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/gridlib"))
    db = tmp / "java.sqlite"
    with SQLiteStore(db) as store:
        summary = index_snapshot(snapshot, store, workers=1)
        assert dict(summary.skipped) == {"generated": 1, "tests": 1}
        full = [store.record(r.id) for r in store.records()]
        records = {r.template.text: record_to_dict(r) for r in full}
    return db, records


def test_generated_and_test_sources_are_not_the_library(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    _, records = pages
    assert not any("generated code" in text or "test throws" in text for text in records)


def test_a_thrown_exception_class_gets_the_message_its_constructor_builds(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    _, records = pages
    dimension = records["{op}: want rank {want}, got {got}"]
    assert dimension["exception"] == "DimensionException"
    assert [(s["path"].rsplit("/", 1)[-1], s["function"]) for s in dimension["sites"]] == [
        ("Shape.java", "Shape.reshape")]
    # The text given to ConfigException follows the prefix its constructor adds.
    composed = records['config: missing key {name} in "grid"\tsection']
    assert composed["sites"][0]["function"] == "Shape.key"


def test_a_helper_that_builds_an_exception_is_raised_where_it_is_called(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    _, records = pages
    codec = GRID / "Codec.java"
    called = records["bad input: empty text at offset {offset}"]
    assert called["exception"] == "IllegalArgumentException"
    assert [(s["line"], s["function"]) for s in called["sites"]] == [
        (_line(codec, 'throw badInput("empty text"'), "Codec.check")]
    assert called["sites"][0]["guard"] == "text.isEmpty()"


def test_java_pages_speak_java(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    _, records = pages
    page = records["reshape: rank {rank} over 8"]["explanation"]
    assert page["summary"] == ("`rank` must be at most 8 when calling `Shape.reshape` (checked "
                               "only when `xs.length` is not 0)")
    assert page["example_fix"]["after"] == "Shape.reshape(xs, 8, strict); // rank must be at most 8"
    defensive = page["defensive"]
    assert defensive["validate"].startswith(
        'if (rank > 8) {\n    throw new IllegalArgumentException("rank must be at most 8");')
    assert defensive["type_guard"] == "static boolean rankOk(int rank) {\n    return rank <= 8;\n}"
    assert "} catch (IllegalArgumentException e) {" in defensive["try_catch"]
    assert 'e.getMessage().contains("reshape: rank")' in defensive["try_catch"]
    # The test that expects it is its working example.
    assert "ShapeTest.java" in page["trigger"] and "assertEquals" in page["trigger"]
    # A null check is a requirement on the argument, in the caller's terms.
    null = records["xs must not be null"]["explanation"]
    assert null["summary"] == "`xs` must differ from `null` when calling `Shape.reshape`"
    assert null["defensive"]["validate"].startswith("if (xs == null) {")
    assert records["mode name for codec"]["explanation"]["defensive"]["type_guard"] == (
        "static boolean nameOk(String name) {\n    return name != null;\n}")
    logged = records["cannot parse {text} in radix {radix}"]["explanation"]["defensive"]
    assert "nothing is thrown to catch" in logged["try_catch"]
    assert "logLine.contains(" in logged["type_guard"]


def test_a_java_stack_trace_with_causes_finds_the_innermost_record(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    db, records = pages
    paste = ('Exception in thread "main" java.lang.IllegalStateException: run failed\n'
             "\tat com.example.app.Main.run(Main.java:9)\n"
             "Caused by: java.lang.UnsupportedOperationException: mode PACKED is not supported"
             " for cell 7\n"
             "\tat com.example.grid.Codec.encode(Codec.java:22) ~[gridlib-1.2.0.jar:1.2.0]\n"
             "\tat com.example.app.Main.run(Main.java:8)\n\t... 3 more\n")  # fmt: skip
    errdex = Path(sys.executable).parent / "errdex"
    done = subprocess.run([str(errdex), "--db", str(db), "explain", "--json", "-"],
                          input=paste, capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["matches"][0]
    assert first["id"] == records["mode {mode} is not supported for cell {cell}"]["id"]
    assert "traceback frame grid/Codec.java:22" in first["why"]


def test_a_final_varargs_parameter_is_named_by_its_declarator() -> None:
    # `final String... names`: the name is `names`, not the modifier `final`
    source = (b"public class A {\n    public static int f(final int a, final String... names) {\n"
              b"        return 0;\n    }\n}\n")
    extraction = extractor_for(Language.JAVA).extract(
        "A.java", source, tuple(load_rules(Language.JAVA, ".")))
    assert extraction.structure is not None
    assert [(d.name, d.params) for d in extraction.structure.defs] == [("f", ("a", "names"))]


READER = b"""\
package com.example.json;

public final class Reader {
  private int line;
  private int column;

  String where() {
    int shown = line + 1;
    return " at line " + shown + " column " + column;
  }

  public void expect(String expected, String found) {
    if (!expected.equals(found)) {
      throw new IllegalStateException("Expected " + expected + " but was " + found + where());
    }
  }
}
"""


def test_a_method_s_returned_text_is_part_of_the_message() -> None:
    """`+ where()`: the words that method of the class returns are in the message users
    see (gson's locationString(): " at line 1 column 1 path $" told JsonReader's message
    from JsonTreeReader's " at path $"), one level deep."""
    found = _extract(READER, "src/main/java/com/example/json/Reader.java")
    (site,) = found.sites
    assert site.template.text == (
        "Expected {expected} but was {found} at line {shown} column {column}")
