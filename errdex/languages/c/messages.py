"""A C or C++ message expression as template pieces: string literals (with C's escapes
and prefixes, C++ raw strings), adjacent literals joined by the compiler with the format
macros between them (`"index %" PRId64 " out of range"`), printf formats (C's
conversions and length modifiers, the Python C API's `%S %R %U %V %A`), and for C++
`+` concatenation of `std::string`s, `std::to_string(x)`, `fmt::format`/`std::format`
(`{}`) and the joining helpers (`c10::str`, `absl::StrCat`). Each value a message takes
is a hole named from its expression."""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.extract.formats.braces import BraceField, split_lenient
from errdex.extract.formats.printf import split
from errdex.extract.templates import Hole, Piece

MAX_PIECES = 200  # a concatenation of thousands of parts is cut here
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "?": "?", "e": "\x1b", "\n": ""}  # fmt: skip
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,8}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.|\n)")
_PREFIX = re.compile(r"^(?:u8|u|U|L)?")
_RAW = re.compile(r'^(?:u8|u|U|L)?R"([^(]{0,16})\((.*)\)\1"$', re.DOTALL)
# <inttypes.h>'s format macros: `PRId64` is the length modifier and conversion of an
# int64_t (the modifier differs by platform; only the conversion tells what is printed).
_PRI = re.compile(r"PRI([diouxX])(?:8|16|32|64|MAX|PTR|LEAST\d+|FAST\d+)")
_MACROS = {"PY_FORMAT_SIZE_T": "z", "G_GSIZE_FORMAT": "lu", "G_GSSIZE_FORMAT": "li",
           "G_GINT64_FORMAT": "lli", "G_GUINT64_FORMAT": "llu"}  # fmt: skip
STRING_NODES = frozenset({"string_literal", "raw_string_literal", "concatenated_string",
                          "char_literal"})  # fmt: skip

Segment = str | Hole  # a literal's text, or a macro whose text is not known


def literal_value(node_type: str, text: str) -> str | None:
    """The value of one string (or character) literal, from its node type and source."""
    if node_type == "raw_string_literal":
        m = _RAW.match(text)
        return m.group(2) if m else None
    if node_type not in ("string_literal", "char_literal"):
        return None
    body = _PREFIX.sub("", text, count=1)
    if len(body) < 2:
        return None
    return _ESCAPE.sub(_unescape, body[1:-1])


def _unescape(m: re.Match[str]) -> str:
    body = m.group(1)
    if body in _ESCAPES:
        return _ESCAPES[body]
    try:
        if body[0] in "xuU":
            return chr(int(body[1:], 16))
        if body[0] in "01234567":
            return chr(int(body, 8))
    except (ValueError, OverflowError):
        pass
    return body


def macro_text(name: str) -> str | None:
    """The text a format macro between literals stands for (`PRId64` -> `lld`), or None
    when it is not one errdex knows."""
    m = _PRI.fullmatch(name)
    if m is not None:
        return "ll" + m.group(1)
    return _MACROS.get(name)


def printf_pieces(segments: Sequence[Segment], args: Sequence[str]) -> list[Piece]:
    """A printf format (its literal segments, maybe with unknown macros between them)
    with its arguments' source texts: each conversion takes the next argument (`*` widths
    first), `%2$s` the second."""
    pieces: list[Piece] = []
    next_arg = 0
    for text in _joined(segments):
        if isinstance(text, Hole):
            pieces.append(text)
            continue
        for part in split(text, c=True):
            if isinstance(part, str):
                pieces.append(part)
                continue
            if part.name is not None and part.name.isdigit():
                at = int(part.name) - 1
            else:
                at = next_arg + part.stars
                next_arg = at + 1
            if part.written.endswith("n"):
                continue  # `%n` stores a count: it prints nothing
            expression = args[at] if 0 <= at < len(args) else ""
            pieces.append(Hole(expression=expression, spec=part.written))
    return pieces


def braces_pieces(fmt: str, args: Sequence[str]) -> list[Piece]:
    """`fmt::format("..{}..", x)` / `std::format`: `{}` the next argument, `{0}` by
    position, `{name}` (fmt's named arguments) a hole named so."""
    pieces: list[Piece] = []
    next_arg = 0
    for part in split_lenient(fmt):
        if isinstance(part, str):
            pieces.append(part)
            continue
        assert isinstance(part, BraceField)
        if part.arg.isdigit():
            at = int(part.arg)
        elif part.arg:
            pieces.append(Hole(expression=part.arg, spec="{" + part.spec + "}", name=part.arg))
            continue
        else:
            at, next_arg = next_arg, next_arg + 1
        expression = args[at] if 0 <= at < len(args) else ""
        pieces.append(Hole(expression=expression, spec="{" + part.spec + "}"))
    return pieces


def _joined(segments: Sequence[Segment]) -> list[Segment]:
    """Adjacent literal segments as one text (a conversion may span them: `"%" PRId64`)."""
    out: list[Segment] = []
    for segment in segments:
        if isinstance(segment, str) and out and isinstance(out[-1], str):
            out[-1] += segment
        else:
            out.append(segment)
    return out


def segments_text(segments: Sequence[Segment]) -> str | None:
    """The segments as one text, or None when a macro's text is unknown."""
    if all(isinstance(s, str) for s in segments):
        return "".join(s for s in segments if isinstance(s, str))
    return None


def written(segments: Sequence[Segment]) -> str:
    """The format as the page shows it: unknown macros by name."""
    return "".join(s if isinstance(s, str) else s.expression for s in segments)
