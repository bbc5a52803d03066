"""A JavaScript message expression as template pieces: string literals (both quotes, with
their escapes), template literals (each `${..}` a hole named from its expression), `+`
concatenation, and util.format's `%s %d %o %j` (`console.error("..%s", x)`, `format(..)`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece

# Calls that format their first argument with the rest (the message is what they make).
FORMATTERS = frozenset({"util.format", "format"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]{1,6}\}|\r\n|[\s\S])"
)
_VERB = re.compile(r"%[sdifjoOc%]")  # util.format's verbs, and no others
MAX_PIECES = 200  # a concatenation of thousands of parts is cut here
# Wrappers a message passes through unchanged: `(msg)`, TypeScript's `msg as string`.
TRANSPARENT = frozenset({"parenthesized_expression", "as_expression", "non_null_expression",
                         "satisfies_expression"})  # fmt: skip


def unescape(text: str) -> str:
    """`text` (the inside of a literal) with its escapes read as JavaScript reads them."""
    return _ESCAPE.sub(_unescape, text) if "\\" in text else text


def _unescape(m: re.Match[str]) -> str:
    body = m.group(1)
    if body in _ESCAPES:
        return _ESCAPES[body]
    if body in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
        return ""  # a line continuation
    if len(body) > 1 and body[0] in "xu":
        code = int(body[1:].strip("{}"), 16)
        return chr(code) if code <= 0x10FFFF else "\ufffd"
    return body


def literal_value(node: Node, text: str) -> str | None:
    """The value of a string literal node (or of a template literal with no `${..}`),
    or None when `node` is not one."""
    if node.type == "string" and len(text) >= 2:
        return unescape(text[1:-1])
    if node.type == "template_string" and not any(
        c.type == "template_substitution" for c in node.named_children
    ):
        return unescape(text[1:-1].replace("\r\n", "\n"))
    return None


def format_pieces(fmt: str, args: Sequence[str]) -> list[Piece]:
    """util.format: each `%s`-like verb takes the next argument; arguments left over are
    printed after the text, one space apart."""
    pieces: list[Piece] = []
    at = position = 0
    for verb in _VERB.finditer(fmt):
        pieces.append(fmt[position : verb.start()])
        position = verb.end()
        if verb.group(0) == "%%" or at >= len(args):  # util.format prints `%s` unfilled
            pieces.append("%" if verb.group(0) == "%%" else verb.group(0))
            continue
        pieces.append(Hole(expression=args[at], spec=verb.group(0)))
        at += 1
    pieces.append(fmt[position:])
    for extra in args[at:MAX_PIECES]:
        pieces += [" ", Hole(expression=extra)]
    return pieces


def concatenation(parts: Sequence[list[Piece]]) -> list[Piece]:
    """`"a" + x + `b${y}``: each part's pieces, in order."""
    return [piece for part in parts[:MAX_PIECES] for piece in part]
