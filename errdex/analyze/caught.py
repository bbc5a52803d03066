"""Errors the library catches above the function that raises them: every call of a
private function (and, for a private caller whose own call is not caught, every call of
that caller, up to CAUGHT_DEPTH calls up) sits in a handler that catches the error and
carries on, so it never reaches a user. A handler is a `try` around the call, or, where
errors are returned values, the handling of the call's result (a `match` with an arm for
the error, a default in its place): errdex.extract.callkinds records both per call."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from errdex.languages import spec_for
from errdex.models import Site, SiteKind

if TYPE_CHECKING:
    from errdex.analyze.callgraph import CallGraph

CAUGHT_DEPTH = 6  # callers followed up to say that the library catches a private error
# The kinds of site whose error is a value its caller gets back (a panic is no value: a
# `match` on the result does not stop it)
RETURNED = frozenset({SiteKind.BAIL, SiteKind.CONTEXT, SiteKind.ERROR_ENUM})


def by_callers(
    graph: CallGraph, site: Site, catches: Callable[[str, frozenset[str]], bool]
) -> tuple[str, ...]:
    """Where the library catches the site's error when it leaves a private function
    (`catches(handler types, raised class and its bases)`), the handlers' "path:line";
    () unless every way up is caught. A public function's users call it directly."""
    start = graph.start(site)
    returned = spec_for(site.language).can("errors_propagate_by_return")
    if start is None or not internal(graph, start) or not (
            site.kind in RETURNED if returned else site.exception):
        return ()
    raised = graph.ancestors(re.split(r"::|\.", site.exception)[-1]) if site.exception \
        else frozenset()
    found = _caught_above(graph, start, lambda types: catches(types, raised), CAUGHT_DEPTH)
    return tuple(f"{path}:{line}" for path, line in sorted(set(found or ())))


def internal(graph: CallGraph, index: int) -> bool:
    """Whether users cannot call the definition themselves: a method of a public class
    is called on the objects that class's users get (`f.fileno()`), and a function a
    module imports by name may be re-exported (`importlib.util.source_from_cache`)."""
    d = graph.defs[index]
    return index in graph.hidden or graph.scopes.unnamed(graph.defs, index) or (
        d.owner is None and d.name not in graph.imported
        and (d.path, d.line) in graph.private_defs)


def _caught_above(
    graph: CallGraph, index: int, catches: Callable[[str], bool], depth: int
) -> list[tuple[str, int]] | None:
    callers = graph.callers_of(index)
    if not callers or graph.defs[index].name in graph.passed:
        return None  # nothing known calls it, or it is handed on: nothing known catches it
    name, out = graph.defs[index].name, []
    for caller in callers:
        calls = graph.caught.get((name, caller), [])
        held = [next((at for types, at in handlers if catches(types)), None)
                for handlers in calls]  # fmt: skip
        if calls and None not in held:
            out += [(graph.defs[caller].path, at) for at in held if at is not None]
            continue
        if depth <= 1 or not internal(graph, caller):
            return None
        above = _caught_above(graph, caller, catches, depth - 1)
        if above is None:
            return None
        out += above
    return out
