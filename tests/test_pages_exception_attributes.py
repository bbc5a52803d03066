"""What a page says a caught Python exception carries is what a user can read on it
(issue 20, round-8 Python review defect 1): the public attributes its `__init__` (and its
bases' `__init__`) assign to `self`, and the public methods and properties that return
the private ones, not the `__init__`'s parameter names. A class without `__init__` keeps
what it is raised with in `args`."""

from __future__ import annotations

from pathlib import Path

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "parsing/__init__.py": "",
    "parsing/errors.py": (
        "class BaseParseError(Exception):\n"
        "    def __init__(self, msg, cause=None):\n"
        "        self._msg = msg\n"
        "        self._cause = cause\n"
        "        Exception.__init__(self, msg)\n\n"
        "    def getMessage(self):\n"
        "        return self._msg\n\n"
        "    def getCause(self):\n"
        "        return self._cause\n\n"
        "    def describe(self, prefix):\n"
        "        return prefix + self._msg\n\n"
        "    def __str__(self):\n"
        "        return self._msg\n\n\n"
        "class LineParseError(BaseParseError):\n"
        "    def __init__(self, msg, cause, where):\n"
        "        BaseParseError.__init__(self, msg, cause)\n"
        "        self._line = where.line\n"
        "        self.column = where.column\n\n"
        "    @property\n"
        "    def line(self):\n"
        "        return self._line\n\n"
        "    def __str__(self):\n"
        "        return 'line %s: %s' % (self.line, self._msg)\n\n\n"
        "class Hushed(Exception):\n"
        "    def __init__(self, token):\n"
        "        self._token = token\n\n"
        "    def __str__(self):\n"
        "        return 'hushed token %s' % self._token\n\n\n"
        "class Plain(Exception):\n"
        "    def __str__(self):\n"
        "        return 'plain failure: %s' % (self.args,)\n"
    ),
    "parsing/core.py": (
        "from .errors import Hushed, LineParseError, Plain\n\n\n"
        "def parse(text, where):\n"
        "    if not text:\n"
        "        raise LineParseError(text, None, where)\n"
        "    if text == 'x':\n"
        "        raise Plain(text)\n"
        "    if text == 'y':\n"
        "        raise Hushed(text)\n"
        "    return text\n"
    ),
}


def _meanings(tmp_path: Path) -> dict[str, str]:
    return {r.template.message.split(" ")[0]: record_to_dict(r)["explanation"]["what_it_means"]
            for r in indexed_records(tmp_path, FILES, "acme/parsing")}


def test_the_attributes_are_what_init_assigns_and_what_accessors_return(tmp_path: Path) -> None:
    meaning = _meanings(tmp_path)["line"]
    # the parameters `msg`, `cause`, `where` are no attributes of the caught error
    assert "It carries `getMessage()`, `getCause()`, `column`, `line`." in meaning
    assert "`msg`" not in meaning and "`where`" not in meaning
    assert "describe" not in meaning  # a method taking arguments is no accessor


def test_a_class_that_keeps_its_values_private_carries_nothing_said(tmp_path: Path) -> None:
    meaning = _meanings(tmp_path)["hushed"]
    assert "It carries" not in meaning and "`token`" not in meaning


def test_a_class_without_init_carries_its_args(tmp_path: Path) -> None:
    assert "It carries `args`." in _meanings(tmp_path)["plain"]
