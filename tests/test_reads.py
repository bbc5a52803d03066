"""What a check reads (issue 20, defects 3 and 4): the object's state that another method
set, the function's own parameters even when its header is far above the check, a
local's value only from an assignment that reaches the check, and a flag computed by a
test. Pages say these in the user's terms and never tell the user to change arguments a
check does not read. Indexed from small repositories written here."""

from __future__ import annotations

from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

TRANSPORT = '''\
class Transport:
    def __init__(self, sock):
        self._sock = sock
        self._eof = False

    def write_eof(self):
        self._eof = True

    def write(self, data):
        if not isinstance(data, bytes):
            raise TypeError("data must be bytes")
        if self._eof:
            raise RuntimeError("Cannot call write() after write_eof()")
        self._sock.send(data)
'''

# `loader` is the constructor's own argument; `_bound` too, but `release` also reads
# `_value`, which the base class's methods change: earlier calls decide there.
BOX = '''\
class Box:
    def __init__(self, loader=None):
        self.loader = loader

    def render(self):
        if self.loader is None:
            raise RuntimeError("no loader configured for this box")
        if self.loader.closed:
            raise RuntimeError("the box's loader is closed")
        if registry.get(self.loader) is not self:
            raise RuntimeError("the box is not registered under its loader")


class Base:
    def __init__(self, value=1):
        self._value = value

    def release(self):
        self._value += 1


class Bounded(Base):
    def __init__(self, value=1):
        self._bound = value
        super().__init__(value)

    def release(self):
        if self._value >= self._bound:
            raise ValueError("released too many times")
        super().release()
'''

# `indent` is the parameter, rebound in place; its header is further up than a snippet
# shows; `port` is set in the other arm of the `if` than the raise.
PRINTER = "class Printer:\n    def __init__(self, indent=1, width=80):\n" + "".join(
    f"        self.option_{i} = {i}\n" for i in range(30)
) + '''\
        indent = int(indent)
        if indent < 0:
            raise ValueError("indent must be >= 0")


def parse_port(text):
    port = text.rpartition(":")[2]
    if port.isdigit():
        port = int(port)
    else:
        raise ValueError(f"Port could not be cast to integer value as {port!r}")
    return port
'''

KERNEL = """\
pub fn attention(q: &Tensor) -> Result<Tensor> {
    let head_dim = q.dim(3)?;
    let supported = matches!(head_dim, 32 | 64 | 128);
    if !supported {
        bail!("attention does not support head dim {head_dim}")
    }
    Ok(q.clone())
}
"""


# A public method whose header is further up than a snippet shows.
HEADER = "pub struct Graph;\n\nimpl Graph {\n    pub fn backward(&self, op: &str) -> Result<()> {\n"
GRAPH = HEADER + "".join(f"        let step_{i} = {i};\n" for i in range(30)) + """\
        if op == "ceil" {
            bail!("backward is not supported for {op}")
        }
        Ok(())
    }
}

pub fn train(graph: &Graph) -> Result<()> {
    graph.backward("add")
}
"""


