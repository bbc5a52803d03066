"""JavaScript and TypeScript, read from their folders (issue 18): `throw new Error(..)`
and the built-in errors with template-literal and concatenated messages, error classes
whose constructor builds the message (found where they are thrown, in another file),
`Promise.reject`, `assert`, `console.error`, the conditions that lead to each, what is
not source (bundles, minified files, declarations), JavaScript on the pages, and real
runtime output (V8 and Firefox stacks, `Uncaught`, unhandled rejections) matched back to
its record. The fixture is tests/fixtures/js_repo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex.analyze.check import check_store
from errdex.contract import record_to_dict
from errdex.extract import OverBudget, extractor_for, load_rules
from errdex.index import index_snapshot
from errdex.match.paste import parse_paste
from errdex.models import Language, SiteKind
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

FIXTURE = Path(__file__).parent / "fixtures" / "js_repo"
SHAPE = FIXTURE / "lib" / "shape.js"
POOL = FIXTURE / "src" / "pool.ts"


def _extract(source: bytes, path: str = "lib/x.js", language: Language = Language.JAVASCRIPT
             ) -> Any:  # fmt: skip
    return extractor_for(language).extract(path, source, load_rules(language))


def test_throws_give_templates_guards_and_functions() -> None:
    found = _extract(SHAPE.read_bytes(), "lib/shape.js")
    sites = {s.template.text: s for s in found.sites}
    rank = sites["reshape: rank {rank} over 8 (got {xs_length} values)"]
    assert rank.kind is SiteKind.RAISE and rank.exception == "TypeError"
    assert rank.function == "reshape" and rank.guard == "rank > 8"
    assert [p.expression for p in rank.template.placeholders] == ["rank", "xs.length"]
    assert sites["reshape: empty input"].exception == "RangeError"
    # A method, an async method rejecting, an arrow function bound to a name.
    assert sites["pool: buffer of {n} bytes over the pool size {size}"].function == "Pool.get"
    fetch = sites["fetch: not a grid url: {url}"]
    assert fetch.function == "Pool.fetch" and fetch.kind is SiteKind.RAISE
    assert fetch.guard == "!url.startsWith('grid:')"
    handed_on = sites['load: a name has no "/"\t({name})']  # `callback(new Error(..))`
    assert handed_on.kind is SiteKind.BAIL and handed_on.function == "load"
    thrown_string = sites['mode must be "r" or "w"']
    assert thrown_string.exception is None and thrown_string.function == "_checkMode"


def test_assert_and_console_calls() -> None:
    found = _extract(SHAPE.read_bytes(), "lib/shape.js")
    sites = {s.template.text: s for s in found.sites}
    asserted = sites["pool: buffer of {n} bytes over the pool size {size}"]
    assert asserted.kind is SiteKind.ASSERT and asserted.exception == "AssertionError"
    assert asserted.guard == "!(n <= this.size)"
    logged = sites["load: {name} is not cached, reading {reading} bytes"]  # util.format's %s %d
    assert logged.kind is SiteKind.LOG and [p.spec for p in logged.template.placeholders] == [
        "%s", "%d"]  # fmt: skip
    # Arguments past the format are printed after it, one space apart.
    assert sites["load: slow path for {name}"].kind is SiteKind.WARN


def test_switch_cases_and_earlier_exits_are_on_the_path() -> None:
    found = _extract(SHAPE.read_bytes(), "lib/shape.js")
    # `throw new GridError(..)` in `default:` after `case 1: case 2:`
    built = next(c for c in found.constructions if c.line == 28)
    assert built.type_path == "GridError" and built.guard == "!(rank === 1) && !(rank === 2)"
    (path,) = [p for p in found.structure.paths if p.line == 28]
    kinds = [step.kind for step in path.steps]
    # `throw` for an empty input, `return null` for a negative one, `throw` over rank 8,
    # then `if (strict)` and the arm.
    assert kinds == ["early_exit", "early_return", "early_exit", "if", "arm"]


def test_error_classes_are_definitions_with_their_parameters() -> None:
    found = _extract((FIXTURE / "lib" / "errors.js").read_bytes(), "lib/errors.js")
    definitions = {d.name: d for d in found.definitions}
    shape = definitions["ShapeError"]
    assert shape.template.text == "{op}: want rank {want}, got {got_length}"
    assert shape.fields == ("op", "want", "got")
    assert definitions["GridError"].template.text == "{message}"  # the caller's text
    assert definitions["ClosedError"].template.text == "grid: {what} is closed"  # this.message
    assert definitions["CommandError"].template.text == "{message}"  # `message || 'default'`
    usage = definitions["UsageError"]
    assert usage.fields == ("message",) and usage.template.placeholders[0].expression == "message"


def test_typescript_reads_types_away() -> None:
    found = _extract(POOL.read_bytes(), "src/pool.ts", Language.TYPESCRIPT)
    (pool_error,) = found.definitions
    # `constructor(public readonly size: number, limit?: number)`
    assert pool_error.name == "PoolError" and pool_error.fields == ("size", "limit")
    assert pool_error.template.text == "pool: size {size} over the limit {limit}"
    sites = {s.template.text: s for s in found.sites}
    positive = sites["pool: size must be positive, got {options_size}"]
    assert positive.function == "openPool" and positive.guard == "options.size <= 0"
    assert sites["pool: no pool with id {id}"].function == "closePool"
    (built,) = found.constructions
    assert built.type_path == "PoolError" and built.guard == "options.size > 64"


def test_escapes_and_bad_escapes() -> None:
    source = (b"function f(n) {\n"
              b"  if (n === 1) throw new Error('tab\\there \\x41\\u0042\\u{1F600} \\q');\n"
              b"  if (n === 2) throw new Error(`multi \\`tick\\` ${n}\\n`);\n"
              b"  if (n === 3) throw new Error('split \\\n line');\n"
              b"  throw new Error('bad \\u{110000} escape');\n}\n")  # fmt: skip
    texts = [s.template.text for s in _extract(source).sites]
    assert texts == ["tab\there AB\U0001f600 q", "multi `tick` {n}\n", "split  line",
                     "bad \ufffd escape"]  # fmt: skip


def test_a_minified_bundle_is_skipped() -> None:
    with pytest.raises(OverBudget, match="minified"):
        _extract((FIXTURE / "lib" / "packed.js").read_bytes())


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("js")
    root = tmp / "repo"
    shutil.copytree(FIXTURE, root)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/gridlib"))
    db = tmp / "js.sqlite"
    with SQLiteStore(db) as store:
        index_snapshot(snapshot, store, workers=1)
        records = {r.message: record_to_dict(store.record(r.id)) for r in store.records()}
    return db, records


def test_only_sources_are_indexed(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    _, records = pages
    paths = {s["path"] for r in records.values() for s in r["sites"]}
    # Not dist/, .min.js, .d.ts, tests; `.tsx` with its own grammar.
    assert paths == {"lib/shape.js", "src/pool.ts", "src/Panel.tsx"}
    assert not any("never indexed" in m or "packed:" in m or "declared:" in m
                   for m in records)  # fmt: skip


def test_classes_thrown_in_another_file_carry_their_own_text(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    _, records = pages
    shape = records["`${op}: want rank ${want}, got ${got.length}`"]
    assert shape["exception"] == "ShapeError"
    assert [(s["path"], s["line"], s["bound"]) for s in shape["sites"]] == [
        ("lib/shape.js", 31, {"op": "'reshape'", "want": "2"})]  # fmt: skip
    grid = records["gridlib: unsupported rank {rank} in strict mode"]  # through super(message)
    assert grid["exception"] == "GridError" and grid["sites"][0]["line"] == 28
    # `const message = `..`; throw new UsageError(message)`: the name read through its
    # declaration, the class's text through its base's (`super(2, 'gridlib.usage', message)`
    # into `super(message || 'command failed')`).
    usage = records["open: unknown mode {mode} for {name}"]
    assert usage["exception"] == "UsageError" and usage["sites"][0]["function"] == "open"
    assert records["open: a mode is required"]["sites"][0]["line"] == 76  # a top-level const
    closed = records["'grid: ' + what + ' is closed'"]
    assert closed["sites"][0]["function"] == "Pool.get" and closed["sites"][0]["bound"] == {
        "what": "'pool'"}  # fmt: skip


def test_js_pages_speak_js(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    _, records = pages
    page = records["`reshape: rank ${rank} over 8 (got ${xs.length} values)`"]
    explanation = page["explanation"]
    assert explanation["summary"] == ("`rank` must be at most 8 when calling `reshape` (checked "
                                      "only when `xs[0]` is at least 0)")
    fix = explanation["example_fix"]["after"]
    assert fix == "reshape(xs, 8, strict); // rank must be at most 8"
    defensive = explanation["defensive"]
    assert defensive["validate"].startswith("if (rank > 8) {\n  throw new Error(")
    assert "e instanceof TypeError && e.message.includes(\"reshape: rank\")" in defensive[
        "try_catch"]  # fmt: skip
    # A class defined in a `.ts` file, thrown in a `.tsx` component, with its own text.
    pool = records["`pool: size ${size} over the limit ${limit ?? 64}`"]
    assert [(s["path"], s["function"]) for s in pool["sites"]] == [
        ("src/Panel.tsx", "Panel"), ("src/pool.ts", "openPool")]  # fmt: skip
    panel = records["`panel: a title is required (size ${size})`"]
    assert panel["language"] == "typescript" and panel["sites"][0]["guard"] == "!title"
    typed = records["`pool: size must be positive, got ${options.size}`"]
    assert typed["language"] == "typescript"
    closing = records['"pool: no pool with id " + id']["explanation"]["defensive"]
    assert closing["type_guard"].startswith("function idOk(id: number): boolean {")
    assert closing["try_catch"].startswith("try {\n  await closePool(id);")  # an async arrow
    # The tests that expect it: jest's toThrow and rejects, node's assert.throws.
    tests = {r["message"]: [t["kind"] for t in r["facts"]["tests"]] for r in records.values()
             if r["facts"].get("tests")}  # fmt: skip
    assert tests == {"reshape: empty input": ["toThrow"],
                     "`fetch: not a grid url: ${url}`": ["rejects"],
                     "`pool: size must be positive, got ${options.size}`": ["assert.throws"]}


def test_js_pages_cite_no_unknown_names(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    """`function isXError(err)`, `{ cause: e }`, `err: unknown` are the snippet's own or
    the language's, not names the code lacks."""
    db, _ = pages
    with SQLiteStore(db) as store:
        assert check_store(store)["unknown"] == []


