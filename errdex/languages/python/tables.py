"""Python message tables: a dict of message keys read by a helper that raises.

    class Field:
        messages = {"bad_value": "not a valid value: {value!r}"}
        def fail(self, key, **kwargs):
            raise ValidationError(self.messages[key].format(**kwargs))
        def check(self, v):
            self.fail("bad_value", value=v)      # a site of "not a valid value: {value!r}"

A table is a class-level or module-level dict whose keys and values are string literals; a
helper is a function of the same file that raises (or returns, for `raise self.fail(..)`)
an exception built from `table[param]`. Every call of the helper with a literal key of the
table is a site of that key's text, formatted with the call's keywords when the helper
formats it. Same file only: the table, the helper and their calls live together.

Works on the one tree and the `_File` state of errdex.languages.python.extractor, after
its handlers have run; parses nothing itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract.templates import Piece
from errdex.languages.python.state import _Args
from errdex.models import SiteKind

if TYPE_CHECKING:
    from errdex.languages.python.extractor import _File


@dataclass(frozen=True)
class _TableHelper:
    table: dict[str, Node]  # key -> the message literal
    key_index: int  # which argument (after self) is the key
    exception: str
    formats: bool  # the helper calls `.format(**kwargs)` on the text


def extend(state: _File, root: Node, calls: Sequence[Node]) -> None:
    tables = _tables(state, root)
    if not tables:
        return
    helpers = {name: helper for name, helper in _helpers(state, root, tables)}
    if not helpers:
        return
    for call in calls:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None or arguments.type != "argument_list":
            continue
        helper = helpers.get(state.text(function).rsplit(".", 1)[-1])
        if helper is None:
            continue
        args = state.arguments(arguments)
        if helper.key_index >= len(args.positional):
            continue
        key = _string(state, args.positional[helper.key_index])
        text_node = helper.table.get(key) if key is not None else None
        if text_node is None:
            continue
        text = _string(state, text_node) or ""
        state.scope = state._scope_of(call)
        pieces: list[Piece] = (
            state._brace_format(text, _Args([], args.keywords, False), None)
            if helper.formats else [text]
        )
        state.add_site(SiteKind.RAISE, helper.exception, (pieces, text), call,
                       state.guard_of(call))


def _string(state: _File, node: Node) -> str | None:
    """The value of a plain string literal (no f-string, no concatenation), or None."""
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    pieces = state.string_pieces(node)
    return pieces[0] if len(pieces) == 1 and isinstance(pieces[0], str) else None


def _tables(state: _File, root: Node) -> dict[str, dict[str, Node]]:
    """Dicts of string -> string assigned at module or class level, by name."""
    found: dict[str, dict[str, Node]] = {}
    for assignment in _level_assignments(root):
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name(
            "right"
        )
        if left is None or right is None or left.type != "identifier":
            continue
        if right.type != "dictionary":
            continue
        table: dict[str, Node] = {}
        for pair in right.named_children:
            if pair.type != "pair":
                continue
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if key is None or value is None:
                continue
            name = _string(state, key)
            if name is not None and _string(state, value) is not None:
                table[name] = value
        if table:
            found[state.text(left)] = table
    return found


def _level_assignments(root: Node) -> Iterator[Node]:
    """Assignments in the module's and its classes' bodies (not inside functions)."""
    stack = [root]
    while stack:
        block = stack.pop()
        for statement in block.named_children:
            if statement.type == "class_definition":
                body = statement.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
            elif statement.type == "decorated_definition":
                inner = statement.child_by_field_name("definition")
                if inner is not None and inner.type == "class_definition":
                    body = inner.child_by_field_name("body")
                    if body is not None:
                        stack.append(body)
            elif statement.type == "expression_statement":
                for child in statement.named_children:
                    if child.type == "assignment":
                        yield child


def _helpers(
    state: _File, root: Node, tables: dict[str, dict[str, Node]]
) -> Iterator[tuple[str, _TableHelper]]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            helper = _helper(state, node, tables)
            name = node.child_by_field_name("name")
            if helper is not None and name is not None:
                yield state.text(name), helper
            continue
        stack.extend(node.named_children)


def _helper(
    state: _File, function: Node, tables: dict[str, dict[str, Node]]
) -> _TableHelper | None:
    params = state._parameter_names(function, splats=False)
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    body = state._walk_body(function)
    exception: str | None = None
    for node in body:
        if node.type not in ("raise_statement", "return_statement"):
            continue
        raised = next(iter(node.named_children), None)
        callee = raised.child_by_field_name("function") if raised is not None else None
        if callee is not None and raised is not None and raised.type == "call" and state.text(
            callee
        ).rsplit(".", 1)[-1][:1].isupper():
            exception = re.sub(r"\s+", "", state.text(callee))
            break
    if exception is None:
        return None
    for sub in (n for n in body if n.type == "subscript"):
        value, index = sub.child_by_field_name("value"), sub.child_by_field_name("subscript")
        if value is None or index is None or state.text(index) not in params:
            continue
        table = tables.get(state.text(value).removeprefix("self.").removeprefix("cls."))
        if table is not None:
            return _TableHelper(table=table, key_index=params.index(state.text(index)),
                                exception=exception, formats=".format(" in state.text(function))
    return None
