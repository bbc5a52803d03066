"""A page's Python snippets run at the user's call site (review round 9, #3, #6, C5): the
validate guard reads only the call's arguments (not `self.` of an object the call has not
built, not a local of the raising function), every class a snippet names is imported, and
a generator's call is iterated, or nothing in it runs. Each snippet is executed against
the fixture package, with the call's arguments bound as the caller's variables."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "crate_kit/__init__.py": "",
    "crate_kit/archive.py": (
        "class Archive:\n"
        "    def __init__(self, path, mode='r', encoding=None):\n"
        "        self.path = path\n"
        "        self.mode = mode\n"
        "        self.encoding = encoding\n"
        "        if self.encoding and mode != 'r':\n"
        "            raise ValueError('archive: an encoding is only for reading')\n"
    ),
    "crate_kit/words.py": (
        "def split(items):\n"
        "    first = items[0]\n"
        "    if first < 0:\n"
        "        raise ValueError('split: the first item is negative')\n"
        "    return items\n"
    ),
    # A class no file of the snapshot defines with `class` (a C module's, here made by
    # `type`), reached by a star import: the raise names it as its module has it.
    "crate_kit/_native.py": "NativeError = type('NativeError', (Exception,), {})\n",
    "crate_kit/pack.py": (
        "from crate_kit._native import *\n\n\n"
        "def unpack(data):\n"
        "    if not data.endswith('.'):\n"
        "        raise NativeError('stream: the end marker is missing')\n"
        "    return data\n"
    ),
    "crate_kit/plain.py": (
        "def unzip(data):\n"
        "    if not data.endswith('!'):\n"
        "        raise ValueError('stream: the end marker is missing')\n"
        "    return data\n"
    ),
    "crate_kit/kinds.py": (
        "def make(value):\n"
        "    if not isinstance(value, str):\n"
        "        raise TypeError('%r is not a text' % (value,))\n"
        "    return value\n\n\n"
        "def register(key, value):\n"
        "    assert type(key) is str, '%r is not a text' % (key,)\n"
        "    assert type(value) is str, '%r is not a text' % (value,)\n"
    ),
    "crate_kit/helpers.py": "def valid(name):\n    return name.isidentifier()\n",
    "crate_kit/names.py": (
        "import posixpath\n\nfrom crate_kit import helpers\n\n\n"
        "def tag(name, root):\n"
        "    if not helpers.valid(name) or not posixpath.isabs(root):\n"
        "        raise ValueError('tag: the name or the root is not valid')\n"
        "    return name\n"
    ),
    "crate_kit/chunks.py": (
        "def chunks(data, size):\n"
        "    if size <= 0:\n"
        "        raise ValueError('chunks: the size must be positive')\n"
        "    for i in range(0, len(data), size):\n"
        "        yield data[i : i + size]\n"
    ),
    "crate_kit/aio.py": (
        "async def fetch(url, retries):\n"
        "    if retries < 0:\n"
        "        raise ValueError('fetch: retries must not be negative')\n"
        "    return url\n\n\n"
        "async def lines(path, limit):\n"
        "    if limit <= 0:\n"
        "        raise ValueError('lines: the limit must be positive')\n"
        "    yield path\n"
    ),
    # The check is in a private helper; the public function users call is the generator.
    "crate_kit/blocks.py": (
        "def _checked(size):\n"
        "    if size <= 0:\n"
        "        raise ValueError('blocks: the size must be positive')\n"
        "    return size\n\n\n"
        "def blocks(data, size):\n"
        "    step = _checked(size)\n"
        "    yield from (data[i : i + step] for i in range(0, len(data), step))\n"
    ),
    # A plain function that returns a private generator's call is lazy too (`tokenize`).
    "crate_kit/tokens.py": (
        "def _scan(text):\n"
        "    for ch in text:\n"
        "        if ch == '\\t':\n"
        "            raise ValueError('scan: a tab is not allowed')\n"
        "        yield ch\n\n\n"
        "def scan(text):\n"
        "    return _scan(text)\n"
    ),
}

# Runs a snippet as a user's code: the call's arguments bound, the called name replaced by
# a stand-in that records the call (its `...` arguments are the caller's own), then prints
# what happened as JSON.
RUNNER = textwrap.dedent("""
    import json, sys
    code, bound, called, real = json.loads(sys.argv[1])
    calls = []
    space = dict(bound)
    if called:
        import importlib
        module, _, name = real.rpartition(".")
        target = getattr(importlib.import_module(module), name)
        def stand_in(*args, **kwargs):
            calls.append(1)
            return target(**bound) if bound.get("__run__") is None else None
        space[called] = stand_in
    try:
        exec(code, space)
        if "main" in space:  # the snippet is a coroutine: the user's program runs it
            import asyncio
            asyncio.run(space["main"]())
        outcome = "ok"
    except Exception as e:
        outcome = type(e).__name__
    print(json.dumps({"outcome": outcome, "called": len(calls)}))
