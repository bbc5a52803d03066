"""Error helpers are discovered, not only listed (issue 18): a function whose body raises
the message its caller gives it (C and C++, Python, Go) is found in the code, and its calls
in every file of the repository are sites of the caller's message, with the caller's
function, guard and snippet; the index summary names the helpers found. C++ messages made
in a std::string (or a C buffer) before the raise are templates with holes, their site
spanning from where the message starts. The repositories are written here, file by file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.extract import extractor_for, load_rules
from errdex.index import index_snapshot
from errdex.models import Language, SiteKind
from errdex.serve.terminal import Style, summary_text
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

_COMMON_H = """\
#pragma once
#include <string>
#include <stdexcept>

namespace shapes {

[[noreturn]] inline void shapes_fail(const std::string &reason) {
    throw std::runtime_error(reason);
}

inline void raise_python(PyObject *type, const char *message) {
    PyErr_SetString(type, message);
}

inline void fail_at(const char *what, int line) {
    throw std::invalid_argument(std::string(what) + " at line " + std::to_string(line));
}

inline void require(bool ok, const char *msg) {
    if (!ok) {
        throw std::logic_error(msg);
    }
}

// Not a helper: it raises a text of its own, whatever its caller passes.
inline void parse_header(const char *text) {
    if (text[0] != '#') {
        throw std::runtime_error("a header starts with '#'");
    }
}

}  // namespace shapes
"""

_GRID_CPP = """\
#include "common.h"

namespace shapes {

void Grid::add(const Cell &cell) {
    if (cell.rows > max_rows) {
        shapes_fail("Grid::add: cell \\"" + std::string(cell.name) + "\\" is too tall");
    }
    require(cell.cols > 0, "a cell needs at least one column");
    parse_header("# grid");
}

PyObject *Grid::to_python(Function *f) {
    if (!f->converted) {
        std::string msg = "Unable to turn " + std::string(f->name) + " into a Python value";
        for (int i = 0; i < f->arity; i++) {
            msg += f->args[i];
        }
        msg += "; signature: ";
        msg += f->signature;
        raise_python(PyExc_TypeError, msg.c_str());
        return nullptr;
    }
    return f->value;
}

void Grid::load(int line) {
    fail_at("unexpected end of grid", line);
}

}  // namespace shapes
"""

_OTHER_CPP = """\
// Another `require`, of another arity, in a file of its own: calls of it are not sites.
int require(int level) { return level + 1; }

void report() { int x = require(3); (void)x; }
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _index(root: Path, repo: str) -> tuple[Any, dict[str, Any]]:
    (snapshot,) = resolve(str(root), SourceOptions(repo=repo))
    with SQLiteStore(root.parent / f"{root.name}.sqlite") as store:
        summary = index_snapshot(snapshot, store, workers=1)
        records = [store.record(row.id) for row in store.records(repo)]
    return summary, {r.template.text: r for r in records if r is not None}


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_calls_of_a_helper_in_another_file_are_sites_of_the_callers_message(tmp_path: Path) -> None:
    root = _write(tmp_path / "shapes", {"include/common.h": _COMMON_H, "src/grid.cpp": _GRID_CPP,
                                        "src/other.cpp": _OTHER_CPP})
    summary, records = _index(root, "t/shapes")

    tall = records['Grid::add: cell "{cell}" is too tall']
    (site,) = tall.sites
    assert (site.path, site.line) == ("src/grid.cpp", _line(_GRID_CPP, "shapes_fail("))
    assert (site.kind, site.exception) == (SiteKind.RAISE, "std::runtime_error")
    assert (site.function, site.guard) == ("Grid::add", "cell.rows > max_rows")
    assert "shapes_fail(" in site.snippet.code

    # A check helper: its caller's condition is the guard, failing when it does not hold.
    (column,) = records["a cell needs at least one column"].sites
    assert column.exception == "std::logic_error"
    assert column.guard == "!(cell.cols > 0)"

    # The helper's own text around its argument is the caller's template.
    (end,) = records["unexpected end of grid at line {value}"].sites
    assert (end.function, end.exception) == ("Grid::load", "std::invalid_argument")

    # The class a Python C API helper raises is the one its caller names.
    convert = next(r for t, r in records.items() if t.startswith("Unable to turn "))
    assert convert.template.literals[:2] == ("Unable to turn ", " into a Python value")
    assert convert.template.literals[-2:] == ("; signature: ", "")
    assert convert.exception == "TypeError"

    # A function raising a text of its own passes nothing: its calls are no sites.
    assert not any("# grid" in t for t in records)
    assert "a header starts with '#'" in records  # its own raise is one
    shown = summary_text(summary, Style(False))
    assert "helpers      4 found in the code: fail_at (include/common.h:" in shown
    assert "shapes_fail (include/common.h:7)" in shown and "parse_header" not in shown


