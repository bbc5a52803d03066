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

import ast
import itertools
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from errdex.analyze.callargs import surely_calls
from errdex.analyze.calldefs import LITERAL, RECEIVERS, Def, passed_to
from errdex.analyze.callgraph import CallGraph
from errdex.languages import spec_for
from errdex.models import Site

MAX_VALUES = 3  # the literals kept for a parameter (one more: "there are more")
_FLAGS = {"true": True, "True": True, "false": False, "False": False}
# A literal as calls write it: a number, a flag or a null (calldefs.LITERAL), a string (not
# a formatted one), one made owned (`"x".to_string()`, `.into()`), or a constant
# (`GGUF_MAX`, `Self::MAX`).
_STRING = r"(?:[rbuRBU]{0,2})(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
_LITERAL = re.compile(
    rf"&?(?:{_STRING}(?:\.(?:to_string|to_owned|into)\(\))?|{LITERAL.pattern}"
    r"|(?:[A-Za-z_]\w*(?:::|\.))*[A-Z][A-Z0-9_]+)")


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
                value = (passed.get(param) or "").strip()
                if not _LITERAL.fullmatch(value):
                    del values[param]
                elif value not in values[param]:
                    values[param].append(value)
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
        return [a for q, a in calls if surely_calls(graph, target, caller, q)]
    return [a for _, a in calls]


def _by_any_object(graph: CallGraph, target: Def, site: Site) -> bool:
    """A method named as public, and by more than one class, in a language that marks
    privacy by name (Python's `DecompressReader.seek`): whatever object has one is called
    so, by code the call graph does not see (`io.BufferedReader(raw).seek(..)`)."""
    prefix = spec_for(site.language).outline.private_prefix
    if not prefix or target.owner is None or len(graph.by_name.get(target.name, ())) == 1:
        return False
    return not (target.name.startswith(prefix) and not target.name.endswith(prefix))


def outcome(guard: str | None, fixed: Mapping[str, Sequence[str]]) -> bool | None:
    """What a guard that reads fixed parameters only gives for every literal the calls
    pass: False (it never fails: `cached` with every call passing `false`, `dim % 2 == 1`
    with every call passing 256), True (it fails whenever it is reached: `loud`, or
    `check_home is not None`, with every call passing `True`), or None when that differs
    between them or the guard is not plain arithmetic, comparisons and logic over numbers
    and flags (and `is None` of them)."""
    text = (guard or "").strip()
    negated = re.fullmatch(r"!\s*\(?\s*(\w+)\s*\)?", text)  # `!cached`, as `not cached`
    text = f"not {negated.group(1)}" if negated else text
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if not names or any(len(fixed.get(n, ())) not in range(1, MAX_VALUES + 1) for n in names):
        return None  # it reads something else, or not every literal is known
    choices = [[(n, _value(v)) for v in fixed[n]] for n in sorted(names)]
    if any(v is None for c in choices for _, v in c):
        return None
    found = {_evaluated(tree, dict(combo)) for combo in itertools.product(*choices)}
    return found.pop() if len(found) == 1 and found <= {True, False} else None


def _value(literal: str) -> int | bool | None:
    """A number or flag as calls write it; None for anything else."""
    if literal in _FLAGS:
        return _FLAGS[literal]
    return int(literal) if re.fullmatch(r"-?\d+", literal) else None


_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv}
_COMPARED: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}


def _evaluated(node: ast.expr, values: dict[str, int | bool | None]) -> Any:
    """The value of `node` over `values`, or None when it is not plain arithmetic."""
    if isinstance(node, ast.Name):
        return values.get(node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        inner = _evaluated(node.operand, values)
        return None if inner is None else (not inner if isinstance(node.op, ast.Not) else -inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _evaluated(node.left, values), _evaluated(node.right, values)
        if left is None or right is None or (isinstance(node.op, ast.Mod | ast.FloorDiv)
                                             and right == 0):  # fmt: skip
            return None
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and isinstance(node.ops[0], ast.Is | ast.IsNot) \
            and isinstance(node.comparators[0], ast.Constant) \
            and node.comparators[0].value is None:  # fmt: skip
        left = _evaluated(node.left, values)  # a number or flag: never None
        return None if left is None else isinstance(node.ops[0], ast.IsNot)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARED:
        left, right = _evaluated(node.left, values), _evaluated(node.comparators[0], values)
        return None if left is None or right is None else \
            _COMPARED[type(node.ops[0])](left, right)
    if isinstance(node, ast.BoolOp):
        parts = [_evaluated(v, values) for v in node.values]
        if any(p is None for p in parts):
            return None
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    return None
