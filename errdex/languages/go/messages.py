"""A Go message expression as template pieces: string literals (interpreted and raw),
`+` concatenation, and the printf family (`fmt.Errorf`, `fmt.Sprintf`, `log.Fatalf`)
with Go's verbs (`%v %+v %q %d %T %w`, `%[2]d`). Each argument a verb takes is a hole
named from its expression; `%w` is the wrapped error's own text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.formats.printf import PrintfField, split
from errdex.extract.templates import Hole, Piece

# Calls that format their first argument with the rest (the message is what they make).
FORMATTERS = frozenset({"fmt.Sprintf", "fmt.Errorf", "log.Fatalf", "log.Panicf",
                        "log.Printf"})  # fmt: skip
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v"}  # fmt: skip
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)")
MAX_PIECES = 200  # a concatenation of thousands of parts is cut here


def literal_value(node: Node, text: str) -> str | None:
    """The value of a string literal node, or None when `node` is not one."""
    if node.type == "raw_string_literal":
        return text[1:-1].replace("\r", "")
    if node.type != "interpreted_string_literal":
        return None
    return _ESCAPE.sub(_unescape, text[1:-1])


def _unescape(m: re.Match[str]) -> str:
    body = m.group(1)
    if body in _ESCAPES:
        return _ESCAPES[body]
    try:
        if body[0] in "xuU":
            return chr(int(body[1:], 16))
        if body[0] in "01234567" and len(body) == 3:
            return chr(int(body, 8))
    except (ValueError, OverflowError):  # `\UFFFFFFFF` is past the last code point
        pass
    return body


def format_pieces(fmt: str, args: Sequence[str]) -> list[Piece]:
    """The pieces of a printf format with its arguments' source texts."""
    pieces: list[Piece] = []
    next_arg = 0
    for part in split(fmt, any_verb=True):
        if isinstance(part, str):
            pieces.append(part)
            continue
        at = _argument(part, next_arg)
        next_arg = at + 1 + part.stars
        at += part.stars
        expression = args[at] if 0 <= at < len(args) else ""
        pieces.append(Hole(expression=expression, spec=part.written))
    return pieces


def _argument(field: PrintfField, next_arg: int) -> int:
    """The index of the argument a verb formats (`%[2]d` is the second, 1-based)."""
    if field.name is not None and field.name.isdigit():
        return int(field.name) - 1
    return next_arg


def hole_for(expression: str) -> Hole:
    return Hole(expression=expression)


def concatenation(parts: Sequence[tuple[str | None, str]]) -> list[Piece]:
    """`"a" + x + "b"`: each part (literal value or None, its source) as a piece."""
    return [value if value is not None else Hole(expression=code)
            for value, code in parts[:MAX_PIECES]]  # fmt: skip