def test_a_message_made_in_a_string_before_the_raise_has_holes_and_starts_there() -> None:
    source = _GRID_CPP.replace("raise_python(PyExc_TypeError, msg.c_str());",
                               "throw std::runtime_error(msg);").encode()
    found = extractor_for(Language.CPP).extract("src/grid.cpp", source, load_rules(Language.CPP))
    (site,) = [s for s in found.sites if s.template.text.startswith("Unable to turn")]
    # What a loop appends is one hole; what follows it at the same level is text.
    assert site.template.text == "Unable to turn {turn} into a Python value{msg}; signature: " \
        "{signature}"
    assert [p.expression for p in site.template.placeholders] == [
        "std::string(f->name)", "msg", "f->signature"]
    assert site.line == _line(_GRID_CPP, "std::string msg =")
    assert site.end_line == _line(_GRID_CPP, "raise_python(")
    assert site.guard == "!f->converted"


_UTILS_C = """\
#include <Python.h>

PyObject *
lib_set_error(PyObject *exc, void *owner, const char *msg)
{
    PyObject *text = NULL;
    PyObject *err = NULL;

    if ((text = make_text(owner, msg))) {
        err = PyObject_CallFunctionObjArgs(exc, text, NULL);
        Py_DECREF(text);
    }
    if (err) {
        PyErr_SetObject(exc, err);
    }
    return err;
}
"""

_ADAPT_C = """\
#include <Python.h>

PyObject *
adapt(PyObject *obj)
{
    char buffer[255];

    if (obj == Py_None) {
        lib_set_error(ProgrammingError, NULL, "can't adapt None");
        return NULL;
    }
    PyOS_snprintf(buffer, 255, "can't adapt type '%s'", Py_TYPE(obj)->tp_name);
    lib_set_error(ProgrammingError, NULL, buffer);
    return NULL;
}
"""


def test_a_c_helper_raising_its_argument_through_locals_and_a_printed_buffer(
        tmp_path: Path) -> None:  # fmt: skip
    root = _write(tmp_path / "adapter", {"src/utils.c": _UTILS_C, "src/adapt.c": _ADAPT_C})
    summary, records = _index(root, "t/adapter")
    assert summary.helpers == ("lib_set_error (src/utils.c:3)",)
    (none,) = records["can't adapt None"].sites
    assert (none.exception, none.function, none.guard) == ("ProgrammingError", "adapt",
                                                           "obj == Py_None")
    (typed,) = records["can't adapt type '{type}'"].sites
    assert typed.exception == "ProgrammingError"
    assert typed.line == _line(_ADAPT_C, "PyOS_snprintf(")
    assert typed.end_line == _line(_ADAPT_C, "lib_set_error(ProgrammingError, NULL, buffer)")


def test_a_name_two_functions_share_with_the_same_arity_is_no_helper(tmp_path: Path) -> None:
    other = "void require(int a, const char *why) { log_line(a, why); }\n" \
            "void go() { require(1, \"a note, not an error\"); }\n"  # fmt: skip
    root = _write(tmp_path / "clash", {"include/common.h": _COMMON_H, "src/grid.cpp": _GRID_CPP,
                                       "src/note.cpp": other})
    summary, records = _index(root, "t/clash")
    assert "a cell needs at least one column" not in records
    assert "a note, not an error" not in records
    assert not any(h.startswith("require ") for h in summary.helpers)
    assert any(h.startswith("shapes_fail ") for h in summary.helpers)


_ERRORS_PY = """\
class ConfigError(Exception):
    pass


def complain(key, message):
    raise ConfigError(f"config key {key!r}: {message}")
"""

_LOADER_PY = """\
from ._errors import complain


def load(data):
    if "name" not in data:
        complain("name", "is required")
    return data
"""