V8_UNCAUGHT = """/home/u/app/node_modules/gridlib/lib/shape.js:28
        throw new GridError('gridlib: unsupported rank ' + rank + ' in strict mode');
        ^

GridError: gridlib: unsupported rank 5 in strict mode
    at reshape (/home/u/app/node_modules/gridlib/lib/shape.js:28:15)
    at Object.<anonymous> (/home/u/app/index.js:3:1)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
    at async Promise.all (index 0)

Node.js v18.17.0
"""


def test_a_v8_stack_is_structure_and_its_top_frame_is_where_it_was_thrown() -> None:
    paste = parse_paste(V8_UNCAUGHT)
    texts = [(paste.docs[g.doc].text[g.start : g.end], g.exception, g.frame)
             for g in paste.groups]  # fmt: skip
    # The quoted code line stays text; frames, the caret and the version line do not.
    assert [t for t, _, _ in texts] == [
        "throw new GridError('gridlib: unsupported rank ' + rank + ' in strict mode');",
        "gridlib: unsupported rank 5 in strict mode"]  # fmt: skip
    _, exception, frame = texts[1]
    assert exception == "GridError" and frame is not None
    assert (frame.path, frame.line) == ("/home/u/app/node_modules/gridlib/lib/shape.js", 28)


@pytest.mark.parametrize("paste", [
    "Uncaught (in promise) Error: fetch: not a grid url: http://x\n"
    "    at Pool.fetch (https://cdn.example/gridlib/lib/shape.js:51:29)\n",
    "(node:4242) UnhandledPromiseRejectionWarning: Error: fetch: not a grid url: http://x\n"
    "    at Pool.fetch (/srv/node_modules/gridlib/lib/shape.js:51:29)\n",
    "fetch@http://localhost:8080/node_modules/gridlib/lib/shape.js:51:29\n"
    "Error: fetch: not a grid url: http://x\n",
])  # fmt: skip
def test_browser_and_node_banners_leave_the_message(paste: str) -> None:
    texts = [parse_paste(paste).docs[0].text[g.start : g.end] for g in parse_paste(paste).groups]
    assert texts == ["fetch: not a grid url: http://x"]


