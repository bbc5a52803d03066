"""What a struct literal sets (`FlashAttnVarLen { block_table: None, mask, .. }`) and which
of the receiver's fields a condition needs to hold a value (`if let Some(t) =
self.block_table.as_ref()`), for the call graph: an entry point whose literal leaves that
field `None` never reaches the code behind the condition. Reads the tree and the text only.
"""

from __future__ import annotations

import re
from typing import Any

_ACCESSORS = r"(?:\.(?:as_ref|as_deref|as_mut|as_deref_mut|clone)\(\))*"
_PRESENT = re.compile(r"Some\s*\(")  # the pattern holds only for a value
MAX_FIELDS = 40


def literal_fields(node: Any, source: bytes) -> tuple[tuple[str, str], ...]:
    """Each `field: value` of a struct literal node, the value as written on one line; a
    shorthand `field` is its own value. () for anything else."""
    body = node.child_by_field_name("body") if node.type == "struct_expression" else None
    out: list[tuple[str, str]] = []
    for child in body.named_children[:MAX_FIELDS] if body is not None else ():
        if child.type == "field_initializer":
            key, value = child.child_by_field_name("field"), child.child_by_field_name("value")
            if key is not None and value is not None:
                out.append((_text(key, source), " ".join(_text(value, source).split())[:120]))
        elif child.type == "shorthand_field_initializer":
            out.append((_text(child, source), _text(child, source)))
    return tuple(out)


def needed_field(subject: str, pattern: str, receiver: str) -> str | None:
    """The receiver's field that must hold a value (`Some`) for the condition to hold: a
    match of `self.f` (through `as_ref()` and the like) against `Some(..)`, or a test
    `self.f.is_some()`, alone or joined to others by `&&` (subject ""); else None."""
    field = rf"&?\s*{re.escape(receiver)}\.([A-Za-z_]\w*){_ACCESSORS}"
    if subject:
        found = re.fullmatch(field, subject.strip())
        return found.group(1) if found and _PRESENT.match(pattern.strip()) else None
    for part in _conjuncts(pattern):  # `self.f.is_some() && n > 4` needs it too
        found = re.fullmatch(rf"{field}\.is_some\(\)", part.strip())
        if found:
            return found.group(1)
    return None


def _conjuncts(text: str) -> list[str]:
    """The parts of a test joined by a top-level `&&` (the whole when it has none)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if depth == 0 and text.startswith("&&", i):
            parts.append(text[start:i])
            start = i + 2
    return [*parts, text[start:]]


def _text(node: Any, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
