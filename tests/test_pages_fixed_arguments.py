"""A parameter that every call in the code passes a literal (`get(params, "filters")`)
is no value of the user's (round-15 reviews: candle's darknet `get`, packaging's
`Tokenizer.expect`): the page says so and does not send the user to "the arguments that
become" it; a call that passes anything else, a recursion or a method any object may
have keeps the parameter the caller's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_pages_loops import _repo

PY_LIB = '''\
def _required(data, key):
    if key not in data:
        raise KeyError(f"missing {key}")
    return data[key]


def load(data):
    name = _required(data, "name")
    size = _required(data, "size")
    return name, size


def _width(values, limit):
    if len(values) > limit:
        raise ValueError("too many values")


def draw(values, limit):
    _width(values, 3)
    _width(values, 4)
    _width(values, limit)


def _walk(node, depth):
    if depth > 10:
        raise RecursionError("tree too deep")
    for child in node.children:
        _walk(child, depth + 1)


def walk(node):
    _walk(node, 0)


class Reader:
    def seek(self, whence):
        if whence == 2:
            raise ValueError("cannot seek from the end")


class Writer:
    def seek(self, whence):
        return whence


def rewind(reader):
    reader.seek(0)


def _resize(view, cached):
    if cached:
        raise ValueError("a cached view cannot be resized")
    return view


def resize(view):
    return _resize(view, False)


def _halves(data, width):
    if width % 2 == 1:
        raise ValueError("an odd width has no halves")
    return data[: width // 2]


def split(data):
    return _halves(data, 4), _halves(data, 8)


def _shout(text, loud):
    if loud is not None and loud:
        raise ValueError("shouting is not allowed here")
    return text


def say(text):
    return _shout(text, True)


def _orphan(level):
    if level > 3:
        raise ValueError("level too high for an orphan")


def _bounded(value, top):
    if value > top:
        raise ValueError("value out of range")


def store(value, strict):
    if strict:
        _bounded(value, 10)
    else:
        _bounded(value, 99)
'''

RUST_LIB = '''\
use std::collections::HashMap;

fn get<'a>(params: &'a HashMap<String, String>, key: &str) -> Result<&'a str, String> {
    match params.get(key) {
        None => Err(format!("cannot find {key} in the block")),
        Some(v) => Ok(v),
    }
}

pub fn build(params: &HashMap<String, String>) -> Result<usize, String> {
    let filters = get(params, "filters")?;
    let size = get(params, "size")?;
    Ok(filters.len() + size.len())
}
'''


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _repo(tmp_path_factory, {"fixed/__init__.py": PY_LIB}, "t/fixed")


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _repo(tmp_path_factory, {"Cargo.toml": '[package]\nname = "blocks"\n',
                                    "src/lib.rs": RUST_LIB}, "t/blocks")


def _fixed(record: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = record["facts"]["sites"][0]["fixed"]
    return found


def _changes(record: dict[str, Any]) -> list[str]:
    return [s for s in record["explanation"]["solutions"] if "become" in s or "Change" in s]


def test_a_parameter_every_call_passes_a_literal_is_not_the_users(python: Any) -> None:
    record = python["missing {key}"]
    assert _fixed(record) == {"key": ['"name"', '"size"']}
    meaning = record["explanation"]["what_it_means"]
    assert '`key` (`"name"`, `"size"`) is not a value of yours: every call of `_required` ' \
        "in the code passes it a literal." in meaning, meaning
    assert "`key` is a parameter" not in meaning
    assert all("`key`" not in s for s in _changes(record)), _changes(record)
    assert any("`data`" in s for s in _changes(record)), record["explanation"]["solutions"]


def test_one_call_passing_a_value_keeps_the_parameter_the_callers(python: Any) -> None:
    # The first two calls pass literals, the third the user's own `limit`.
    record = python["too many values"]
    assert _fixed(record) == {}
    assert "not a value of yours" not in record["explanation"]["what_it_means"]
    assert any("`limit`" in s for s in _changes(record)), record["explanation"]["solutions"]


def test_a_recursion_passing_a_computed_value_keeps_the_parameter(python: Any) -> None:
    # `walk` starts it at 0, but `_walk` calls itself with `depth + 1`.
    assert _fixed(python["tree too deep"]) == {}
    assert "not a value of yours" not in python["tree too deep"]["explanation"]["what_it_means"]


def test_a_method_other_classes_share_the_name_of_is_called_by_anyone(python: Any) -> None:
    # `reader.seek(0)` is the only call written, but any object with a `seek` is called so.
    assert _fixed(python["cannot seek from the end"]) == {}


def test_a_rust_helper_called_with_names_is_said_of_the_names(rust: Any) -> None:
    record = rust["cannot find {key} in the block"]
    assert _fixed(record) == {"key": ['"filters"', '"size"']}
    meaning = record["explanation"]["what_it_means"]
    assert '`key` (`"filters"`, `"size"`) is not a value of yours' in meaning, meaning
    assert all("`key`" not in s for s in _changes(record)), _changes(record)


def test_a_flag_every_call_passes_false_cannot_fire(python: Any) -> None:
    record = python["a cached view cannot be resized"]
    assert _fixed(record) == {"cached": ["False"]}
    page = record["explanation"]
    assert "`cached` (`False`) is not a value of yours: every call of `_resize` in the code " \
        "passes it a literal, so the check cannot fail at this commit." in page["what_it_means"]
    assert "no argument of your call to `fixed.resize` causes this" in page["solutions"][0]


def test_calls_passing_different_literals_are_not_restated_with_the_first(python: Any) -> None:
    # `store` passes 10 or 99: the requirement is not "`value` must be at most 10".
    record = python["value out of range"]
    assert _fixed(record) == {"top": ["10", "99"]}
    page = record["explanation"]
    assert "at most 10" not in page["summary"] + page["trigger"], page["summary"]
    assert "`top` (`10`, `99`) is not a value of yours" in page["what_it_means"]
    assert any("`value`" in s for s in _changes(record)), page["solutions"]


def test_arithmetic_on_the_literals_alone_is_worked_out(python: Any) -> None:
    # Every call passes 4 or 8: `width % 2 == 1` is false for both.
    meaning = python["an odd width has no halves"]["explanation"]["what_it_means"]
    assert "`width` (`4`, `8`) is not a value of yours: every call of `_halves` in the code " \
        "passes it a literal, so the check cannot fail at this commit." in meaning, meaning
    # The one of `_bounded` reads `value` too: not worked out.
    assert "cannot fail" not in python["value out of range"]["explanation"]["what_it_means"]


def test_a_parameter_of_a_function_nothing_calls_is_not_said_to_come_from_yours(
    python: Any,
) -> None:
    # No call of `_orphan` is written: who passes `level` is not known, so not said.
    meaning = python["level too high for an orphan"]["explanation"]["what_it_means"]
    assert "`level` is a parameter of `_orphan`." in meaning, meaning
    assert "computes from yours" not in meaning


def test_a_flag_every_call_passes_true_fails_whenever_reached(python: Any) -> None:
    meaning = python["shouting is not allowed here"]["explanation"]["what_it_means"]
    assert "`loud` (`True`) is not a value of yours: every call of `_shout` in the code " \
        "passes it a literal, so the check fails whenever this line is reached." in meaning
    page = python["shouting is not allowed here"]["explanation"]
    assert page["solutions"][0].startswith("Avoid the path that reaches fixed/__init__.py:"), \
        page["solutions"]
    assert "the check there fails whenever it is reached" in page["trigger"], page["trigger"]
