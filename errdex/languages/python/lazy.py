"""What a call of a Python function gives when it does not run the body at once: an
`async def` gives a coroutine, run when awaited; a `yield` in the body makes a generator,
run as it is iterated (both: an async generator, for `async for`). A page's try/except
around such a call must await or iterate it, or it catches nothing."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.structure import ASYNC_ITERATED, AWAITED, ITERATED

OWN_SCOPES = frozenset({"function_definition", "lambda", "class_definition"})


def lazy(definition: Node) -> str:
    """AWAITED, ITERATED, ASYNC_ITERATED or "" for a `function_definition` node."""
    is_async = any(child.type == "async" for child in definition.children)
    body = definition.child_by_field_name("body")
    yields = body is not None and holds_own(body, "yield")
    if is_async:
        return ASYNC_ITERATED if yields else AWAITED
    return ITERATED if yields else ""


def holds_own(node: Node, kind: str) -> bool:
    """Whether a node of type `kind` of the function itself sits inside `node` (not one of
    a function, lambda or class nested in it, whose `yield`s and `return`s are their own)."""
    return any(child.type == kind or (child.type not in OWN_SCOPES and holds_own(child, kind))
               for child in node.named_children)  # fmt: skip
