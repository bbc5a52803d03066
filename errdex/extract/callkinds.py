"""What the outline records about calls besides their names: lookups of a receiver's
methods by a name built from a literal prefix (`getattr(self, "visit_" + name)`, a call
of every method so named), and the handlers around a call that catch what it raises
and carry on (the error never leaves the caller there).

Both read the language's `Outline` table (`dispatch`, `try_node`, `handler_node`) and its
`handlers` patterns; nothing here names a language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from tree_sitter import Node

from errdex.languages.spec import LanguageSpec

MIN_PREFIX = 2  # a prefix's letters besides `_`: `_` alone would name every private method


@cache
def _bytes_pattern(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode())


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def dispatches(
    spec: LanguageSpec, source: bytes, spans: Sequence[tuple[int, int]]
) -> list[tuple[str, int]]:
    """Each lookup by prefix the file writes: (the prefix, the byte where it is written).
    `spans` are the functions' (start, end) bytes: a local holding the name counts only
    when assigned in the same innermost function, before the lookup."""
    if spec.outline.dispatch is None:
        return []
    lookup, assign = spec.outline.dispatch
    out = []
    for m in _bytes_pattern(lookup).finditer(source):
        prefix = m.group("prefix")
        if prefix is None and m.group("local"):
            inside = [s for s in spans if s[0] <= m.start() < s[1]]
            if not inside:
                continue
            start = max(inside)[0]
            local = re.escape(m.group("local").decode())
            found = list(_bytes_pattern(assign.replace("{local}", local)).finditer(
                source, start, m.start()))
            prefix = found[-1].group("prefix") if found else None
        if prefix is not None and len(prefix.strip(b"_")) >= MIN_PREFIX:
            out.append((prefix.decode(), m.start()))
    return out


def swallowing_handlers(
    spec: LanguageSpec, call: Node, source: bytes, stop: int
) -> tuple[tuple[str, int], ...]:
    """The handlers of the try statements whose body holds `call`, innermost first, that
    catch and carry on: no raise in the handler, the error not printed, logged or handed
    on. Up to the function starting at byte `stop`. Each: (its types as written, its line).
    A language whose errors are values reads what handles the call's result instead."""
    outline = spec.outline
    if outline.result_handlers is not None:  # a `match` on its result, an `.ok()` after it
        return outline.result_handlers(call, source)
    if outline.try_node is None or outline.handler_node is None or spec.handlers is None:
        return ()
    _, handles, raises, hands_on = (_pattern(p) for p in spec.handlers)
    found: list[tuple[str, int]] = []
    child, node = call, call.parent
    while node is not None and node.start_byte >= stop:
        if node.type == outline.try_node and child == node.child_by_field_name("body"):
            for handler in node.children:
                if handler.type != outline.handler_node:
                    continue
                caught = _swallows(handler, source, spec.comment_nodes, handles, raises,
                                   hands_on)  # fmt: skip
                if caught is not None:
                    found.append((caught, handler.start_point.row + 1))
        child, node = node, node.parent
    return tuple(found)


def _swallows(
    handler: Node, source: bytes, comments: frozenset[str], handles: re.Pattern[str],
    raises: re.Pattern[str], hands_on: re.Pattern[str],
) -> str | None:  # fmt: skip
    """The types a handler names when it carries on after catching; else None."""
    body = handler.named_children[-1] if handler.named_children else None
    if body is None:
        return None
    # Its header without the comments written between it and the body
    head = [c for c in handler.children if c.end_byte <= body.start_byte and c.type not in comments]
    end = head[-1].end_byte if head else body.start_byte
    header = source[handler.start_byte : end].decode("utf-8", "replace")
    matched = handles.fullmatch(" ".join(header.split()))
    if matched is None:
        return None
    lines = [line.strip() for line in source[body.start_byte : body.end_byte].decode(
        "utf-8", "replace").splitlines() if line.strip()]  # fmt: skip
    if not lines or any(raises.match(line) for line in lines):
        return None  # it raises again (this error or another): the caller's caller sees one
    said = " ".join(lines)
    name = matched.group("name")
    if hands_on.search(said) or (name and re.search(rf"\b{re.escape(name)}\b", said)):
        return None  # printed, logged or handed on: the user may see it
    return (matched.group("types") or "").strip()