def test_a_python_helper_whose_name_says_nothing_is_found_from_another_module(
        tmp_path: Path) -> None:  # fmt: skip
    root = _write(tmp_path / "conf", {"conf/__init__.py": "", "conf/_errors.py": _ERRORS_PY,
                                      "conf/loader.py": _LOADER_PY})
    summary, records = _index(root, "t/conf")
    assert summary.helpers == ("complain (conf/_errors.py:5)",)
    # The helper's own text around the caller's: what the user sees.
    (site,) = records["config key name: is required"].sites
    assert (site.path, site.line) == ("conf/loader.py", _line(_LOADER_PY, "complain("))
    assert (site.exception, site.function) == ("ConfigError", "conf.loader.load")
    assert site.guard is not None and "not in data" in site.guard


_ERRS_GO = """\
package errs

import "fmt"

// Wrap says what was being done when err happened.
func Wrap(err error, msg string) error {
	return fmt.Errorf("%s: %w", msg, err)
}
"""

_LOAD_GO = """\
package cfg

import "example.com/app/errs"

func Load(path string) error {
	f, err := open(path)
	if err != nil {
		return errs.Wrap(err, "open config file")
	}
	if other.Wrap(err, "not ours") != nil {
		return nil
	}
	return f.Close()
}
"""


def test_a_go_helper_wrapping_an_error_is_found_through_its_package(tmp_path: Path) -> None:
    root = _write(tmp_path / "app", {"errs/errs.go": _ERRS_GO, "cfg/load.go": _LOAD_GO})
    summary, records = _index(root, "t/app")
    assert summary.helpers == ("Wrap (errs/errs.go:6)",)
    (site,) = records["open config file: {value}"].sites
    assert (site.path, site.function, site.guard) == ("cfg/load.go", "Load", "err != nil")
    # Another package's `Wrap` is not this one.
    assert not any("not ours" in text for text in records)


_PARSE_GO = """\
package toml

import (
	"errors"
	"fmt"
)

type parser struct{ line int }

func (p *parser) panicf(format string, v ...any) {
	panic(ParseError{
		Message: fmt.Sprintf(format, v...),
		Line:    p.line,
	})
}

func debugPrint(format string, values ...any) {
	fmt.Fprintf(DefaultWriter, "[TOML-debug] "+format, values...)
}

func (p *parser) printErrf(format string, values ...any) {
	p.printErr(fmt.Sprintf(format, values...))
}

func (p *parser) fail(format string, values ...any) error {
	return errors.New(fmt.Sprintf(format, values...))
}

func (p *parser) setKey(key string, seen bool) {
	if seen {
		p.panicf("Key '%s' has already been defined.", key)
	}
	debugPrint("key %q set at line %d", key, p.line)
	p.printErrf("Run '%v --help' for usage.", key)
}

func (p *parser) check(n int) error {
	if n < 0 {
		return p.fail("negative count %d", n)
	}
	return nil
}
"""


def test_printf_style_go_helpers_and_methods_are_sites_of_their_callers_format(
    tmp_path: Path,
) -> None:
    """BurntSushi/toml's `p.panicf(..)` and gin's `debugPrint(..)` (fresh3 pastes that
    matched nothing): a function or method handing its format and values on to a
    formatter makes each call a site of the caller's format, with the helper's prefix.
    A message handed to a call whose result is dropped is printed (cobra's `PrintErrf`
    writes its usage hint to stderr), one returned through `errors.New` is an error."""
    root = _write(tmp_path / "toml", {"parse.go": _PARSE_GO})
    summary, records = _index(root, "t/toml")
    assert sorted(summary.helpers) == ["debugPrint (parse.go:17)", "fail (parse.go:25)",
                                       "panicf (parse.go:10)", "printErrf (parse.go:21)"]
    assert records["Run '{key} --help' for usage."].sites[0].kind == SiteKind.LOG
    assert records["negative count {n}"].sites[0].kind == SiteKind.BAIL
    defined = records["Key '{key}' has already been defined."]
    (site,) = defined.sites
    assert (site.kind, site.function, site.guard) == (SiteKind.PANIC, "parser.setKey", "seen")
    printed = records["[TOML-debug] key {key} set at line {line}"]
    assert printed.sites[0].kind == SiteKind.LOG
