"""The `printf` format family: `%s`, `%(name)s`, `%5.2f`, `%*d` and `%%`.

It returns the string's pieces in order; it must not bind a field to an argument (the
extractor does, from the right-hand side of `%`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PERCENT = re.compile(
    r"%(?:\(([^()]*)\))?([-#0 +]*)(\*|\d+)?(?:\.(\*|\d*))?[hlL]?([diouxXeEfFgGcrsab%])"
)


@dataclass(frozen=True)
class PrintfField:
    """One conversion: `name` from `%(name)s` (None: the next value), how many values a
    `*` width and precision take first, and the conversion as written."""

    name: str | None
    stars: int
    written: str


# Verbs as a letter of any kind and an explicit argument index (`%[2]d`, `%+v`, `%w`):
# the family's wider form, for languages whose printf has verbs beyond C's.
_VERBS = re.compile(r"%(?:\[(\d+)\])?([-#0 +]*)(\*|\d+)?(?:\.(\*|\d*))?([a-zA-Z%])")


# C's printf (and CPython's `PyUnicode_FromFormat`): length modifiers (`%zd`, `%lld`,
# `%hhu`, MSVC's `%I64d`), `%2$s` positions, and the C API's object conversions `%S %R %U
# %V %A`; a `%n` stores a count and prints nothing (its field is still an argument).
_C = re.compile(r"%(?:(\d+)\$)?([-#0 +']*)(\*|\d+)?(?:\.(\*|\d*))?"
                r"(?:hh|h|ll|l|L|z|j|t|q|I64|I32|I)?([diouxXeEfFgGaAcspnSRUV%])")


def split(fmt: str, any_verb: bool = False, c: bool = False) -> list[str | PrintfField]:
    """A literal (maybe empty) before every conversion, then the tail; `%%` is "%".
    `any_verb`: every letter is a verb and `%[n]` indexes an argument (its `name`);
    `c`: C's conversions with their length modifiers (`%zd`), `%2$s` naming the second."""
    out: list[str | PrintfField] = []
    position = 0
    for match in (_C if c else _VERBS if any_verb else _PERCENT).finditer(fmt):
        out.append(fmt[position : match.start()])
        position = match.end()
        if match.group(5) == "%":
            out.append("%")
            continue
        stars = (match.group(3) == "*") + (match.group(4) == "*")
        out.append(PrintfField(match.group(1), stars, match.group(0)))
    out.append(fmt[position:])
    return out


def count_fields(pieces: list[str | PrintfField]) -> int:
    return sum(isinstance(p, PrintfField) for p in pieces)
