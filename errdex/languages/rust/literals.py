"""Rust's string literals and format syntax: the value of a literal as written (escapes,
raw strings) and a format string split into literal text and `Hole`s, for
`errdex.extract.templates.build_template`. Pure text: no tree, no rules."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from errdex.extract.formats import braces
from errdex.extract.templates import Hole, Piece

_PRECISION_STAR = re.compile(
    r"^(?:.?[<^>])?[+-]?#?0?(?:\d+\$?|[A-Za-z_][A-Za-z0-9_]*\$)?\.\*", re.DOTALL
)
# A match arm pattern that takes whatever is left: `_`, `other`, `(a, _)`.
_LITERAL_PREFIX = re.compile(r'^([bc]?)(r?)(#*)"')

# --------------------------------------------------------------------------------------
# String literals and Rust's format syntax


_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}


def unescape(body: str) -> str:
    """The value of a (non-raw) Rust string literal's body."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc == "x" and i + 4 <= n:
            try:
                out.append(chr(int(body[i + 2 : i + 4], 16)))
            except ValueError:
                out.append(body[i : i + 4])
            i += 4
        elif esc == "u" and i + 2 < n and body[i + 2] == "{":
            end = body.find("}", i + 3)
            if end < 0:
                out.append(body[i:])
                break
            try:
                out.append(chr(int(body[i + 3 : end].replace("_", ""), 16)))
            except (ValueError, OverflowError):
                out.append(body[i : end + 1])
            i = end + 1
        elif esc in "\r\n":
            # Line continuation: the newline and the next line's leading whitespace vanish.
            i += 2
            while i < n and body[i] in " \t\r\n":
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def literal_value(text: str) -> str | None:
    """The value of a string literal as written (`"a\\n"`, `r#"a"#`, `b"a"`), or None."""
    match = _LITERAL_PREFIX.match(text)
    if match is None:
        return None
    closing = '"' + match.group(3)
    body = text[match.end() :]
    if body.endswith(closing) and len(text) - len(closing) >= match.end():
        body = body[: len(body) - len(closing)]
    return body if match.group(2) else unescape(body)


def _char_value(text: str) -> str | None:
    if len(text) >= 3 and text[0] == "'" and text[-1] == "'":
        return unescape(text[1:-1])
    return None


def parse_format(
    fmt: str,
    positional: Sequence[str] = (),
    named: Mapping[str, str] | None = None,
    *,
    numbered_fields: bool = False,
) -> list[Piece]:
    """Split a Rust format string into literal text and `Hole`s.

    `positional` and `named` are the source text of the format arguments. `{}` takes the
    next positional argument, `{0}` the first, `{name}` the named argument or (an implicit
    capture) the variable `name`; `{:.*}` takes a precision argument first. With
    `numbered_fields` (thiserror), `{0}` means the field `0`, not an argument.
    """
    named = named or {}
    pieces: list[Piece] = []
    next_pos = 0

    def positional_arg(index: int) -> str:
        return positional[index] if 0 <= index < len(positional) else ""

    for piece in braces.split_lenient(fmt):
        if isinstance(piece, str):
            pieces.append(piece)
            continue
        arg, spec = piece.arg, piece.spec
        if spec and _PRECISION_STAR.match(spec[1:]):
            next_pos += 1  # `.*` reads the precision from the next positional argument
        name: str | None = None
        if arg == "":
            expression = positional_arg(next_pos)
            next_pos += 1
        elif arg.isdigit():
            expression = arg if numbered_fields else positional_arg(int(arg))
            if numbered_fields:
                name = arg
        else:
            name = arg.removeprefix("r#")
            expression = named.get(arg, name)
        pieces.append(Hole(expression=expression, spec=spec, name=name))
    return pieces
