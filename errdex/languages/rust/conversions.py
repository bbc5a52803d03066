"""`?` on a call whose error type is known, in a function that returns a library's own
`Result`: a construction of the library's variant that wraps that error type
(`#[error(transparent)] FromUtf8(#[from] FromUtf8Error)`), which errdex.extract
.constructions resolves to the variant by the wrapped type. Without it the variant's only
site is its definition, and its page said the error file "always returns" it (round 7
candle #1, #17).

What each call's error is comes from `conversions.toml` (data); the function's error type
from its declared return type: `Result<T, E>` names it, `Result<T>` is the crate's own
alias (unless the file imports a `Result` from another crate, as `anyhow::Result`)."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.models import Construction, Language

if TYPE_CHECKING:
    from errdex.languages.rust.extractor import _File

_OWN_RESULT = frozenset({"Result", "crate::Result", "self::Result", "super::Result"})
_STD_RESULT = frozenset({"Result", "std::result::Result", "core::result::Result"})
_FOREIGN_RESULT = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+(?!crate\b|self\b|super\b)(\w+)::[^;]*\bResult\b",
    re.MULTILINE)


@cache
def known_errors() -> dict[str, str]:
    """A call's path (as `conversions.toml` writes it) -> the error type it returns."""
    data = tomllib.loads(resources.files(__package__).joinpath("conversions.toml")
                         .read_text())  # fmt: skip
    table = dict(data["calls"])
    ints = data["integer_try_from"]
    table.update({f"{t}::try_from": ints["error"] for t in ints["types"]})
    return table


@cache
def complete() -> tuple[str, ...]:
    """The error types whose producers `known_errors` lists in full."""
    data = tomllib.loads(resources.files(__package__).joinpath("conversions.toml")
                         .read_text())  # fmt: skip
    return tuple(data["complete"]["types"])


def error_of(callee: str) -> str | None:
    """The error type a call written as `callee` returns, if the table knows it."""
    written = re.sub(r"\s+|::<.*>$", "", callee)
    if "::" not in written:
        return None  # `from_utf8(..)` after a `use`: not known which one
    table = known_errors()
    return next((error for key, error in table.items()
                 if key == written or key.endswith("::" + written)), None)  # fmt: skip


def converted(state: _File, node: Node, name: Node) -> None:
    """`node` is a call right under `?`, `name` its function's path."""
    if node.parent is None or node.parent.type != "try_expression":
        return
    error = error_of(state.text(name))
    into = _returned_error(state, node) if error is not None else None
    if error is None or into is None:
        return
    ctx = state.context(node)
    if ctx.skip:
        return
    line = node.start_point.row + 1
    state.constructions.append(Construction(
        language=Language.RUST, type_path=error, path=state.path, line=line,
        end_line=node.parent.end_point.row + 1, function=ctx.function, guard=ctx.guard,
        snippet=state.lines.snippet(line), converts_into=into,
    ))
    state.record_path(node.parent, line, node.parent.end_point.row + 1)


def _returned_error(state: _File, node: Node) -> str | None:
    """The error type the enclosing function returns: `E` of `Result<T, E>`, "" for the
    crate's own `Result<T>`; None inside a closure or for any other return type."""
    current = node.parent
    while current is not None and current.type != "function_item":
        if current.type in ("closure_expression", "async_block"):
            return None  # `?` returns from the closure, whose type is not written
        current = current.parent
    returned = current.child_by_field_name("return_type") if current is not None else None
    if returned is None or returned.type != "generic_type":
        return None
    base = returned.child_by_field_name("type")
    args = returned.child_by_field_name("type_arguments")
    if base is None or args is None:
        return None
    written = [a for a in args.named_children if a.type not in ("lifetime",)]
    path = re.sub(r"\s+", "", state.text(base))
    if len(written) == 2 and path in _STD_RESULT | _OWN_RESULT:
        return re.sub(r"\s+", "", state.text(written[1]))
    if len(written) == 1 and path in _OWN_RESULT:
        if path == "Result" and _FOREIGN_RESULT.search(state.source.decode(errors="replace")):
            return None  # `use anyhow::Result;`: another crate's error
        return ""
    return None
