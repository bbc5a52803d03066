"""C and C++, read from their folders (issue 18): the Python C API's `PyErr_SetString` and
`PyErr_Format` (the exception class is the record's, so a Python traceback raised from C
matches), printf formats with C's length modifiers and the C API's `%S %R %U`, messages
split over adjacent literals and format macros (`"index %" PRId64 " out of range"`),
`fprintf(stderr, ..)` only when `abort()`/`exit()` follows, `assert` with its stringified
condition; for C++ `throw std::..` with `+`/`std::to_string`/`fmt::format` messages,
exception classes whose constructor builds the text, the checking macros of rules.toml
(`CHECK(x) << ..`, `CHECK_EQ`, `TORCH_CHECK`, `CV_Assert`, `CV_Error`, `LOG(FATAL)`); the
conditions that lead to each; C and C++ code on the pages; and what the runtime prints
(glibc's failed assert, glog's `F1201 ..] Check failed:`, `terminate called after
throwing ..` with `what():`, OpenCV's banner) matched back to its record. The fixtures
are tests/fixtures/c_repo and tests/fixtures/cpp_repo."""

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
from errdex.extract import extractor_for, load_rules
from errdex.extract.formats.printf import split
from errdex.extract.structure import EARLY_EXIT, EXCEPT, RULE
from errdex.index import index_snapshot
from errdex.match.paste import parse_paste
from errdex.models import Language, SiteKind
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

C_REPO = Path(__file__).parent / "fixtures" / "c_repo"
CPP_REPO = Path(__file__).parent / "fixtures" / "cpp_repo"
ERRDEX = Path(sys.executable).parent / "errdex"


def _extract(language: Language, root: Path, path: str) -> Any:
    source = (root / path).read_bytes()
    return extractor_for(language).extract(path, source, load_rules(language))


