"""The parameters of an internal function that every call of it in the code passes a
literal: not a value of the user's, whatever public function they called.

darknet's `fn get(&self, key: &str)` bails when `self.parameters.get(key)` is None; its
callers write `block.get("filters")`, `block.get("size")`: no argument of the user's
becomes `key`, the data it looks the literal up in decides. packaging's
`Tokenizer.expect(name, expected=..)` is called with token names only. Said only when the
call graph knows every call (none through a value, a dispatch or a spread argument) and
the function is not one users call themselves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from errdex.analyze.calldefs import RECEIVERS, Def, passed_to
from errdex.analyze.callgraph import CallGraph
from errdex.languages import spec_for
from errdex.models import Site

MAX_VALUES = 3  # the literals kept for a parameter (one more: "there are more")
_FALSY = frozenset({"false", "False", "None", "nil", "null", "0", '""', "''"})
_TRUTHY = frozenset({"true", "True"})
# A literal as calls write it: a string (not a formatted one), a number, a flag, a
# constant (`GGUF_MAX`, `Self::MAX`), a string made owned (`"x".to_string()`, `.into()`).
_STRING = r"(?:[rbuRBU]{0,2})(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
_LITERAL = re.compile(
    rf"&?(?:{_STRING}(?:\.(?:to_string|to_owned|into)\(\))?|-?\d[\w.]*|true|false|True|False"
    r"|None|nil|null|(?:[A-Za-z_]\w*(?:::|\.))*[A-Z][A-Z0-9_]+)")


def fixed_arguments(graph: CallGraph, site: Site) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(parameter, the literals passed) for each parameter of the site's function that
    every call of it passes a literal; () when a call is not known or users call it."""
    start = graph.start(site)
    if start is None:
        return ()
    target = graph.defs[start]
    params = target.params or ()
    own = [p for p in params if p not in RECEIVERS and p != target.receiver]
    callers = graph.callers_of(start)
    if target.public or target.in_trait or not own or not callers \
            or target.name in graph.passed or _by_any_object(graph, target, site):  # fmt: skip
        return ()
    values: dict[str, list[str]] = {p: [] for p in own}
    for caller in [*callers, start]:  # and the calls it makes of itself
        calls = _calls_of(graph, start, caller)
        if (caller != start and not calls) or any(arguments is None for arguments in calls):
            return ()  # called through a value or a dispatch: what it passes is not seen
        for arguments in calls:
            passed = passed_to(own, params, arguments or ()) or {}
            for param in list(values):
                value = passed.get(param)
                if value is None or not _LITERAL.fullmatch(value.strip()):
                    del values[param]
                elif value.strip() not in values[param]:
                    values[param].append(value.strip())
        if not values:
            return ()
    return tuple((p, tuple(found[: MAX_VALUES + 1])) for p, found in values.items())


def _calls_of(graph: CallGraph, start: int, caller: int) -> list[tuple[str, ...] | None]:
    """The arguments of each call `caller` writes of the function at `start`: those
    surely to it, for a free function or for the function itself (`params.get(key)` in
    a `fn get` is a map's); for a method, every call of its name there."""
    target = graph.defs[start]
    calls = graph.calls.get((target.name, caller), ())
    if target.owner is None or caller == start:
        return [a for q, a in calls if graph.surely_calls(target, caller, q)]
    return [a for _, a in calls]


def _by_any_object(graph: CallGraph, target: Def, site: Site) -> bool:
    """A method named as public, and by more than one class, in a language that marks
    privacy by name (Python's `DecompressReader.seek`): whatever object has one is called
    so, by code the call graph does not see (`io.BufferedReader(raw).seek(..)`)."""
    prefix = spec_for(site.language).outline.private_prefix
    if not prefix or target.owner is None or len(graph.by_name.get(target.name, ())) == 1:
        return False
    return not (target.name.startswith(prefix) and not target.name.endswith(prefix))


def never_fails(guard: str | None, fixed: Mapping[str, Sequence[str]]) -> bool:
    """Whether a guard that is one fixed parameter alone (`cached`, `!cached`, `not
    cached`) is false for every literal the calls pass: the check cannot fire."""
    text = (guard or "").strip().strip("()").strip()
    negated = re.match(r"(?:!|not\s+)\(?\s*(\w+)\s*\)?$", text)
    name = negated.group(1) if negated else text
    values = fixed.get(name)
    if not values or len(values) > MAX_VALUES:
        return False  # not a fixed parameter alone, or not every literal is known
    wanted = _TRUTHY if negated else _FALSY
    return all(v in wanted or (negated and re.fullmatch(r"-?[1-9]\d*", v)) for v in values)
