"""What a call of a Python function gives when it does not run the body at once: an
`async def` gives a coroutine, run when awaited; a `yield` in the body makes a generator,
run as it is iterated (both: an async generator, for `async for`). A page's try/except
around such a call must await or iterate it, or it catches nothing."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.structure import ASYNC_ITERATED, AWAITED, ITERATED

_OWN_SCOPES = frozenset({"function_definition", "lambda", "class_definition"})


def lazy(definition: Node) -> str:
    """AWAITED, ITERATED, ASYNC_ITERATED or "" for a `function_definition` node."""
    is_async = any(child.type == "async" for child in definition.children)
    body = definition.child_by_field_name("body")
    yields = body is not None and _yields(body)
    if is_async:
        return ASYNC_ITERATED if yields else AWAITED
    return ITERATED if yields else ""


def _yields(node: Node) -> bool:
    """Whether a `yield` of the function itself sits inside `node`."""
    return any(child.type == "yield" or (child.type not in _OWN_SCOPES and _yields(child))
               for child in node.named_children)  # fmt: skip
