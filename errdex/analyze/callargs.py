"""Which of the calls the call graph holds are surely to a given definition, and what
they pass it (errdex.analyze.callgraph; errdex.analyze.fixedargs; errdex.write.lifted).

A free function is surely called bare or through its module (`ops::sdpa(`), a method on
its owner (`Owner::m(`) or on the caller's own receiver of the same type (`self.m(`). A
name alone on some value (`x.read(`, `self.buffer.seek(`) may be any type's method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.analyze.calldefs import VARIES, Def, last_part

if TYPE_CHECKING:
    from errdex.analyze.callgraph import CallGraph


def surely_calls(graph: CallGraph, target: Def, caller: int, qualifier: str) -> bool:
    """Whether a call of `target`'s name written with `qualifier` in `caller` is to it."""
    c = graph.defs[caller]
    if not qualifier and c.path == target.path and c.line < target.line <= c.end_line:
        return True  # a function nested in its caller, called by its own name
    if target.owner is None:
        return qualifier in ("", last_part(target))
    return qualifier == target.owner or (
        qualifier in ("self", "Self", c.receiver) and c.owner == target.owner)


def arguments_passed(graph: CallGraph, target: Def, caller: int) -> tuple[str, ...] | None:
    """The arguments `caller` passes to `target`, when its calls are surely to it; an
    argument those calls pass differently is VARIES (`true` in one, `false` in one); None
    when their arguments do not line up."""
    found = graph.arguments.get((target.name, caller))
    if found is None or not surely_calls(graph, target, caller, found[0]):
        return None
    passed = {a for q, a in graph.calls.get((target.name, caller), ())
              if surely_calls(graph, target, caller, q)}
    if None in passed or len({len(a or ()) for a in passed}) > 1:
        return None
    return tuple(a if all(b[i] == a for b in passed if b) else VARIES
                 for i, a in enumerate(found[1]))


def by_value(graph: CallGraph, index: int, caller: int) -> bool:
    """`caller` calls the definition's name only on some value (`self.buffer.seek`)."""
    target = graph.defs[index]
    calls = graph.calls.get((target.name, caller), ())
    return bool(calls) and not any(surely_calls(graph, target, caller, q) for q, _ in calls)
