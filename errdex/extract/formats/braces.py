"""The `braces` format family: `{}`, `{0}`, `{name}`, `{name:>5}`, `{{` and `}}`.

Two dialects share the family: `strict` is Python's `str.format` (conversions `!r`, an
unmatched brace makes the whole string plain text), the lenient one is Rust's `format!`
(a `}` fill character, `{:.*}`, a lone `}` kept as text). Each returns the string's pieces
in order; it must not bind a field to an argument (the extractor does).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

_FIELD = re.compile(r"^([^.\[]*)(.*)$", re.DOTALL)


@dataclass(frozen=True)
class BraceField:
    """One `{...}` field. `arg` is "" (the next argument), digits (by position) or a
    name; `path` is what follows it (`.shape`, `[0]`); `spec` is everything after the
    argument as written (`:>5`, `!r`, `!r:>5`)."""

    arg: str
    path: str
    spec: str


def split_strict(fmt: str) -> list[str | BraceField] | None:
    """Python's `str.format` pieces: a literal (maybe empty) before every field, then the
    tail; None when Python itself would refuse the string (an unmatched brace)."""
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    out: list[str | BraceField] = []
    for literal, field_name, spec, conversion in parsed:
        out.append(literal)
        if field_name is None:
            continue
        match = _FIELD.match(field_name)
        first, rest = (match.group(1), match.group(2)) if match else (field_name, "")
        written = ("!" + conversion if conversion else "") + (":" + spec if spec else "")
        out.append(BraceField(first, rest, written))
    return out


def split_lenient(fmt: str) -> list[str | BraceField]:
    """Rust's `format!` pieces: literal text (never empty) and fields in order. A field
    with no closing brace is kept as text; a `}` fill character (`{:}>5}`) is read as one."""
    pieces: list[str | BraceField] = []
    buf: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        ch = fmt[i]
        if ch == "}":
            buf.append("}")
            i += 2 if i + 1 < n and fmt[i + 1] == "}" else 1
            continue
        if ch != "{":
            buf.append(ch)
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "{":
            buf.append("{")
            i += 2
            continue
        end = fmt.find("}", i + 1)
        if end < 0:
            buf.append(fmt[i:])
            break
        inner = fmt[i + 1 : end]
        colon = inner.find(":")
        if colon >= 0:
            # A `}` fill character (`{:}>5}`) would have ended `inner` early: take it in.
            spec_text = inner[colon + 1 :]
            if spec_text == "" and end + 1 < n and fmt[end + 1] in "<^>":
                close = fmt.find("}", end + 1)
                if close > 0:
                    end = close
                    inner = fmt[i + 1 : end]
        arg, sep, spec = inner.partition(":")
        if buf:
            pieces.append("".join(buf))
            buf = []
        pieces.append(BraceField(arg.strip(), "", sep + spec))
        i = end + 1
    if buf:
        pieces.append("".join(buf))
    return pieces
