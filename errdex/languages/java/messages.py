"""A Java message expression as template pieces: string literals (with their escapes, and
text blocks), `+` concatenation, and the formatting calls a message is built with:
`String.format`/`.formatted` (java.util.Formatter: `%s %d %x %n %1$s %-8s %.2f`),
`MessageFormat.format` (`{0}`, `{1,number}`, `''` quoting), Guava's `%s`-only templates
(`Preconditions.checkArgument(ok, "bad %s", x)`) and SLF4J's `{}` (`log.error("no {}",
x)`). Each argument a placeholder takes is a hole named from its expression."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece

MAX_PIECES = 200  # a concatenation of thousands of parts is cut here
# Calls whose value is their first (string) argument formatted with the rest.
STRING_FORMATS = frozenset({"String.format", "java.lang.String.format", "format"})
MESSAGE_FORMATS = frozenset({"MessageFormat.format", "java.text.MessageFormat.format"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "s": " ", '"': '"',
            "'": "'", "\\": "\\", "\n": ""}  # fmt: skip
_ESCAPE = re.compile(r"\\(u+[0-9a-fA-F]{4}|[0-3][0-7]{0,2}|[4-7][0-7]?|.|\n)")
# java.util.Formatter: %[index$][flags][width][.precision]conversion (`%tY` a date).
_FORMATTER = re.compile(r"%(?:(\d+)\$|(<))?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([tT][a-zA-Z]|[a-zA-Z%])")
_GUAVA = re.compile(r"%s")
_SLF4J = re.compile(r"(\\*)\{\}")


def literal_value(node: Node, text: str) -> str | None:
    """The value of a string (or character) literal node, or None when it is not one."""
    if node.type == "string_literal":
        if text.startswith('"""'):
            return _text_block(text[3:-3])
        return _ESCAPE.sub(_unescape, text[1:-1])
    if node.type == "character_literal":
        return _ESCAPE.sub(_unescape, text[1:-1])
    return None


def unquote(text: str) -> str:
    """A one-line string literal's value, from its source text with the quotes."""
    return _ESCAPE.sub(_unescape, text[1:-1])


def _text_block(body: str) -> str:
    """A text block's value: its lines without their common indentation (the closing
    delimiter's line counts), trailing spaces dropped, then escapes."""
    lines = body.replace("\r\n", "\n").split("\n")[1:]  # the opening line holds nothing
    margin = min((len(x) - len(x.lstrip(" \t")) for x in lines if x.strip() or x is lines[-1]),
                 default=0)  # fmt: skip
    return _ESCAPE.sub(_unescape, "\n".join(x[margin:].rstrip(" \t") for x in lines))


def _unescape(m: re.Match[str]) -> str:
    body = m.group(1)
    if body in _ESCAPES:
        return _ESCAPES[body]
    if body[0] == "u" and len(body) > 1:
        return chr(int(body.lstrip("u"), 16))
    if body[0] in "01234567":
        return chr(int(body, 8))
    return body  # an escape javac refuses: its character as written


def formatter_pieces(fmt: str, args: Sequence[str]) -> list[Piece]:
    """`String.format(fmt, args)`: `%n` is a line break, `%%` a percent sign, `%2$s` the
    second argument, `%<s` the previous one again."""
    pieces: list[Piece] = []
    position = next_arg = last = 0
    for m in _FORMATTER.finditer(fmt):
        pieces.append(fmt[position : m.start()])
        position = m.end()
        conversion = m.group(6)
        if conversion in ("n", "%"):
            pieces.append("\n" if conversion == "n" else "%")
            continue
        if m.group(1):
            at = int(m.group(1)) - 1
        elif m.group(2):
            at = last
        else:
            at, next_arg = next_arg, next_arg + 1
        last = at
        # the kind of value it prints: `%b` is true/false, not binary digits
        spec = "%" + conversion if conversion in "dxXoeEfgG" else "%s"
        pieces.append(Hole(expression=args[at] if 0 <= at < len(args) else "", spec=spec))
    pieces.append(fmt[position:])
    return pieces


def message_format_pieces(pattern: str, args: Sequence[str]) -> list[Piece]:
    """`MessageFormat.format(pattern, args)`: `{0}` and `{1,number,#}` are arguments by
    index, text between single quotes is literal and `''` is one quote."""
    pieces: list[Piece] = []
    text: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):
                text.append("'")
                i += 2
                continue
            end = pattern.find("'", i + 1)
            end = n if end < 0 else end
            text.append(pattern[i + 1 : end])
            i = end + 1
            continue
        if char == "{":
            end = pattern.find("}", i)
            index = pattern[i + 1 : end].split(",", 1)[0].strip() if end > 0 else ""
            if index.isdigit():
                pieces.append("".join(text))
                text = []
                at = int(index)
                kind = pattern[i + 1 : end].split(",")[1:2]
                spec = "{%s}" % (",number" if kind and kind[0].strip() == "number" else "")
                pieces.append(Hole(expression=args[at] if at < len(args) else "", spec=spec))
                i = end + 1
                continue
        text.append(char)
        i += 1
    pieces.append("".join(text))
    return pieces


def marker_pieces(fmt: str, args: Sequence[str], slf4j: bool) -> list[Piece]:
    """Guava's `%s` (`checkArgument(ok, "bad %s", x)`) or SLF4J's `{}` (`\\{}` stays
    text): each marker takes the next argument. A marker with no argument left is text,
    as both print it."""
    pieces: list[Piece] = []
    position = at = 0
    for m in (_SLF4J if slf4j else _GUAVA).finditer(fmt):
        if slf4j and len(m.group(1)) % 2 == 1:
            continue  # `\{}`: an escaped marker
        if at >= len(args):
            break
        pieces.append(fmt[position : m.start() + (len(m.group(1)) if slf4j else 0)])
        pieces.append(Hole(expression=args[at], spec="{}" if slf4j else "%s"))
        at += 1
        position = m.end()
    pieces.append(fmt[position:])
    return pieces


def concatenation(parts: Sequence[tuple[str | None, str]]) -> list[Piece]:
    """`"a" + x + "b"`: each part (literal value or None, its source) as a piece."""
    return [value if value is not None else Hole(expression=code)
            for value, code in parts[:MAX_PIECES]]  # fmt: skip
