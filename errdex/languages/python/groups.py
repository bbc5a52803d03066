"""Python handlers that gather what they catch into an `ExceptionGroup` raised later:

    for key in fields:
        try:
            check(key)
        except InvalidMetadata as exc:
            errors.append(exc)            # or collector.error(exc)
    if errors:
        raise ExceptionGroup("invalid metadata", errors)   # or collector.finalize("...")

The caller of that function never gets `InvalidMetadata` itself: `except InvalidMetadata`
does not catch the group, `except* InvalidMetadata` does. A collector object is a class
whose method appends its argument to a field (`self.errors.append(error)`) and whose other
method raises that field inside a group; it may live in another file, so it is recorded on
its own (`Collector`) and matched by its methods' names in errdex.analyze.grouped.

Reads the one tree's text with patterns; parses nothing itself.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from errdex.extract.structure import Collector, Grouping

_HEADER = re.compile(r"except\s+(?P<types>[^:]+?)\s+as\s+(?P<name>[A-Za-z_]\w*)\s*:")
_GROUP = r"(?P<group>(?:[A-Za-z_]\w*\.)*(?:Base)?ExceptionGroup)"
_MESSAGE = r"(?P<message>\"[^\"\\\n]*\"|'[^'\\\n]*'|[A-Za-z_][\w.]*)"
_FUNCTIONS = frozenset({"function_definition"})


def groupings(root: Node, source: bytes) -> tuple[tuple[Grouping, ...], tuple[Collector, ...]]:
    """The file's handlers that keep what they catch for a group raised later in their
    function, and its classes that keep errors for a group."""
    found: list[Grouping] = []
    collectors: list[Collector] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _FUNCTIONS:
            found += _in_function(node, source)
        elif node.type == "class_definition":
            collectors += _collector(node, source)
        stack.extend(reversed(node.children))
    return tuple(found), tuple(collectors)


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _literal(message: str | None) -> str | None:
    return message[1:-1] if message and message[0] in "\"'" else None


def _handlers(node: Node) -> list[Node]:
    """The except clauses of `node`'s own body (not of a function nested in it)."""
    out, stack = [], list(node.children)
    while stack:
        child = stack.pop()
        if child.type in _FUNCTIONS or child.type == "class_definition":
            continue
        if child.type == "except_clause":
            out.append(child)
        stack.extend(child.children)
    return sorted(out, key=lambda n: n.start_byte)


def _in_function(function: Node, source: bytes) -> list[Grouping]:
    text = _text(function, source)
    out = []
    for handler in _handlers(function):
        header = _HEADER.match(" ".join(_text(handler, source).split()))
        if header is None:
            continue
        name, after = re.escape(header["name"]), _text(handler, source)
        later = source[handler.end_byte : function.end_byte].decode("utf-8", "replace")
        line = handler.start_point.row + 1
        first = function.start_point.row + 1
        kept = re.search(rf"(?<![\w.])(?P<list>[A-Za-z_][\w.]*)\.append\(\s*{name}\s*\)", after)
        if kept is not None:
            raised = re.search(rf"\braise\s+{_GROUP}\(\s*{_MESSAGE}\s*,\s*"
                               rf"{re.escape(kept['list'])}\s*\)", text)  # fmt: skip
            if raised is not None:
                out.append(Grouping(first, header["types"], line, raised["group"],
                                    _literal(raised["message"])))  # fmt: skip
            continue
        handed = re.search(rf"(?<![\w.])(?P<obj>[A-Za-z_]\w*)\.(?P<method>[A-Za-z_]\w*)"
                           rf"\(\s*{name}\s*\)", after)  # fmt: skip
        if handed is None:
            continue
        obj, method = re.escape(handed["obj"]), handed["method"]
        calls = [(m["method"], _literal(m["message"])) for m in re.finditer(
            rf"(?<![\w.]){obj}\.(?P<method>[A-Za-z_]\w*)\(\s*{_MESSAGE}?", later)
            if m["method"] != method]  # fmt: skip
        if calls:
            message = next((m for _, m in calls if m is not None), None)
            out.append(Grouping(first, header["types"], line, "", message, method,
                                tuple(dict.fromkeys(c for c, _ in calls))))  # fmt: skip
    return out


def _collector(cls: Node, source: bytes) -> list[Collector]:
    """`keeps` appends its parameter to `self.X`; `raises` raises `self.X` in a group."""
    name = cls.child_by_field_name("name")
    body = cls.child_by_field_name("body")
    if name is None or body is None:
        return []
    methods = []
    for child in body.children:
        if child.type == "decorated_definition":
            child = child.child_by_field_name("definition") or child
        if child.type in _FUNCTIONS and (n := child.child_by_field_name("name")):
            methods.append((_text(n, source), _text(child, source)))
    keeps = [(m, kept["field"]) for m, text in methods if (kept := re.search(
        r"def\s+\w+\(\s*self\s*,\s*(?P<param>[A-Za-z_]\w*)[^)]*\).*?\bself\.(?P<field>\w+)"
        r"\.append\(\s*(?P=param)\s*\)", text, re.DOTALL))]  # fmt: skip
    out = []
    for keeper, field in keeps:
        for method, text in methods:
            raised = re.search(rf"\braise\s+{_GROUP}\(\s*{_MESSAGE}\s*,\s*self\.{field}\s*\)",
                               text)  # fmt: skip
            if raised is not None:
                out.append(Collector(_text(name, source), keeper, method, raised["group"],
                                     _literal(raised["message"])))  # fmt: skip
    return out
