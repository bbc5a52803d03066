"""The requirement a page states reads the code before the check, not its last test alone
(round-9 review, Python #2, #5, #10, #14, C2, C10): an earlier `return` before a bare
`raise` is the check; a check inside `except AttributeError:` of a `getattr` also passes
when the attribute exists; keys a function takes out of `**kwargs` before `if kwargs:`
are the ones it accepts; a list filled in a loop is not what it started as; and
`len(memoryview(buf))` reads `buf`. Indexed from a small package written here."""

from __future__ import annotations

from typing import Any

import pytest

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "kit/__init__.py": "",
    "kit/chunks.py": (
        "def read_chunk(data, n):\n"
        "    if len(data) == n:\n"
        "        return data\n"
        "    raise ValueError('expected %d bytes, but only %d remain' % (n, len(data)))\n\n\n"
        "def read_word(f):\n"
        "    data = f.read(4)\n"
        "    if len(data) == 4:\n"
        "        return data\n"
        "    raise ValueError('not enough data in stream to read a word')\n"
    ),
    "kit/pick.py": (
        "def pick(method):\n"
        "    if method == 'low':\n"
        + "".join(f"        step{i} = {i}\n" for i in range(20))
        + "        return 1\n"
        "    if method == 'high':\n"
        "        return 2\n"
        "    raise ValueError(f'unknown pick method {method!r}')\n\n\n"
        "def encode(n, wide):\n"
        "    n = int(n)\n"
        "    if 0 <= n < 8:\n"
        "        s = n\n"
        "    elif wide:\n"
        "        n >>= 8\n"
        "        s = n\n"
        "    else:\n"
        "        raise ValueError('number field overflow')\n"
        "    return s\n"
    ),
    "kit/source.py": (
        "class Code:\n    path = ''\n\n\n"
        "def source_of(obj):\n"
        "    if callable(obj):\n"
        "        obj = obj.code\n"
        "    if isinstance(obj, Code):\n"
        "        return obj.path\n"
        "    raise TypeError('a code object was expected')\n"
    ),
    "kit/case.py": (
        "class Case:\n"
        "    def __init__(self, methodName='runTest'):\n"
        "        try:\n"
        "            method = getattr(self, methodName)\n"
        "        except AttributeError:\n"
        "            if methodName != 'runTest':\n"
        "                raise ValueError('no such method in %s: %s' % (self, methodName))\n"
        "        else:\n"
        "            self.method = method\n"
    ),
    "kit/menu.py": (
        "class Menu:\n"
        "    def __init__(self, master, *values, **kwargs):\n"
        "        if 'command' in kwargs:\n"
        "            del kwargs['command']\n"
        "        self.style = kwargs.pop('style', None)\n"
        "        if kwargs:\n"
        "            raise TypeError('unknown menu option -' + next(iter(kwargs)))\n"
    ),
    "kit/config.py": (
        "def configure(**kwargs):\n"
        '    """Configure the kit.\n\n'
        + "".join(f"    Line {i} of a long description.\n" for i in range(16))
        + '    """\n'
        "    level = kwargs.pop('level', None)\n"
        "    if kwargs:\n"
        "        raise TypeError('unexpected configure option %s' % next(iter(kwargs)))\n"
        "    return level\n\n\n"
        "def setup(**kwargs):\n"
        "    name = kwargs.pop('name', None)\n"
        + "".join(f"    step{i} = {i}\n" for i in range(20))
        + "    mode = kwargs.pop('mode', None)\n"
        "    if kwargs:\n"
        "        raise TypeError('unexpected setup option %s' % next(iter(kwargs)))\n"
        "    return name, mode\n"
    ),
    "kit/unique.py": (
        "def unique(members):\n"
        "    duplicates = []\n"
        "    for name, value in members.items():\n"
        "        if name != value:\n"
        "            duplicates.append((name, value))\n"
        "    if duplicates:\n"
        "        raise ValueError('duplicate values found: %s' % (duplicates,))\n"
        "    return members\n"
    ),
    "kit/buffer.py": (
        "def fill(buf, offset, size):\n"
        "    with memoryview(buf) as m:\n"
        "        itemsize = m.itemsize\n"
        "        bytesize = itemsize * len(m)\n"
        "        if bytesize < offset + size:\n"
        "            raise ValueError('buffer too short for %d bytes' % size)\n"
    ),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    records = indexed_records(tmp_path_factory.mktemp("before"), FILES, "t/before")
    return {r.template.message: record_to_dict(r) for r in records}