""")


def _pages(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
            for r in indexed_records(tmp_path, FILES, "acme/crate")}


def _run(root: Path, code: str, bound: dict[str, Any], called: str = "",
         real: str = "") -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps([code, bound, called, real])],
                          cwd=root, capture_output=True, text=True, check=True)  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _defensive(pages: dict[str, dict[str, Any]], page: str) -> dict[str, str]:
    found: dict[str, str] = pages[page]["defensive"]
    return found


def test_a_constructors_validate_reads_its_arguments_not_self(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    code = _defensive(pages, "archive")["validate"]
    assert code.startswith("if encoding and mode != 'r':\n"), code
    assert "self" not in code.split("\n")[0]
    root, real = tmp_path / "repo", "crate_kit.archive.Archive"
    rejected = _run(root, code, {"path": "a.zip", "mode": "w", "encoding": "utf-8",
                                 "__run__": False}, "Archive", real)  # fmt: skip
    assert rejected == {"outcome": "ValueError", "called": 0}  # stopped before the call
    accepted = _run(root, code, {"path": "a.zip", "mode": "r", "encoding": "utf-8"},
                    "Archive", real)
    assert accepted == {"outcome": "ok", "called": 1}
    guard = _defensive(pages, "archive")["type_guard"]
    check = f"{guard}\nassert not encoding_ok('utf-8', 'w') and encoding_ok('utf-8', 'r')"
    assert _run(root, check, {})["outcome"] == "ok", guard


def test_a_local_is_written_as_what_it_is_set_from(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    code = _defensive(pages, "split")["validate"]
    assert code.startswith("if items[0] < 0:\n"), code  # not `first`, split's own local
    root, real = tmp_path / "repo", "crate_kit.words.split"
    failing = _run(root, code, {"items": [-1, 2], "__run__": False}, "split", real)
    assert failing == {"outcome": "ValueError", "called": 0}
    assert _run(root, code, {"items": [1, 2]}, "split", real) == {"outcome": "ok", "called": 1}


def test_every_class_a_snippet_names_is_imported(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    catch = _defensive(pages, "stream")["try_catch"]
    assert catch.startswith("from crate_kit.pack import NativeError\n"), catch
    assert "except (NativeError, ValueError) as e" in catch, catch
    root = tmp_path / "repo"
    called = catch.split("try:\n    ", 1)[1].split("(", 1)[0]
    for real in ("crate_kit.pack.unpack", "crate_kit.plain.unzip"):  # each site's error
        outcome = _run(root, catch, {"data": "x"}, called, real)
        assert outcome == {"outcome": "RuntimeError", "called": 1}, (real, catch)


def test_a_generators_call_is_iterated_so_its_check_runs(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    catch = _defensive(pages, "chunks")["try_catch"]
    assert "list(chunks(" in catch, catch
    root = tmp_path / "repo"
    # the call's `...` stand for the caller's failing arguments (size 0)
    bound = {"data": "abc", "size": 0}
    outcome = _run(root, catch, bound, "chunks", "crate_kit.chunks.chunks")
    assert outcome == {"outcome": "RuntimeError", "called": 1}  # caught and translated
    assert "list(chunks(" in pages["chunks"]["example_fix"]["before"]


def test_a_coroutines_call_is_awaited_inside_a_coroutine(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    catch = _defensive(pages, "fetch")["try_catch"]
    assert catch.startswith("async def main() -> None:\n") and "await fetch(" in catch, catch
    outcome = _run(tmp_path / "repo", catch, {"url": "u", "retries": -1}, "fetch",
                   "crate_kit.aio.fetch")
    assert outcome == {"outcome": "RuntimeError", "called": 1}  # caught and translated
    assert pages["fetch"]["example_fix"]["before"].startswith("await fetch(")


@pytest.mark.parametrize(("page", "written", "bound", "real"), [
    # an async generator: iterated with `async for`
    ("lines", "[item async for item in lines(", {"path": "p", "limit": 0}, "crate_kit.aio.lines"),
    # the public generator that reaches a private helper's check
    ("blocks", "list(blocks(", {"data": "abc", "size": 0}, "crate_kit.blocks.blocks"),
    # a function returning a generator's call
    ("scan", "list(scan(", {"text": "a\tb"}, "crate_kit.tokens.scan"),
])  # fmt: skip
def test_a_generators_try_runs_it_to_its_end(tmp_path: Path, page: str, written: str,
                                             bound: dict[str, Any], real: str) -> None:  # fmt: skip
    catch = _defensive(_pages(tmp_path), page)["try_catch"]
    assert written in catch, catch
    outcome = _run(tmp_path / "repo", catch, bound, page, real)
    assert outcome == {"outcome": "RuntimeError", "called": 1}


def test_the_page_says_the_class_its_explained_site_raises(tmp_path: Path) -> None:
    """Two of the message's three sites assert; the one explained raises TypeError."""
    records = indexed_records(tmp_path, FILES, "acme/crate")
    record = next(r for r in records if "is not a text" in r.template.message)
    page = record_to_dict(record)["explanation"]
    assert record.exception == "AssertionError"  # the record's: most of its sites
    assert "raises `TypeError`" in page["what_it_means"], page["what_it_means"]
    code = page["defensive"]["validate"]
    assert "raise TypeError(" in code, code
    outcome = _run(tmp_path / "repo", code, {"value": 1, "__run__": False}, "make",
                   "crate_kit.kinds.make")
    assert outcome == {"outcome": "TypeError", "called": 0}


def test_a_module_the_check_reads_is_imported(tmp_path: Path) -> None:
    code = _defensive(_pages(tmp_path), "tag")["validate"]
    assert code.startswith("import posixpath\nfrom crate_kit.names import helpers\n"), code
    root, real = tmp_path / "repo", "crate_kit.names.tag"
    failing = _run(root, code, {"name": "1x", "root": "/srv", "__run__": False}, "tag", real)
    assert failing == {"outcome": "ValueError", "called": 0}
    passing = _run(root, code, {"name": "ok", "root": "/srv"}, "tag", real)
    assert passing == {"outcome": "ok", "called": 1}
