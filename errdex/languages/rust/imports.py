"""What a Rust file's `use` declarations bind, and the results its calls handle.

`use super::with_tracing::{linear, Linear as L};` in `m::a` binds `linear` to
`m::with_tracing::linear` and `L` to `m::with_tracing::Linear`: a call `L::new(..)`
there goes to that module's `Linear`, not to another crate's (errdex.analyze.scopes).

A call whose result is matched with an `Err` arm that carries on, or turned into an
`Option` or a default (`.ok()`, `.unwrap_or(..)`), does not hand its error to its caller.
"""

from __future__ import annotations

import re

from tree_sitter import Node

_VISIBILITY = re.compile(r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?use\s+")
_ALIAS = re.compile(r"^(?P<path>.+?)\s+as\s+(?P<name>[A-Za-z_]\w*)$")
_SEPARATOR = "::"
MAX_BOUND = 64  # names one declaration binds that are kept
# Methods of a Result that end its error there: the value or a default, or whether it failed
_ENDS_ERROR = frozenset({"ok", "unwrap_or", "unwrap_or_default", "unwrap_or_else", "is_ok",
                         "is_err", "or_else"})
_KEEPS_ERROR = frozenset({"map", "map_err", "and_then", "as_ref", "context", "with_context"})
# An `Err` arm that hands the error on, or shows it (printed, logged: the user sees it)
_PROPAGATES = re.compile(r"\breturn\b|\?|\b(?:bail|panic|unreachable|todo|unimplemented"
                         r"|e?print(?:ln)?|warn|error|info|debug|trace|log)!"
                         r"|\bErr\s*\(|\.unwrap\(\)|\.expect\(")


def import_paths(text: str, module: str) -> tuple[tuple[str, str], ...]:
    """The names a `use` declaration binds, each with its path from the crate root."""
    head = _VISIBILITY.match(text)
    if head is None:
        return ()
    body = re.sub(r"//[^\n]*|/\*.*?\*/", "", text[head.end():], flags=re.DOTALL)
    body = re.sub(r"\s*(::|[{},])\s*", r"\1", " ".join(body.split())).strip().rstrip(";")
    out: list[tuple[str, str]] = []
    for name, path in _expand("", body.strip()):
        absolute = _absolute(path, module)
        if absolute:
            out.append((name, absolute))
    return tuple(out[:MAX_BOUND])


def _expand(prefix: str, tree: str) -> list[tuple[str, str]]:
    """(name bound, path as written) of a use tree (`a::{b, c::D}`) under `prefix`."""
    tree = tree.strip()
    if not tree or tree.endswith("*"):
        return []  # a glob binds what the module holds, unknown here
    if tree.endswith("}") and "{" in tree:
        at = tree.index("{")
        head = tree[:at].removesuffix(_SEPARATOR)
        inner = prefix + _SEPARATOR + head if prefix and head else prefix or head
        return [found for part in _split(tree[at + 1:-1]) for found in _expand(inner, part)]
    alias = _ALIAS.match(tree)
    path, name = (alias.group("path"), alias.group("name")) if alias else (tree, "")
    path = path.strip()
    full = f"{prefix}{_SEPARATOR}{path}" if prefix else path
    if path == "self":  # `use a::{self}` binds `a`
        full = prefix
    name = name or full.rsplit(_SEPARATOR, 1)[-1]
    return [(name, full)] if name.isidentifier() and name != "_" else []


def _split(listed: str) -> list[str]:
    """The parts of a use list at its top level (`b, c::{D, E}` -> `b`, `c::{D, E}`)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(listed):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(listed[start:i])
            start = i + 1
    parts.append(listed[start:])
    return [p for p in parts if p.strip()]


def _absolute(path: str, module: str) -> str:
    """A use path from the crate root: `crate::`, `self::` and `super::` read against the
    file's module; "" when they cannot be (a file outside a crate's `src`)."""
    parts = path.lstrip(":").split(_SEPARATOR)
    here = module.split(_SEPARATOR) if module else []
    if parts[0] == "crate":
        return _SEPARATOR.join([*here[:1], *parts[1:]]) if here else ""
    if parts[0] in ("self", "super"):
        while parts and parts[0] in ("self", "super"):
            if parts.pop(0) == "super":
                if len(here) < 2:
                    return ""
                here = here[:-1]
        return _SEPARATOR.join([*here, *parts]) if here else ""
    return _SEPARATOR.join(parts)


def result_handlers(call: Node, source: bytes) -> tuple[tuple[str, int], ...]:
    """Where the call's result is handled so that its error goes no further: a `match` on
    it (or on it with `?`-free method calls after) whose `Err` arm carries on, an `if let
    Ok(..) = call` or a method that ends the error (`.ok()`, `.unwrap_or(..)`)."""
    node = call
    while (parent := node.parent) is not None and parent.type == "field_expression" and \
            parent.child_by_field_name("value") == node and parent.parent is not None and \
            parent.parent.type == "call_expression":
        method = parent.child_by_field_name("field")
        name = source[method.start_byte:method.end_byte].decode() if method else ""
        if name in _ENDS_ERROR:
            return (("", parent.start_point.row + 1),)
        if name not in _KEEPS_ERROR:
            return ()
        node = parent.parent
    if parent is None:
        return ()
    if parent.type == "match_expression" and parent.child_by_field_name("value") == node:
        body = parent.child_by_field_name("body")
        arms = [a for a in (body.named_children if body is not None else ())
                if a.type == "match_arm"]
        for arm in arms:
            pattern = arm.child_by_field_name("pattern")
            value = arm.child_by_field_name("value")
            said = source[pattern.start_byte:pattern.end_byte].decode("utf-8", "replace") \
                if pattern is not None else ""
            if said.replace(" ", "").startswith("Err(") and value is not None:
                done = source[value.start_byte:value.end_byte].decode("utf-8", "replace")
                if not _PROPAGATES.search(done):
                    return (("", arm.start_point.row + 1),)
        return ()
    if parent.type == "let_condition" and parent.child_by_field_name("value") == node:
        pattern = parent.child_by_field_name("pattern")
        said = source[pattern.start_byte:pattern.end_byte].decode("utf-8", "replace") \
            if pattern is not None else ""
        if said.replace(" ", "").startswith("Ok("):
            return (("", parent.start_point.row + 1),)
    return ()