def _line(path: Path, needle: str) -> int:
    """The 1-based line of the first line holding `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_python_c_api_errors_carry_their_python_class_and_printf_holes() -> None:
    found = _extract(Language.C, C_REPO, "src/_gridmodule.c")
    sites = {s.template.text: s for s in found.sites}
    rank = sites["reshape: rank {rank} over 8"]
    assert (rank.kind, rank.exception) == (SiteKind.RAISE, "ValueError")
    assert (rank.function, rank.guard) == ("grid_reshape", "rank > 8")
    assert [p.spec for p in rank.template.placeholders] == ["%zd"]
    assert rank.line == _line(C_REPO / "src/_gridmodule.c", "PyErr_Format(PyExc_ValueError")
    assert sites["index must not be negative"].exception == "IndexError"
    # Adjacent literals with a format macro between them are one format; `%R` is a hole.
    split_message = sites["index {index} out of range for key {key}"]
    assert [p.spec for p in split_message.template.placeholders] == ["%lld", "%R"]
    assert split_message.guard == "index >= 1024"
    keyed = sites["empty key {key} ({key_2}) at {long_long_index}"]
    assert [p.spec for p in keyed.template.placeholders] == ["%S", "%U", "%lld"]
    assert keyed.exception == "KeyError"
    # A precision is part of the conversion, not text of the message.
    assert "reshape: shape must be a tuple, not {Py_TYPE_shape_tp_name}" in sites
    warned = sites["grid_index is deprecated; use grid_at"]
    assert (warned.kind, warned.exception) == (SiteKind.WARN, "DeprecationWarning")


def test_stderr_messages_count_only_before_an_exit_and_asserts_print_their_condition() -> None:
    grid = C_REPO / "src/grid.c"
    found = _extract(Language.C, C_REPO, "src/grid.c")
    sites = {s.template.text: s for s in found.sites}
    bad = sites["grid_new: bad size {rows} x {cols}"]
    assert (bad.kind, bad.function, bad.guard) == (SiteKind.PANIC, "grid_new",
                                                   "rows <= 0 || cols <= 0")
    assert sites["grid_new: out of memory for {sizeof_grid} bytes"].guard == "g == NULL"
    # `fprintf(stderr, ..); return -1;` reports and goes on: not an error site.
    assert not any("past the end" in text for text in sites)
    # The switch's cases: the sparse one after the dense one failed, default after both.
    sparse = sites["grid_fill: cannot fill a sparse grid with {value}"]
    assert [p.spec for p in sparse.template.placeholders] == ["%lld"]  # `%" PRId64 "`
    assert sparse.guard == "!(g->mode == GRID_DENSE) && g->mode == GRID_SPARSE"
    assert sites["grid_fill: unknown mode {mode}"].guard == (
        "!(g->mode == GRID_DENSE) && !(g->mode == GRID_SPARSE)")
    asserted = sites["{function}: Assertion {quote}row < g->rows && \"row out of range\"' failed."]
    assert asserted.kind is SiteKind.ASSERT
    assert asserted.line == _line(grid, '"row out of range"')
    # The message a string adds to the condition is always true: the guard is the test.
    assert asserted.guard == "!(row < g->rows)"
    path = next(p for p in found.structure.paths if p.line == asserted.line)
    assert [s.kind for s in path.steps] == [EARLY_EXIT, RULE]  # `assert(g != NULL)` before
    assert [(d.name, d.params) for d in found.structure.defs] == [
        ("grid_new", ("rows", "cols")), ("grid_get", ("g", "row", "col")),
        ("grid_fill", ("g", "value"))]


def test_the_printf_parser_reads_c_conversions() -> None:
    parts = split("%-5zu of %lld at %2$s, %S %R %U %p, 100%%", c=True)
    fields = [p.written for p in parts if not isinstance(p, str)]
    assert fields == ["%-5zu", "%lld", "%2$s", "%S", "%R", "%U", "%p"]
    assert "".join(p for p in parts if isinstance(p, str)) == " of  at ,    , 100%"


def test_cpp_throws_checks_and_macros_give_templates_exceptions_and_guards() -> None:
    found = _extract(Language.CPP, CPP_REPO, "src/tensor.cpp")
    sites = {s.template.text: s for s in found.sites}
    rank = sites["reshape: rank {rank} over 8"]  # `"a" + std::to_string(rank) + "b"`
    assert (rank.kind, rank.exception) == (SiteKind.RAISE, "std::invalid_argument")
    assert (rank.function, rank.guard) == ("Tensor::reshape", "rank > 8")
    assert sites["reshape: tensor {name} is frozen"].exception == "std::runtime_error"
    at = sites["at: index {index} out of range for size {size_}"]  # fmt::format
    assert (at.exception, at.guard) == ("std::out_of_range", "index < 0 || index >= size_")
    # A class with its base's constructors takes the text it is given.
    assert sites["reshape: a tensor needs a name"].exception == "ConfigError"
    check = sites["Check failed: rows > 0 resize: rows must be positive, got {rows}"]
    assert (check.kind, check.guard) == (SiteKind.PANIC, "!(rows > 0)")
    equal = sites["Check failed: rows % 2 == 0 ({value} vs. {value_2}) resize: rows must be even"]
    assert equal.guard == "rows % 2 != 0"
    torch = sites["resize: cols {cols} over the limit 4096"]
    assert (torch.exception, torch.guard) == ("RuntimeError", "!(cols <= 4096)")
    bare = sites["Expected rows * cols != 0 to be true, but got false."]
    assert bare.exception == "RuntimeError"
    fatal = sites["resize: out of memory for {rows} rows"]  # LOG(FATAL) in a catch
    assert (fatal.kind, fatal.guard) == (SiteKind.PANIC, "std::bad_alloc")
    path = next(p for p in found.structure.paths if p.line == fatal.line)
    assert path.steps[-1].kind == EXCEPT
    cv = sites["(-215:Assertion failed) ksize % 2 == 1 in function '{function}'"]
    assert (cv.kind, cv.exception, cv.function) == (SiteKind.ASSERT, "cv::Exception", "blur")
    assert sites["({value}) blur: the image is empty in function '{function}'"].guard == (
        "image.empty()")
    # `throw ShapeError(1, rank)`: the class builds the text, found with its definition.
    built = [c for c in found.constructions if c.type_path == "ShapeError"]
    assert [(c.function, c.guard, c.message_given) for c in built] == [
        ("Tensor::reshape", "rank == 0", False)]


def test_an_exception_class_defines_the_message_its_constructor_builds() -> None:
    found = _extract(Language.CPP, CPP_REPO, "include/tensorlib/errors.hpp")
    (definition,) = found.definitions
    assert (definition.name, definition.fields) == ("ShapeError", ("want", "got"))
    assert definition.template.text == "shape: want rank {want}, got {got}"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    out: dict[str, tuple[Path, dict[str, Any]]] = {}
    for name, fixture in (("c", C_REPO), ("cpp", CPP_REPO)):
        tmp = tmp_path_factory.mktemp(name)
        root = tmp / "repo"
        shutil.copytree(fixture, root)
        (snapshot,) = resolve(str(root), SourceOptions(repo=f"t/{name}lib"))
        db = tmp / f"{name}.sqlite"
        with SQLiteStore(db) as store:
            summary = index_snapshot(snapshot, store, workers=1)
            assert dict(summary.skipped) == {"tests": 1}
            records = {r.template.text: record_to_dict(r)
                       for r in (store.record(x.id) for x in store.records())}  # fmt: skip
        out[name] = db, records
    return out


def test_test_sources_are_not_the_library(indexed: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    for _, records in indexed.values():
        assert not any("on purpose" in text for text in records)


def test_a_thrown_class_gets_the_text_its_header_builds(
    indexed: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    _, records = indexed["cpp"]
    shape = records["shape: want rank {want}, got {got}"]
    assert shape["exception"] == "ShapeError"
    assert [(s["path"], s["function"]) for s in shape["sites"]] == [
        ("src/tensor.cpp", "Tensor::reshape")]


def test_a_constructor_defined_out_of_its_class_in_a_cpp_header_project(
    indexed: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    """`LimitError` is declared in a `.h` (read as C++: it holds a class) and its
    constructor, with the text, in a `.cpp`; the record is where it is thrown."""
    _, records = indexed["cpp"]
    limit = records["limit {limit} exceeded: {got}"]
    assert (limit["exception"], limit["language"]) == ("LimitError", "cpp")
    assert [(s["path"], s["function"], s["guard"]) for s in limit["sites"]] == [
        ("src/limits.cpp", "check_limit", "got > limit")]
    # A `.h` that holds a class is read with C++'s grammar and rules; a C header is C.
    header = extractor_for(Language.C).extract(
        "include/errors.h", (CPP_REPO / "include/tensorlib/errors.hpp").read_bytes(),
        load_rules(Language.C))
    assert [(d.language, d.name) for d in header.definitions] == [(Language.CPP, "ShapeError")]
    plain = extractor_for(Language.C).extract(
        "src/grid.h", (C_REPO / "src/grid.h").read_bytes(), load_rules(Language.C))
    assert plain.structure is not None and plain.definitions == ()


def test_cpp_pages_speak_cpp(indexed: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    _, records = indexed["cpp"]
    page = records["reshape: rank {rank} over 8"]["explanation"]
    assert page["summary"] == "`rank` must be at most 8 when calling `Tensor::reshape`"
    defensive = page["defensive"]
    assert defensive["validate"].startswith(
        'if (rank > 8) {\n    throw std::invalid_argument("rank must be at most 8");\n}')
    assert defensive["type_guard"] == "static bool rank_ok(int rank) {\n    return rank <= 8;\n}"
    assert "} catch (const std::invalid_argument& e) {" in defensive["try_catch"]
    assert 'std::string(e.what()).find("reshape: rank") != std::string::npos' in (
        defensive["try_catch"])
    # A glog CHECK aborts: there is nothing to catch, the page says to check first.
    check = records["Check failed: rows > 0 resize: rows must be positive, got {rows}"]
    assert "nothing to catch" in check["explanation"]["defensive"]["try_catch"]
    assert records["reshape: a tensor needs a name"]["explanation"]["defensive"][
        "type_guard"] == "static bool name_ok(const auto& name) {\n    return !name.empty();\n}"


def test_c_pages_speak_c(indexed: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    _, records = indexed["c"]
    raised = records["reshape: rank {rank} over 8"]["explanation"]["defensive"]
    assert "PyErr_ExceptionMatches(PyExc_ValueError)" in raised["try_catch"]
    size = records["grid_new: bad size {rows} x {cols}"]["explanation"]["defensive"]
    assert size["validate"].startswith("if (rows <= 0 || cols <= 0) {\n    fprintf(stderr, ")
    assert size["type_guard"].startswith("static bool rows_ok(int rows, int cols) {")
    assert "nothing to catch" in size["try_catch"]


def test_no_page_names_anything_the_code_lacks(
    indexed: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    for name, (db, records) in indexed.items():
        with SQLiteStore(db) as store:
            report = check_store(store, f"t/{name}lib")
        assert report["records"] == len(records)
        assert report["unknown"] == []


def _explain(db: Path, paste: str) -> dict[str, Any]:
    done = subprocess.run([str(ERRDEX), "--db", str(db), "explain", "--json", "-"],
                          input=paste, capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    first: dict[str, Any] = json.loads(done.stdout)["matches"][0]
    return first


@pytest.mark.parametrize("quote", ["`", "'"])
def test_a_failed_assert_finds_its_record(
    indexed: dict[str, tuple[Path, dict[str, Any]]], quote: str,
) -> None:
    db, records = indexed["c"]
    paste = (f"gridtool: src/grid.c:27: grid_get: Assertion {quote}row < g->rows && "
             f"\"row out of range\"' failed.\nAborted (core dumped)\n")
    first = _explain(db, paste)
    key = "{function}: Assertion {quote}row < g->rows && \"row out of range\"' failed."
    assert first["id"] == records[key]["id"]
    assert "traceback frame src/grid.c:27" in first["why"]


def test_a_python_traceback_raised_from_c_finds_the_c_site(
    indexed: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    db, records = indexed["c"]
    paste = ("Traceback (most recent call last):\n  File \"app.py\", line 4, in <module>\n"
             "    _grid.index(5000, 'k')\nIndexError: index 5000 out of range for key 'k'\n")
    first = _explain(db, paste)
    assert first["id"] == records["index {index} out of range for key {key}"]["id"]
    assert "exception type IndexError agrees" in first["why"]


@pytest.mark.parametrize(("paste", "key"), [
    ("terminate called after throwing an instance of 'std::invalid_argument'\n"
     "  what():  reshape: rank 12 over 8\nAborted (core dumped)\n",
     "reshape: rank {rank} over 8"),
    ("F1201 12:00:00.000123  4242 tensor.cpp:50] Check failed: rows % 2 == 0 (1 vs. 0) "
     "resize: rows must be even\n*** Check failure stack trace: ***\n"
     "    @     0x7f3a2c1b2d3e  google::LogMessage::Fail()\n",
     "Check failed: rows % 2 == 0 ({value} vs. {value_2}) resize: rows must be even"),
    ("OpenCV(4.8.0) /build/src/tensor.cpp:61: error: (-215:Assertion failed) ksize % 2 == 1 "
     "in function 'blur'\n",
     "(-215:Assertion failed) ksize % 2 == 1 in function '{function}'"),
    ("Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n"
     "    ext.resize(2, 9000)\nRuntimeError: resize: cols 9000 over the limit 4096\n",
     "resize: cols {cols} over the limit 4096"),
])
def test_what_a_cpp_program_prints_finds_its_record(
    indexed: dict[str, tuple[Path, dict[str, Any]]], paste: str, key: str,
) -> None:
    db, records = indexed["cpp"]
    assert _explain(db, paste)["id"] == records[key]["id"]


def test_the_runtime_banners_are_structure_not_message() -> None:
    paste = parse_paste("terminate called after throwing an instance of 'std::runtime_error'\n"
                        "  what():  reshape: tensor t is frozen\n")
    messages = [paste.docs[0].text[g.start:g.end] for g in paste.groups]
    assert messages == ["reshape: tensor t is frozen"]
    glog = parse_paste("F1201 12:00:00.000123  4242 tensor.cpp:49] Check failed: rows > 0 \n")
    (group,) = glog.groups
    assert glog.docs[0].text[group.start:group.end].startswith("Check failed: rows > 0")
    assert group.frame is not None and (group.frame.path, group.frame.line) == ("tensor.cpp", 49)


MACROS_H = b"""\
#ifndef GRID_CONN_H
#define GRID_CONN_H 1

