"""A page's Python code is code a user can write (issue 20). It names the exception class
the way user code can import it: a raise writes `errors.Hidden` after `from . import
errors`, or `BadThing` imported from `.errors`, or a class of its own module; user code has
none of those names, so the try/catch says `from shop.errors import Hidden` and catches
`Hidden`. And a special method is run the way users run it: `registry[...] = ...`, not
`registry.__setitem__(...)`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "shop/__init__.py": "from .errors import BadThing\n\n__all__ = ['BadThing']\n",
    "shop/errors.py": (
        "class BadThing(Exception):\n    pass\n\n\n"
        "class Hidden(Exception):\n    pass\n"
    ),
    "shop/core.py": (
        "from . import errors\n\n\n"
        "def load(name):\n"
        "    if not name:\n"
        "        raise errors.Hidden('load: a name is required')\n"
        "    return name\n"
    ),
    "shop/parse.py": (
        "from .errors import BadThing\n\n\n"
        "def parse(text):\n"
        "    if text == '':\n"
        "        raise BadThing('parse: the input is empty')\n"
        "    return text\n"
    ),
    "shop/local.py": (
        "class LocalError(ValueError):\n    pass\n\n\n"
        "def run(count):\n"
        "    if count < 0:\n"
        "        raise LocalError('run: the count is negative')\n"
        "    return count\n"
    ),
    "shop/refuse.py": (
        "from shop import errors\n\n\n"
        "def refuse(name):\n"
        "    raise errors.Hidden(f'refuse: {name} is never accepted')\n"
    ),
    "shop/registry.py": (
        "class Registry:\n"
        "    def __setitem__(self, key, value):\n"
        "        if not isinstance(key, str):\n"
        "            raise TypeError('registry: keys must be strings')\n\n"
        "    def __len__(self):\n"
        "        raise NotImplementedError('counting: no length')\n"
    ),
    "shop/plain.py": (
        "def size(count):\n"
        "    if count > 10:\n"
        "        raise ValueError('size: the count is over ten')\n"
        "    return count\n"
    ),
}


def _pages(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
            for r in indexed_records(tmp_path, FILES, "acme/shop")}


def _runs_beside(root: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run the snippet's import lines where the fixture package is importable."""
    imports = "\n".join(line for line in code.splitlines() if line.startswith("from "))
    return subprocess.run([sys.executable, "-c", imports], cwd=root, capture_output=True,
                          text=True, check=False)  # fmt: skip


def test_the_try_catch_imports_the_class_from_where_users_can(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    expected = {
        "load": ("from shop.errors import Hidden", "except Hidden as e"),
        "parse": ("from shop import BadThing", "except BadThing as e"),  # re-exported
        "run": ("from shop.local import LocalError", "except LocalError as e"),
    }
    for function, (line, handler) in expected.items():
        code = pages[function]["defensive"]["try_catch"]
        assert code.startswith(line + "\n"), code
        assert handler in code
        done = _runs_beside(tmp_path / "repo", code)
        assert done.returncode == 0, done.stderr


def test_the_error_test_names_the_imported_class(tmp_path: Path) -> None:
    code = _pages(tmp_path)["refuse"]["defensive"]["type_guard"]
    assert code.startswith("from shop.errors import Hidden\n")
    assert "isinstance(e, Hidden)" in code
    assert "errors.Hidden" not in code


def test_a_builtin_class_needs_no_import(tmp_path: Path) -> None:
    code = _pages(tmp_path)["size"]["defensive"]["try_catch"]
    assert "import" not in code
    assert "except ValueError as e" in code


def test_a_special_method_is_called_the_way_users_run_it(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    setting = pages["registry"]["example_fix"]["before"]
    assert setting.startswith("registry[...] = ...  # fails"), setting
    assert "__setitem__(" not in pages["registry"]["defensive"]["try_catch"]
    assert pages["counting"]["example_fix"]["before"].startswith("len(registry)  # fails")


SPECIAL = {
    "kit/__init__.py": "",
    "kit/lazy.py": (
        "def __getattr__(name):\n"
        "    if name == 'OldName':\n"
        "        raise AttributeError('lazy: OldName is gone, use NewName')\n"
        "    raise AttributeError(name)\n"
    ),
    "kit/session.py": (
        "class Session:\n"
        "    def __enter__(self):\n"
        "        if self.closed:\n"
        "            raise RuntimeError('session: it is closed')\n"
        "        return self\n\n"
        "    def __class_getitem__(cls, item):\n"
        "        raise TypeError('session: it takes no type parameters')\n"
    ),
    "kit/opener.py": (
        "class URLopener:\n"
        "    def open_data(self, url):\n"
        "        if ',' not in url:\n"
        "            raise ValueError('opener: a data URL needs a comma')\n\n\n"
        "class _Loader:\n"
        "    def load_bytes(self, size):\n"
        "        if size < 0:\n"
        "            raise ValueError('loader: a negative size')\n"
    ),
    "kit/group.py": (
        "class Group:\n"
        "    async def __aenter__(self):\n"
        "        if self.entered:\n"
        "            raise RuntimeError('group: it was entered already')\n"
        "        return self\n"
    ),
    "kit/_impl.py": (
        "def _decode(blob):\n"
        "    if not blob:\n"
        "        raise ValueError('decode: the blob is empty')\n"
        "    return blob\n"
    ),
}


def test_special_functions_are_run_the_way_users_reach_them(tmp_path: Path) -> None:
    pages = {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
             for r in indexed_records(tmp_path, SPECIAL, "acme/kit")}
    # A module's __getattr__ (PEP 562) runs when the attribute its check names is read.
    lazy = pages["lazy"]["defensive"]["try_catch"]
    assert "    kit.lazy.OldName\n" in lazy, lazy
    assert "__getattr__(" not in lazy
    session = pages["session"]["defensive"]["try_catch"]
    assert "with session: ..." in session or "Session[...]" in session, session
    assert "__enter__(" not in session and "__class_getitem__(" not in session


def test_a_private_function_no_public_call_reaches_is_not_written_as_a_call(
    tmp_path: Path,
) -> None:
    pages = {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
             for r in indexed_records(tmp_path, SPECIAL, "acme/kit")}
    code = pages["decode"]["defensive"]["try_catch"]
    assert "_decode(" not in code, code
    assert "...  # your call that reaches kit._impl._decode" in code
    compile(code, "<snippet>", "exec")  # what the page shows is Python that parses


def test_a_value_is_named_only_where_the_class_name_says_how(tmp_path: Path) -> None:
    """`URLopener` may be URL + opener or UR + Lopener: the class keeps its name; a value
    of a private class would pass for the public class users know by that name."""
    pages = {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
             for r in indexed_records(tmp_path, SPECIAL, "acme/kit")}
    assert "URLopener(...).open_data(" in pages["opener"]["defensive"]["try_catch"]
    loader = pages["loader"]["defensive"]["try_catch"]
    assert "...  # your call that reaches kit.opener._Loader.load_bytes" in loader, loader
    assert "loader.load_bytes(" not in loader


def test_an_awaited_call_is_written_inside_an_async_function(tmp_path: Path) -> None:
    pages = {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
             for r in indexed_records(tmp_path, SPECIAL, "acme/kit")}
    code = pages["group"]["defensive"]["try_catch"]
    opening = "async def main() -> None:\n    try:\n        async with group: ..."
    assert code.startswith(opening), code
    compile(code, "<snippet>", "exec")  # `async with` at module level would not compile