def _page(pages: dict[str, dict[str, Any]], start: str) -> dict[str, Any]:
    (page,) = [p for message, p in pages.items() if message.startswith(start)]
    return page


def _meaning(page: dict[str, Any]) -> str:
    return str(page["explanation"]["what_it_means"])


def test_an_earlier_return_is_the_check_of_a_bare_raise(pages: dict[str, Any]) -> None:
    meaning = _meaning(_page(pages, "expected %d bytes"))
    assert "To pass, `len(data)` must equal `n`" in meaning
    assert "no check of its own decides" not in meaning


def test_an_earlier_return_on_a_computed_value_is_said_as_the_path(
    pages: dict[str, Any],
) -> None:
    # `data` is what the function read, not an argument: the return stays the path to
    # the raise, and the page says the returns are its checks, not that none decides.
    meaning = _meaning(_page(pages, "not enough data in stream"))
    assert "the returns before it are its checks" in meaning
    assert "It is reached only when `len(data)` is not 4" in meaning
    assert "no check of its own decides" not in meaning


def test_an_earlier_return_the_snippet_cuts_off_keeps_the_path(
    pages: dict[str, Any],
) -> None:
    # `method == 'low'` returns too, above what the snippet shows: "must equal 'high'"
    # would be false, so neither return becomes the check.
    page = _page(pages, "unknown pick method")
    assert "must equal `'high'`" not in str(page["explanation"])
    assert "It is reached only when" in _meaning(page)


def test_an_earlier_return_on_a_parameter_assigned_again_keeps_the_path(
    pages: dict[str, Any],
) -> None:
    # `obj = obj.code` above: a callable passes too, so "must be an instance of `Code`"
    # would be false of the argument.
    page = _page(pages, "a code object was expected")
    assert "must be an instance of `Code`" not in str(page["explanation"])
    assert "It is reached only when `obj` is not an instance of `Code`" in _meaning(page)


def test_a_check_in_the_handler_of_a_getattr_passes_when_the_attribute_exists(
    pages: dict[str, Any],
) -> None:
    meaning = _meaning(_page(pages, "no such method"))
    assert ("To pass, one of: the object (`self`) must have an attribute named by "
            "`methodName`; `methodName` must equal `'runTest'`") in meaning
    assert "To pass, `methodName` must equal `'runTest'`;" not in meaning


def test_keys_taken_out_of_kwargs_are_the_ones_accepted(pages: dict[str, Any]) -> None:
    page = _page(pages, "unknown menu option")
    meaning = _meaning(page)
    assert "`kwargs` must have no keys other than `command`, `style`" in meaning
    assert "must be falsy" not in meaning
    # The validate snippet checks the same keys, so `command=` passes it.
    assert "set(kwargs) - {'command', 'style'}" in str(page["explanation"])


def test_keys_are_read_only_when_no_code_above_the_snippet_is_left_out(
    pages: dict[str, Any],
) -> None:
    # The snippet of `configure` starts inside its docstring: all of its code is shown.
    assert "`kwargs` must have no keys other than `level`" in _meaning(
        _page(pages, "unexpected configure option"))
    # The snippet of `setup` starts after `kwargs.pop('name', None)`: saying only `mode` is
    # accepted would be false, so the page keeps the plain check.
    meaning = _meaning(_page(pages, "unexpected setup option"))
    assert "no keys other than" not in meaning
    assert "`kwargs` must be falsy" in meaning


def test_a_list_filled_in_a_loop_is_not_said_to_be_its_first_value(
    pages: dict[str, Any],
) -> None:
    meaning = _meaning(_page(pages, "duplicate values found"))
    assert "is computed as `[]`" not in meaning
    assert ("`duplicates` starts as `[]` and is then changed by "
            "`duplicates.append((name, value))` (line 5)") in meaning


def test_a_change_in_another_branch_is_not_what_the_check_reads(
    pages: dict[str, Any],
) -> None:
    # `n >>= 8` runs in the `elif` arm; the raise is in the `else`: `n` is `int(n)` there.
    meaning = _meaning(_page(pages, "number field overflow"))
    assert "changed by" not in meaning


def test_the_length_of_a_memoryview_is_the_size_of_what_it_views(
    pages: dict[str, Any],
) -> None:
    meaning = _meaning(_page(pages, "buffer too short"))
    assert "i.e. the byte size of `buf`" in meaning
    assert "shape of `itemsize`" not in meaning
