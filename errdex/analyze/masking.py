"""Top-level reading of code text: brackets and string literals masked, so regular
expressions see only the outermost level of a guard (errdex.analyze.guards) or a
signature (errdex.analyze.origins).

Pure text work; it never reads files. What a quote is comes from the language's spec.
"""

from __future__ import annotations

import re
from functools import lru_cache

from errdex.languages import spec_for
from errdex.models import Language

_MASK = "\x01"
_OPEN, _CLOSE = "([{", ")]}"


@lru_cache(maxsize=8192)
def mask(text: str, language: Language) -> str:
    """`text` with everything inside brackets and strings replaced by a filler, so that
    regular expressions see only the top level. Outermost brackets and quotes stay."""
    out: list[str] = []
    depth, quote, i = 0, "", 0
    angles = 0  # open `::<` generics (`read_i32::<LittleEndian>()`): brackets, not compares
    while i < len(text):
        ch = text[i]
        if not quote and ch == "<" and (angles or text[max(0, i - 2) : i] == "::"):
            out.append(_MASK)  # even at the top: a compare regex must not see it
            depth, angles = depth + 1, angles + 1
            i += 1
            continue
        if not quote and ch == ">" and angles:
            depth, angles = depth - 1, angles - 1
            out.append(_MASK)
            i += 1
            continue
        if quote:
            if ch == "\\" and i + 1 < len(text):
                out.append(_MASK * 2)
                i += 2
                continue
            if ch == quote:
                quote = ""
                out.append(ch if depth == 0 else _MASK)
            else:
                out.append(_MASK)
        elif ch == '"' or (ch == "'" and _is_char_quote(text, i, language)):
            quote = ch
            out.append(ch if depth == 0 else _MASK)
        elif ch in _OPEN:
            out.append(ch if depth == 0 else _MASK)
            depth += 1
        elif ch in _CLOSE and depth > 0:
            depth -= 1
            out.append(ch if depth == 0 else _MASK)
        else:
            out.append(ch if depth == 0 else _MASK)
        i += 1
    return "".join(out)


def _is_char_quote(text: str, i: int, language: Language) -> bool:
    char_literal = spec_for(language).char_literal
    if char_literal is None:
        return True
    return re.match(char_literal, text[i:]) is not None  # not a lifetime


def split_top(text: str, separator: str, language: Language) -> list[str]:
    """Split on a regex that matches at the top level only (not inside brackets/strings)."""
    masked = mask(text, language)
    parts, start = [], 0
    for m in re.finditer(separator, masked):
        parts.append(text[start : m.start()].strip())
        start = m.end()
    parts.append(text[start:].strip())
    return parts


def strip_parens(text: str, language: Language) -> str:
    text = text.strip()
    while len(text) > 2 and re.fullmatch(r"\(\x01*\)", mask(text, language)):
        text = text[1:-1].strip()
    return text
