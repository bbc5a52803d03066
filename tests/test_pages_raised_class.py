"""A raise that writes its class through an object (`raise source.error(..)`, whose
method builds and returns the package's `error`) names the class the user catches:
`lexing.error`, and the snippets catch it instead of `Exception` (issue 20, round-8
Python review defect 1: `re._parser` raises `re.error` as `source.error`)."""

from __future__ import annotations

from pathlib import Path

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "lexing/__init__.py": "from ._consts import error\n\n__all__ = ['error']\n",
    "lexing/_consts.py": "class error(Exception):\n    pass\n",
    "lexing/_scan.py": (
        "from ._consts import *\n\n\n"
        "class Reader:\n"
        "    def __init__(self, text):\n"
        "        self.text = text\n\n"
        "    def error(self, msg):\n"
        "        return error(msg)\n\n\n"
        "def scan(source, flags):\n"
        "    if flags & 4:\n"
        "        raise source.error('scoped flag cannot be global')\n"
        "    return flags\n"
    ),
}


def test_a_class_built_by_a_method_is_named_as_users_catch_it(tmp_path: Path) -> None:
    (record,) = [r for r in indexed_records(tmp_path, FILES, "acme/lexing")
                 if r.template.message.startswith("scoped")]
    page = record_to_dict(record)["explanation"]
    assert "raises `lexing.error`" in page["what_it_means"]
    assert "source.error" not in page["what_it_means"]
    assert "from lexing import error\n" in page["defensive"]["try_catch"]
    assert "except error as e:" in page["defensive"]["try_catch"]
