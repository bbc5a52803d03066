"""Python source text as errdex reads it: a file's module name, string escapes, an
expression put on one line, and a message's template as a reader of the source sees it.
Pure text helpers: no tree walking beyond one node's children."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from tree_sitter import Node

from errdex.extract.templates import Piece, build_template
from errdex.models import (
    Template,
)

_NOT_CODE = frozenset({"comment", "line_continuation"})
_WS_NEWLINE = re.compile(r"[ \t]*\\?[ \t]*\r?\n\s*")
_NEWLINE_IN_OPEN = re.compile(r"(?<=[(\[{])[ \t]*\r?\n\s*")
_NEWLINE_IN_CLOSE = re.compile(r"[ \t]*\r?\n\s*(?=[)\]}])")
_ESCAPE = re.compile(
    r"\\(\r?\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}"
    r"|N\{[^}]*\})"
)
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def module_name(path: str) -> str:
    """`json/decoder.py` -> `json.decoder`, `pkg/__init__.py` -> `pkg`."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return ""
    last = parts[-1]
    for suffix in (".pyi", ".py"):
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    parts[-1] = last
    if parts[-1] == "__init__":
        parts.pop()
    if len(parts) > 1 and parts[0] == "src":
        parts.pop(0)
    return ".".join(parts)


def _decode_escapes(text: str, is_bytes: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        first = body[0]
        if first in "\r\n":
            return ""
        if first in _SIMPLE_ESCAPES and len(body) == 1:
            return _SIMPLE_ESCAPES[first]
        if first in "01234567":
            return chr(int(body, 8) & (0xFF if is_bytes else 0x1FFFFF))
        if first == "x":
            return chr(int(body[1:], 16))
        if is_bytes:
            return match.group(0)
        if first in "uU":
            value = int(body[1:], 16)
            return chr(value) if value <= 0x10FFFF else match.group(0)
        try:  # \N{NAME}
            return unicodedata.lookup(body[2:-1])
        except KeyError:
            return match.group(0)

    return _ESCAPE.sub(replace, text)


def _compact(text: str) -> str:
    """Source text on one line: newlines and their indentation become one space (none
    just inside brackets)."""
    text = _NEWLINE_IN_OPEN.sub("", text.strip())
    text = _NEWLINE_IN_CLOSE.sub("", text)
    return _WS_NEWLINE.sub(" ", text)


def _named(node: Node) -> list[Node]:
    """Named children, without comments and line continuations."""
    return [c for c in node.named_children if c.type not in _NOT_CODE]


def _has_literal(pieces: Sequence[Piece]) -> bool:
    return any(isinstance(p, str) and p.strip() for p in pieces)


# A message written as one string literal, alone or formatted with `%` or `.format`.
_AS_WRITTEN = re.compile(
    r"""^[rRbBuUfF]{0,2}(?P<q>\"\"\"|\'\'\'|"|')(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
    r"""(?:\s*$|\s*%|\.format(?:_map)?\()""",
    re.DOTALL,
)


def _template(message: tuple[list[Piece], str]) -> Template:
    """The template, its `message` being the text as a reader of the source sees it: the
    string literal's own text with its format syntax (`got %d`, `got {n}`), or the
    normalized template when the message is assembled from pieces."""
    pieces, source = message
    template = build_template(source, pieces)
    written = _AS_WRITTEN.match(source)
    shown = written.group("text") if written else template.text
    return replace(template, message=shown)
