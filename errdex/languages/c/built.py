"""Messages made in a variable before the call that raises them:

    std::string msg = std::string(name) + "(): incompatible arguments:\\n";
    for (..) { msg += sig; }
    msg += "\\nInvoked with: ";
    set_error(PyExc_TypeError, msg.c_str());

    char buffer[255];
    PyOS_snprintf(buffer, 255, "can't adapt type '%s'", Py_TYPE(obj)->tp_name);
    psyco_set_error(ProgrammingError, NULL, buffer);

The message of `msg` at the call is its declaration's (or last assignment's) text, then
what each statement after it appends, in order: a `msg += x` or `msg.append(x)` of the
same block its text, a statement holding appends of its own (a loop, an `if`) one hole.
A name never set from a text of the extractor's reading is no message (None).

Works on the C extractor's file state (`pieces`, `segments`, `text`); parses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece
from errdex.languages.c.messages import STRING_NODES, printf_pieces
from errdex.languages.c.state import SKIP

if TYPE_CHECKING:
    from errdex.languages.c.extractor import _File

MAX_STATEMENTS = 400  # statements looked back over for the making of one message
# printf into a buffer: the call, and where its buffer and format are.
_PRINTS_INTO = {"snprintf": (0, 2), "std::snprintf": (0, 2), "PyOS_snprintf": (0, 2),
                "sprintf": (0, 1), "std::sprintf": (0, 1), "g_snprintf": (0, 2)}  # fmt: skip
_BLOCKS = frozenset({"compound_statement"})
_STOPS = frozenset({"function_definition", "lambda_expression", "translation_unit"})

Pieces = tuple[list[Piece], str]


def made_before(file: _File, name_node: Node) -> tuple[Pieces, int] | None:
    """The message `name_node` (a variable) holds where it is used, and the line its
    making starts on; None when it is not made here from text."""
    name = file.text(name_node)
    statement = name_node
    appended: list[Pieces] = []  # what comes after the making, last first
    mentions = re.compile(rb"(?<![\w.>])" + re.escape(name.encode())
                          + rb"\s*(?:\+=|\.append\s*\(|=(?!=))")
    looked = 0
    while statement.parent is not None and statement.parent.type not in _STOPS:
        block = statement.parent
        if block.type not in _BLOCKS:
            statement = block
            continue
        earlier = statement.prev_named_sibling
        while earlier is not None and looked < MAX_STATEMENTS:
            looked += 1
            made = _made(file, earlier, name)
            if made is not None:
                parts = [made, *reversed(appended)]
                pieces = _compact([p for part, _ in parts for p in part])
                if not any(isinstance(p, str) and p.strip() for p in pieces):
                    return None
                written = " + ".join(code for _, code in parts if code)
                return (pieces, written), earlier.start_point.row + 1
            if earlier.type not in SKIP and mentions.search(file.source[
                    earlier.start_byte : earlier.end_byte]):  # fmt: skip
                added = _appended(file, earlier, name)
                if added is None:
                    return None  # set again in a way not read here
                appended.append(added)
            earlier = earlier.prev_named_sibling
        statement = block
    return None


def _made(file: _File, statement: Node, name: str) -> Pieces | None:
    """The text `statement` sets `name` to, when it makes it (its declaration with a
    value, `name = ..`, a printf into it); None when it doesn't."""
    if statement.type == "declaration":
        for declarator in statement.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                inner = declarator.child_by_field_name("declarator")
                value = declarator.child_by_field_name("value")
                if inner is None or value is None or file.text(inner) != name:
                    continue
                if value.type in ("argument_list", "initializer_list"):
                    values = [v for v in value.named_children if v.type not in SKIP]
                    if len(values) != 1:
                        return _unread(file, value)
                    value = values[0]
                return file.pieces(value) or _unread(file, value)
            if _declared(file, declarator) == name:
                return [], ""  # `std::string msg;`: empty until appended to
        return None
    if statement.type != "expression_statement" or not statement.named_child_count:
        return None
    inner = statement.named_children[0]
    if inner.type == "assignment_expression" and file.operator(inner) == "=":
        left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
        if left is not None and right is not None and file.text(left) == name:
            return file.pieces(right) or _unread(file, right)
        return None
    if inner.type == "call_expression":
        where = _PRINTS_INTO.get(file.call_name(inner))
        args = file.arguments(inner)
        if where is None or len(args) <= where[1] or file.text(args[where[0]]) != name:
            return None
        fmt = args[where[1]]
        segments = file.segments(fmt) if fmt.type in STRING_NODES else None
        if not segments:
            return _unread(file, fmt)
        rest = [file.code(a) for a in args[where[1] + 1 :]]
        return printf_pieces(segments, rest), file.code(fmt)
    return None


def _unread(file: _File, value: Node) -> Pieces:
    """A value set from something that is not a text read here: one hole."""
    code = file.code(value)
    return [Hole(expression=code)], code


def _compact(pieces: list[Piece]) -> list[Piece]:
    """Holes one after another are one: nothing tells their texts apart."""
    out: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, Hole) and out and isinstance(out[-1], Hole):
            continue
        if isinstance(piece, str) and not piece:
            continue
        out.append(piece)
    return out


def _declared(file: _File, declarator: Node) -> str:
    """The name a declarator without a value declares (`buffer[255]`, `*p`, `msg`)."""
    cur: Node | None = declarator
    while cur is not None and cur.type != "identifier":
        cur = cur.child_by_field_name("declarator")
    return file.text(cur) if cur is not None else ""


def _appended(file: _File, statement: Node, name: str) -> Pieces | None:
    """What `statement` appends to `name`: a `+=` or `.append(x)` of its own its text,
    one in a block under it a hole; None when it sets `name` anew."""
    if statement.type == "expression_statement" and statement.named_child_count:
        inner = statement.named_children[0]
        target: Callable[[], Node | None] | None = None
        if inner.type == "assignment_expression" and file.operator(inner) == "+=":
            left = inner.child_by_field_name("left")
            if left is not None and file.text(left) == name:
                target = lambda: inner.child_by_field_name("right")  # noqa: E731
        elif inner.type == "call_expression" and file.call_name(inner) == f"{name}.append":
            args = file.arguments(inner)
            if len(args) == 1:
                target = lambda: args[0]  # noqa: E731
            else:  # `msg.append(sig, start, n)`: part of a value
                code = file.code(args[0]) if args else name
                return [Hole(expression=code)], code
        elif inner.type == "assignment_expression":
            return None
        if target is not None:
            value = target()
            if value is None:
                return [Hole(expression=name)], name
            found = file.pieces(value)
            return found if found is not None else _unread(file, value)
    return [Hole(expression=name)], name  # appended to in a loop or a branch: some text
