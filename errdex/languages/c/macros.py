"""Error sites inside macro bodies: `#define EXC_IF_CONN_CLOSED(self) if ((self)->closed
> 0) { PyErr_SetString(InterfaceError, "connection already closed"); return NULL; }`.

The grammar keeps a macro's body as raw text, so the raise in it is no call of the tree.
Every macro whose body holds a raise is lifted into a function of the same name, at the
same lines, in a source of its own (every other line blank): read like any other file,
its sites are the macro's, each at its real line, named by the macro. Its arguments stay
names (`self`), as the macro writes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

_MACROS = frozenset({"preproc_function_def", "preproc_def"})
MAX_MACRO_LINES = 200  # a longer body is no error helper: left out
# `#cmd`, an argument's text as a string: read as the argument, a value the message holds.
_STRINGIZED = re.compile(rb"(?<![#\w])#\s*(\w+)")


_BLOCKS = ("preproc_", "linkage_specification", "namespace_definition", "declaration_list", "ERROR")


def _macros(node: Node) -> Iterator[Node]:
    """The file's macro definitions: at its top level, inside `#if` blocks, `extern "C"
    { .. }` and namespaces (not inside functions)."""
    for child in node.children:
        if child.type in _MACROS:
            yield child
        elif child.type.startswith(_BLOCKS):
            yield from _macros(child)


def lifted(root: Node, source: bytes, raises: re.Pattern[bytes]) -> bytes | None:
    """`source` with only its raising macros, each written as a function at its own
    lines; None when no macro body matches `raises`."""
    lines = source.split(b"\n")
    out = [b""] * len(lines)
    found = False
    for macro in _macros(root):
        name, value = macro.child_by_field_name("name"), macro.child_by_field_name("value")
        if name is None or value is None or not raises.search(value.text or b""):
            continue
        first, last = value.start_point.row, value.end_point.row
        if last - first > MAX_MACRO_LINES:
            continue
        body = [lines[row] for row in range(first, last + 1)]
        body[0] = body[0][value.start_point.column :]
        body = [re.sub(rb"\\\s*$", b"", line) for line in body]  # the line continuations
        body = [_STRINGIZED.sub(rb"\1", line) for line in body]
        header = b"void " + (name.text or b"") + b"(void) { "
        body[0], body[-1] = header + body[0], body[-1] + b" ;}"
        out[first : last + 1] = body
        found = True
    return b"\n".join(out) if found else None
