"""Checks on values the function computes from its arguments (`n = sum(1 for _ in
data)`, then `n < 2`), and on the object's own fields: the page says which argument, or
the object's state, decides."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_pages_loops import _page, _repo

PY_LIB = '''\
def spread(data, mu=None):
    n = sum(1 for _ in data)
    if n < 2:
        raise ValueError("spread needs at least two data points")
    return n


class Buffer:
    def __init__(self):
        self.closed = False

    def close(self):
        self.closed = True

    def write(self, data):
        if self.closed:
            raise ValueError("write to a closed buffer")
        return len(data)


def _helper(text, limit):
    size = text.count(" ") + limit
    if size > 10:
        raise ValueError("text has too many words")
    return size


def public_entry(text):
    return _helper(text.strip(), 3)


def until(arg, current):
    try:
        lineno = int(arg)
    except ValueError:
        raise ValueError("not a line number")
    if lineno <= current:
        raise ValueError("the line number is not past the current one")
    return lineno


def mean(data):
    try:
        n = len(data)
    except TypeError:
        n = 0
    if not n:
        raise ValueError("mean needs at least one data point")
    return n


class Worker:
    def __init__(self):
        self._started = False
        self._daemonic = False

    def start(self):
        self._started = True

    @property
    def daemon(self):
        return self._daemonic

    @daemon.setter
    def daemon(self, daemonic):
        if self._started:
            raise RuntimeError("cannot set the daemon flag of a started worker")
        self._daemonic = daemonic


class Lock:
    def __init__(self, data):
        self._data = data

    def validate(self):
        _check_hash(self._data["hash"])


def _check_hash(value):
    if "=" not in value:
        raise ValueError("a hash is written algorithm=value")


def open_mode(mode):
    if not any(c in mode for c in "rwa"):
        raise ValueError("mode must read, write or append")
    return mode
'''


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _repo(tmp_path_factory, {"derived/__init__.py": PY_LIB}, "t/derived")


def test_a_value_computed_from_an_argument_names_that_argument(python: Any) -> None:
    page = _page(python, "spread needs at least two data points")
    assert page["summary"] == ("`n` must be at least 2 when calling `derived.spread`, where "
                               "`n` is computed from `data` (`n = sum(1 for _ in data)`)")
    assert page["solutions"][0].startswith(
        "Change `data` in your call to `derived.spread` so that `n` is at least 2: the check "
        "(derived/__init__.py:4) reads `n`, which `spread` computes from `data` (line 2).")
    assert page["example_fix"]["after"].startswith("# pass data for which n is at least 2")
    assert page["trigger"].startswith("Calling `derived.spread` with `data` for which `n` is "
                                      "less than 2")


def test_a_check_on_the_object_s_own_field_says_its_state_decides(python: Any) -> None:
    assert _page(python, "write to a closed buffer")["summary"] == (
        "`self.closed` must be falsy on the object you call `derived.Buffer.write` on: its "
        "state decides, not an argument of this call")


def test_a_helper_s_computed_value_names_the_caller_s_arguments(python: Any) -> None:
    solution = _page(python, "text has too many words")["solutions"][0]
    # `limit` is the literal 3 `public_entry` passes: not an argument of the user's
    assert solution.startswith("Change the arguments of your call to `derived.public_entry` "
                               "that become `text` of `_helper`"), solution
    assert "Trace the values" not in solution


def test_a_value_set_in_a_try_body_is_the_one_the_check_reads(python: Any) -> None:
    assert _page(python, "the line number is not past the current one")["summary"] == (
        "`lineno` must be greater than `current` when calling `derived.until`, where "
        "`lineno` is computed from `arg` (`lineno = int(arg)`)")


def test_a_value_a_handler_sets_too_is_not_taken_from_the_try_body(python: Any) -> None:
    # `n` is `len(data)` or, for data without a length, 0: not `len(data)` alone
    assert "len(data)" not in _page(python, "mean needs at least one data point")["summary"]


def test_a_comprehension_s_own_variable_is_not_a_value_to_trace(python: Any) -> None:
    assert _page(python, "mode must read, write or append")["summary"] == (
        "`any(c in mode for c in \"rwa\")` must be truthy (not None, empty or zero) when "
        "calling `derived.open_mode`")


def test_a_property_setter_is_assigned_not_called(python: Any) -> None:
    page = _page(python, "cannot set the daemon flag of a started worker")
    assert page["example_fix"]["before"].startswith("worker.daemon = ...  # fails")
    assert "worker.daemon(" not in page["defensive"]["try_catch"]


def test_a_call_that_takes_no_argument_is_not_told_to_change_its_arguments(
        python: Any) -> None:
    page = _page(python, "a hash is written algorithm=value")
    assert page["trigger"] == ("Calling `Lock.validate` when the check at "
                               "derived/__init__.py:81 fails: it takes no argument.")
    assert "arguments of your call" not in " ".join(page["solutions"])