def test_a_rejection_with_a_string_names_it_in_the_banner() -> None:
    paste = ('[UnhandledPromiseRejection: This error originated either by throwing inside of '
             'an async function without a catch block, or by rejecting a promise which was not '
             'handled with .catch(). The promise rejected with the reason "mode must be "r" or '
             '"w"".] {\n  code: \'ERR_UNHANDLED_REJECTION\'\n}\n')  # fmt: skip
    parsed = parse_paste(paste)
    assert parsed.docs[0].text[parsed.groups[0].start : parsed.groups[0].end] == (
        'mode must be "r" or "w"')  # fmt: skip


def test_a_node_crash_finds_its_record(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    db, records = pages
    errdex = Path(sys.executable).parent / "errdex"
    done = subprocess.run([str(errdex), "--db", str(db), "explain", "--json", "-"],
                          input=V8_UNCAUGHT, capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["matches"][0]
    assert first["id"] == records["gridlib: unsupported rank {rank} in strict mode"]["id"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_every_javascript_code_section_parses(tmp_path: Path) -> None:
    # The pages' code is written to be pasted: each JavaScript section must at least parse
    # (`f(...)` for unknown arguments did not).
    golden = json.loads((Path(__file__).parent / "golden" / "js_repo.json").read_text())
    records = golden if isinstance(golden, list) else golden["records"]
    checked = 0
    for record in records:
        if record["language"] != "javascript":
            continue
        page = record["explanation"]
        sections = [page["example_fix"]["before"], page["example_fix"]["after"],
                    *(page["defensive"][k] for k in ("validate", "type_guard", "try_catch"))]
        for number, code in enumerate(s for s in sections if s):
            script = tmp_path / f"{record['id']}-{number}.js"
            script.write_text(f"async function page() {{\n{code}\n}}\n")
            done = subprocess.run(["node", "--check", str(script)], capture_output=True,
                                  text=True, check=False)
            assert done.returncode == 0, f"{record['id']}: {code}\n{done.stderr}"
            checked += 1
    assert checked > 10
