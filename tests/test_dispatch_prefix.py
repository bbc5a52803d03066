"""Calls that no name in the code writes (round-7 Python review, defect 1): a page names
the public call that reaches a private helper instead of the helper itself when

- the helper is looked up on its own object by a name built from a literal prefix
  (`getattr(self, "visit_" + name)`, `getattr(self, f"_process_{self.name}")`): the method
  that looks it up calls it, for its own class and the classes derived from it;
- it is a method of a private class that a public base declares (`Transport.write`);
- it is a descriptor's `__get__`, run when the class holding it reads the attribute by a
  computed name (`getattr(ins, key)`)."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records


def _record(tmp_path: Path, files: dict[str, str], start: str) -> Record:
    (record,) = [r for r in indexed_records(tmp_path, files, "t/repo")
                 if r.template.message.startswith(start)]
    return record


VISITOR = {
    "walk/__init__.py": "",
    "walk/visitor.py": (
        "class Visitor:\n"
        "    def visit(self, node):\n"
        "        method = 'visit_' + node.__class__.__name__\n"
        "        return getattr(self, method, self.generic_visit)(node)\n"
        "\n"
        "    def generic_visit(self, node):\n"
        "        return None\n"
    ),
    "walk/printer.py": (
        "from walk.visitor import Visitor\n"
        "\n"
        "\n"
        "class _Printer(Visitor):\n"
        "    def _visit_helper(self, node):\n"
        "        return node\n"
        "\n"
        "    def visit_Call(self, node):\n"
        "        if not node.args:\n"
        "            raise ValueError('a call needs arguments to print')\n"
        "        return node.args\n"
    ),
    "walk/shell.py": (
        "class Shell:\n"
        "    def run(self, line):\n"
        "        return getattr(self, f'_do_{line}')()\n"
        "\n"
        "    def _do_quit(self):\n"
        "        raise SystemExit('the shell was asked to quit')\n"
        "\n"
        "    def _other_quit(self):\n"
        "        raise RuntimeError('never looked up by the shell')\n"
    ),
}


def test_a_method_looked_up_by_prefix_is_called_by_the_lookup_of_its_base(
        tmp_path: Path) -> None:
    record = _record(tmp_path, VISITOR, "a call needs arguments")
    summary = record.explanation.summary
    assert "`Visitor.visit`" in summary, summary
    assert not summary.startswith("Calling `walk.printer._Printer"), summary


def test_a_lookup_with_an_f_string_calls_only_the_methods_with_its_prefix(
        tmp_path: Path) -> None:
    looked_up = _record(tmp_path / "a", VISITOR, "the shell was asked")
    assert "`Shell.run`" in looked_up.explanation.summary, \
        looked_up.explanation.summary
    other = _record(tmp_path / "b", VISITOR, "never looked up")
    assert "Shell.run" not in other.explanation.summary, other.explanation.summary


def test_a_private_class_s_method_is_called_through_its_public_base(tmp_path: Path) -> None:
    files = {
        "io2/__init__.py": "",
        "io2/transports.py": (
            "class Transport:\n"
            "    def write(self, data):\n"
            "        raise NotImplementedError\n"
            "\n"
            "\n"
            "class _SocketTransport(Transport):\n"
            "    def write(self, data):\n"
            "        if self._closing:\n"
            "            raise RuntimeError('cannot write after close')\n"
            "        return data\n"
        ),
    }
    record = _record(tmp_path, files, "cannot write after close")
    assert "`Transport.write`" in record.explanation.summary, record.explanation.summary


def test_a_descriptor_s_converter_is_reached_from_the_holder_s_dynamic_reads(
        tmp_path: Path) -> None:
    files = {
        "meta/__init__.py": "",
        "meta/fields.py": (
            "class _Field:\n"
            "    def __set_name__(self, owner, name):\n"
            "        self.name = name\n"
            "\n"
            "    def __get__(self, instance, owner):\n"
            "        raw = instance._raw[self.name]\n"
            "        return getattr(self, f'_convert_{self.name}')(raw)\n"
            "\n"
            "    def _convert_title(self, value):\n"
            "        if not value:\n"
            "            raise ValueError('the title field must not be empty')\n"
            "        return value\n"
            "\n"
            "\n"
            "class Record:\n"
            "    title: _Field = _Field()\n"
            "\n"
            "    @classmethod\n"
            "    def from_dict(cls, data):\n"
            "        ins = cls()\n"
            "        ins._raw = data\n"
            "        for key in data:\n"
            "            getattr(ins, key)\n"
            "        return ins\n"
        ),
    }
    record = _record(tmp_path, files, "the title field")
    assert "`Record.from_dict`" in record.explanation.summary, record.explanation.summary


MATCHED = '''\
import re

_bad_re = re.compile("[ ]")


def validate(url):
    match = _bad_re.search(url)
    if match:
        raise ValueError(f"URL has a space: {url!r}")
'''


def test_a_local_called_match_is_a_name_not_a_keyword(tmp_path: Path) -> None:
    """`match = pattern.search(url)` (http.client's `_validate_path`): Python's `match` is
    a keyword only before a subject; the check reads the local and so the argument."""
    record = _record(tmp_path, {"pkg/__init__.py": MATCHED}, "URL has a space")
    assert record.facts is not None and record.explanation is not None
    assert [o.name for o in record.facts.sites[0].origins] == ["match"]
    assert "Trace the values" not in " ".join(record.explanation.solutions)
    assert "`_bad_re.search(url)`" in record.explanation.summary


VALIDATED = '''\
import re

_bad_re = re.compile("[ ]")


class Connection:
    def _validate_path(self, url):
        match = _bad_re.search(url)
        if match:
            raise ValueError(f"URL has a space: {url!r}")

    def putrequest(self, method, url):
        self._validate_path(url)
'''


def test_a_local_of_a_private_check_is_said_on_the_public_callers_argument(
    tmp_path: Path,
) -> None:
    """http.client's `_validate_path`: the check reads a local set from its parameter;
    the page says it on what the user passes to `putrequest`, not "Trace the values"."""
    record = _record(tmp_path, {"pkg/__init__.py": VALIDATED}, "URL has a space")
    assert record.explanation is not None
    assert "Connection.putrequest" in record.explanation.summary
    assert "Trace the values" not in " ".join(record.explanation.solutions)
    assert "`_bad_re.search(url)`" in record.explanation.summary


COOKIES = '''\
class Morsel(dict):
    _reserved = {"path": "Path"}

    def set(self, key, val):
        if key.lower() in self._reserved:
            raise KeyError(f"Attempt to set a reserved key {key!r}")
        self.key = key


class BaseCookie(dict):
    def __set(self, key, value):
        M = self.get(key, Morsel())
        M.set(key, value)
        dict.__setitem__(self, key, M)

    def __setitem__(self, key, value):
        self.__set(key, value)


'''

JAR = '''\
class Jar:
    def set(self, key, val):
        return None
'''


def test_a_capitalized_local_is_a_value_not_a_type(tmp_path: Path) -> None:
    """http.cookies' `M = self.get(key, Morsel()); M.set(..)`: `M` names no type, so the
    call may be `Morsel.set`, and `cookie[key] = value` is a way in (round-8 review)."""
    files = {"pkg/__init__.py": COOKIES, "pkg/jar.py": JAR}  # another `set` elsewhere
    record = _record(tmp_path, files, "Attempt to set a reserved")
    assert record.facts is not None
    assert "BaseCookie.__setitem__" in [e.function for e in record.facts.sites[0].entry_points]