# `mode` is tested as given, then bound again to its lower-case form before the check.
MODES = '''\
def pick(mode=None):
    if mode is not None:
        mode = mode.lower()
        if mode not in ("fast", "slow"):
            raise ValueError("no such mode %s" % mode)
    return mode
'''


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("reads") / "repo"
    for path, text in {"net/transport.py": TRANSPORT, "fmt/printer.py": PRINTER,
                       "box.py": BOX, "modes.py": MODES,
                       "kernels/src/lib.rs": KERNEL,
                       "autograd/src/lib.rs": GRAPH}.items():  # fmt: skip
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/reads"))
    with SQLiteStore(root.parent / "reads.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {r.message: record_to_dict(store.record(r.id)) for r in store.records()}


def _text(page: dict[str, Any]) -> str:
    e = page["explanation"]
    return " ".join([e["summary"], e["what_it_means"], *e["solutions"], e["example_fix"]["after"]])


def test_a_check_on_state_names_the_method_that_set_it(pages: dict[str, Any]) -> None:
    page = pages["Cannot call write() after write_eof()"]
    (site,) = page["facts"]["sites"]
    assert site["state"] == [{"field": "_eof", "set_in": [{"function": "__init__", "line": 4},
                                                          {"function": "write_eof", "line": 7}],
                             "built_by": None, "argument": None}]
    text = _text(page)
    assert "`_eof` is set by `__init__` (line 4), `write_eof` (line 7)" in text
    assert "Change the inputs" not in text and "Change the arguments" not in text


def test_state_the_constructor_copies_from_its_argument(pages: dict[str, Any]) -> None:
    text = _text(pages["no loader configured for this box"])
    assert "`loader` is set by `__init__` (line 3) from its `loader` argument" in text
    assert "Give the object its `loader` when you build it" in text
    assert "look at the calls made before" not in text.lower()
    # Only part of what the check reads comes from the constructor: no such advice.
    text = _text(pages["released too many times"])
    assert "from its `value` argument" not in text and "when you build it" not in text
    # The state of the object the field holds decides, not which one was given.
    assert "when you build it" not in _text(pages["the box's loader is closed"])
    assert "when you build it" not in _text(pages["the box is not registered under its loader"])


def test_parameters_come_from_the_structure_not_the_snippet(pages: dict[str, Any]) -> None:
    page = pages["indent must be >= 0"]
    (site,) = page["facts"]["sites"]
    assert site["parameters"] == ["self", "indent", "width"]
    # The parameter is rebound in place (`indent = int(indent)`): still the caller's value.
    assert page["explanation"]["summary"].startswith("`indent` must be at least 0 when calling")
    assert "does not show which of your arguments" not in _text(page)


def test_a_value_set_in_the_other_branch_is_not_its_origin(pages: dict[str, Any]) -> None:
    page = pages["Port could not be cast to integer value as {port!r}"]
    origins = page["facts"]["sites"][0]["origins"]
    assert all(o["expression"] != "int(port)" for o in origins)
    assert any(o["expression"] == 'text.rpartition(":")[2]' for o in origins)


def test_a_flag_computed_by_a_test_is_read_through(pages: dict[str, Any]) -> None:
    page = pages["attention does not support head dim {head_dim}"]
    requirement = page["facts"]["sites"][0]["requirement"]
    assert requirement is not None and "`supported`" not in requirement
    assert requirement == "`head_dim` must be one of 32, 64, 128"


def test_a_public_method_is_public_when_its_header_is_out_of_view(pages: dict[str, Any]) -> None:
    page = pages["backward is not supported for {op}"]
    assert page["facts"]["sites"][0]["public"] is True
    assert "(internal" not in page["explanation"]["what_it_means"]
    assert page["explanation"]["summary"].startswith("`op` must")


CHECKER = {
    "checker/__init__.py": "from .core import expect_failure\n\n__all__ = ['expect_failure']\n",
    "checker/core.py": (
        "class _Context:\n"
        "    def __init__(self, expected):\n"
        "        self.expected = expected\n\n"
        "    def handle(self):\n"
        "        if not isinstance(self.expected, type):\n"
        "            raise TypeError('expected must be an exception class')\n"
        "        return self\n\n\n"
        "def expect_failure(expected):\n"
        "    context = _Context(expected)\n"
        "    return context.handle()\n"
    ),
}


def test_state_the_users_own_call_builds_is_not_called_earlier_calls(tmp_path: Any) -> None:
    """`expect_failure(x)` builds the `_Context` from `x` and checks it in the same call
    (unittest's assertRaises): its argument decides, not calls made on the object before."""
    from tests.builders import indexed_records

    (record,) = [r for r in indexed_records(tmp_path, CHECKER, "acme/checker")
                 if r.template.message.startswith("expected must")]
    page = record_to_dict(record)
    assert page["facts"]["sites"][0]["state"][0]["built_by"] == "checker.core.expect_failure"
    text = page["explanation"]["what_it_means"]
    assert "the arguments of `checker.core.expect_failure` decide" in text, text
    assert page["explanation"]["trigger"].startswith(
        "Calling `checker.core.expect_failure` with arguments from which it builds")
    whole = str(page["explanation"])
    assert "What was called on the object before decides" not in whole
    assert "no argument of this call changes it" not in whole


READER = {
    "reader/__init__.py": "",
    "reader/wave.py": (
        "class Reader:\n"
        "    def __init__(self, f):\n"
        "        self._width = 0\n"
        "        self.read_header(f)\n\n"
        "    def read_header(self, f):\n"
        "        self._width = f.read(1)[0]\n"
        "        if self._width not in (1, 2, 4):\n"
        "            raise ValueError('header: bad sample width')\n"
    ),
}


def test_a_field_the_function_sets_above_its_check_is_not_earlier_state(tmp_path: Any) -> None:
    """`read_header` sets `self._width` from the file two lines above its check: the file
    it reads decides, not what was called on the object before (round 7, wave.py)."""
    from tests.builders import indexed_records

    (record,) = indexed_records(tmp_path, READER, "acme/reader")
    page = record_to_dict(record)
    assert page["facts"]["sites"][0]["state"] == []
    assert "What was called on the object before decides" not in str(page["explanation"])


PADDING = '''\
pub fn pad_with_zeros(xs: &[f32], left: usize) -> Vec<f32> {
    let left = vec![0.0; left];
    [left, xs.to_vec()].concat()
}

pub fn pad_with_same(xs: &[f32], left: usize) -> Result<Vec<f32>> {
    if xs.is_empty() && left > 0 {
        bail!("cannot pad an empty slice with its own values")
    }
    Ok(xs.to_vec())
}
'''


def test_a_local_of_the_function_above_is_not_the_origin(tmp_path: Any) -> None:
    """`left` is `pad_with_same`'s parameter; the `let left = ..` of the function above it
    in the snippet is another value (round 7 candle #4)."""
    from tests.builders import indexed_records

    (record,) = indexed_records(tmp_path, {"src/lib.rs": PADDING}, "acme/pad")
    origins = record_to_dict(record)["facts"]["sites"][0]["origins"]
    assert [(o["name"], o["how"]) for o in origins if o["name"] == "left"] == [
        ("left", "parameter")], origins


LOCK = {
    "locks/__init__.py": "",
    "locks/lock.py": (
        "class Lock:\n"
        "    def __init__(self):\n"
        "        self._locked = False\n"
        "        self._waiters = []\n\n"
        "    def acquire(self):\n"
        "        self._locked = True\n\n"
        "    def release(self):\n"
        "        if self._waiters:\n"
        "            self._locked = False\n"
        "        if not self._locked:\n"
        "            raise RuntimeError('lock: it is not acquired')\n"
        "        self._locked = False\n"
    ),
}


def test_a_field_set_only_in_a_branch_above_the_check_is_still_state(tmp_path: Any) -> None:
    """`release` sets `_locked` above its check only when there are waiters: whether the
    lock was acquired, by an earlier call, still decides (round 8 review: asyncio's
    `Lock.release` lost its state)."""
    from tests.builders import indexed_records

    (record,) = indexed_records(tmp_path, LOCK, "acme/locks")
    page = record_to_dict(record)
    (state,) = page["facts"]["sites"][0]["state"]
    assert state["field"] == "_locked"
    assert "What was called on the object before decides" in str(page["explanation"])


def test_a_condition_before_a_local_is_bound_again_reads_the_argument(
        pages: dict[str, Any]) -> None:
    """`if mode is not None:` runs before `mode = mode.lower()`: it tests the argument, not
    the lower-case value (CPython turtle's "No turtle-graphics-mode", argparse's `dest`)."""
    meaning = pages["no such mode %s"]["explanation"]["what_it_means"]
    assert "It is reached only when `mode` is not None" in meaning
    assert "`(mode.lower())` is not None" not in meaning