/* raise an exception if the connection is closed */
#define EXC_IF_CLOSED(self) if ((self)->closed > 0) { \\
    PyErr_SetString(InterfaceError, "grid connection already closed"); \\
    return NULL; }

#define EXC_IF_BUSY(self, cmd) do { \\
    if ((self)->busy) { \\
        PyErr_Format(ProgrammingError, "%s cannot be used " \\
            "while a query runs", #cmd); \\
        return NULL; \\
    } \\
} while (0)

#define GRID_NEXT(x) ((x) + 1)
#endif
"""


def test_a_raise_inside_a_macro_body_is_a_site_of_the_macro() -> None:
    """The grammar keeps a `#define`'s body as text; the raise in it is a site at its own
    line, named by the macro, with the body's condition and `#cmd` as a hole."""
    found = extractor_for(Language.C).extract("src/conn.h", MACROS_H, load_rules(Language.C))
    sites = {s.template.text: s for s in found.sites}
    closed = sites["grid connection already closed"]
    assert (closed.exception, closed.function, closed.line) == (
        "InterfaceError", "EXC_IF_CLOSED", 6)
    assert closed.guard == "(self)->closed > 0"
    assert "#define EXC_IF_CLOSED(self)" in closed.snippet.code  # the file as written
    busy = sites["{cmd} cannot be used while a query runs"]
    assert (busy.exception, busy.function, busy.line) == ("ProgrammingError", "EXC_IF_BUSY", 11)
    assert busy.guard == "(self)->busy"
    assert len(found.sites) == 2  # `GRID_NEXT` raises nothing
