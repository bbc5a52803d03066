"""What a template's hole can hold, read from its format spec: `%d` and `{:d}` an
integer, `{:.2f}` a float, `{:x}` hex digits, `!r` and `%r` a Python repr. The matcher
checks a bound value against its kind, which is what keeps a short template from
swallowing text it never printed. Nothing here knows about templates as a whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

INT_VALUE = re.compile(r"[+-]?\d[\d,_]*")
FLOAT_VALUE = re.compile(r"[+-]?(?:\d[\d,_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?|[+-]?(?:inf|nan)")
HEX_VALUE = re.compile(r"[+-]?(?:0[xXob])?[0-9a-fA-F]+")
# What `repr()` prints: a quoted string, a number, a bracketed or <...> form, a constant,
# or `Name(...)`; never a bare word, so `unclosed {!r}` doesn't swallow "unclosed file".
REPR_VALUE = re.compile(
    r"""[rbuf]?'.*'|[rbuf]?".*"|[-+]?(?:\d|inf\b|nan\b).*|[\[({<].*|None|True|False|Ellipsis"""
    r"|[A-Za-z_][\w.]*\(.*\)",
    re.DOTALL,
)
TYPE_CHECKS = {"int": INT_VALUE, "float": FLOAT_VALUE, "hex": HEX_VALUE, "repr": REPR_VALUE}


@lru_cache(maxsize=4096)
def hole_type(spec: str) -> str:
    """The value kind a format spec guarantees: int, float, hex, or any."""
    s = spec.strip()
    kind = s[-1:] if s.startswith("%") else s.rsplit(":", 1)[1][-1:] if ":" in s else ""
    if kind in ("d", "i", "u"):
        return "int"
    if kind and kind in "eEfFgG%":
        return "float"
    if kind and kind in "xXob":
        return "hex"
    if "!r" in s or (s.startswith("%") and kind == "r"):
        return "repr"
    return "any"


@lru_cache(maxsize=4096)
def empty_ok(spec: str) -> bool:
    """`%s`/`{}` of an empty string prints nothing; `{:?}`, `!r`, `%d` never do."""
    s = spec.strip()
    kind = s[-1:] if s.startswith("%") else s.rsplit(":", 1)[1][-1:] if ":" in s else ""
    return kind in ("", "s") and "!r" not in s and "!a" not in s


@lru_cache(maxsize=65536)
def hole_kinds(specs: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """(types, empty_ok) of a spec tuple, shared by every template with the same specs."""
    return tuple(hole_type(s) for s in specs), tuple(empty_ok(s) for s in specs)
