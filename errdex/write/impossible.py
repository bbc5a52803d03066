"""Checks that cannot fail at this commit, proven from the checks before them.

An earlier check on the same path may already have narrowed a value to a few constants
(`if !(d == 64 || d == 128) { bail!(..) }`, `if mode not in ("r", "w"): raise`); a later
check on that value that every one of those constants passes cannot fail
(`if d % 8 != 0 { bail!(..) }`). A page must not tell the user which arguments make it
fail. Only what evaluates to a plain number, string or truth value is decided; anything
else (a call, a name the earlier check does not fix) is left undecided, and undecided is
never "cannot fail".
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from errdex.analyze import facts
from errdex.analyze.facts import Group, Leaf
from errdex.models import Language, Site

MAX_VALUES = 16  # an earlier check that admits more constants than this narrows nothing


@dataclass(frozen=True)
class RuledOut:
    """Why a site's check cannot fail: the earlier check at `line` admits only `values`
    of `name`, and each of them passes it."""

    name: str
    values: tuple[str, ...]
    line: int


def ruled_out(site: Site, earlier: Sequence[tuple[int, str]]) -> RuledOut | None:
    """Whether an earlier check on the site's path (`(line, failing guard)`, in the site's
    own function) leaves the site's own check no value to fail on."""
    if not site.guard:
        return None
    cond = facts.parse_guard(site.guard, site.language)
    if cond is None:
        return None
    for line, guard in earlier:
        narrowed = _admitted(facts.parse_guard(guard, site.language), site.language)
        if narrowed is None:
            continue
        name, values = narrowed
        if not re.search(rf"(?<![\w.]){re.escape(name)}\b", site.guard):
            continue
        outcomes = [_holds(cond, name, value, site.language) for value in values]
        if outcomes and all(outcome is False for outcome in outcomes):
            return RuledOut(name, values, line)
    return None


def _admitted(cond: facts.Cond | None, language: Language) -> tuple[str, tuple[str, ...]] | None:
    """(name, the constants it may hold) after a check that fails on `cond` passed:
    `!(x == a || x == b)`, `x != a && x != b`, `x not in (a, b)`, `!matches!(x, a | b)`."""
    if isinstance(cond, Group) and cond.op == "not" and len(cond.parts) == 1:
        inner = cond.parts[0]
        leaves = [inner] if isinstance(inner, Leaf) else list(inner.parts) \
            if inner.op == "or" else []  # fmt: skip
        if leaves and all(isinstance(x, Leaf) for x in leaves):
            return _one_name([x for x in leaves if isinstance(x, Leaf)], ("eq", "+matches",
                                                                          "in"))
    if isinstance(cond, Group) and cond.op == "and" and all(isinstance(x, Leaf)
                                                            for x in cond.parts):
        return _one_name([x for x in cond.parts if isinstance(x, Leaf)], ("ne",))
    if isinstance(cond, Leaf) and cond.rel in ("not_in", "ne"):
        return _one_name([cond], (cond.rel,))
    return None


def _one_name(leaves: Sequence[Leaf], rels: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    names = {x.subject.strip() for x in leaves}
    if len(names) != 1 or any(x.rel not in rels for x in leaves):
        return None
    values: list[str] = []
    for leaf in leaves:
        if leaf.rel in ("eq", "ne"):
            values.append(leaf.obj.strip())
        else:  # a set of alternatives: `a | b`, `(a, b)`, `[a, b]`
            values += [v.strip() for v in re.split(r"[|,]", leaf.obj.strip("()[]{} "))
                       if v.strip()]
    (name,) = names
    if not re.fullmatch(r"[A-Za-z_][\w.]*", name) or not values or len(values) > MAX_VALUES:
        return None
    if any(_value(v) is None for v in values):
        return None
    return name, tuple(values)


def _holds(cond: facts.Cond, name: str, value: str, language: Language) -> bool | None:
    """The failing guard's truth with `name` set to `value`, or None when it does not
    reduce to constants."""
    if isinstance(cond, Group):
        parts = [_holds(p, name, value, language) for p in cond.parts]
        if cond.op == "not":
            return None if parts[0] is None else not parts[0]
        if cond.op == "and":
            return False if False in parts else None if None in parts else True
        return True if True in parts else None if None in parts else False
    compare = _COMPARE.get(cond.rel)
    if compare is None:
        return None
    left = _value(_put(cond.subject, name, value))
    right = _value(_put(cond.obj, name, value))
    if left is None or right is None:
        return None
    try:
        return bool(compare(left, right))
    except TypeError:
        return None


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge,
}  # fmt: skip


def _put(expression: str, name: str, value: str) -> str:
    return re.sub(rf"(?<![\w.]){re.escape(name)}\b", value.replace("\\", "\\\\"), expression)


_NUMBER_SUFFIX = re.compile(r"(?<=\d)(?:_?(?:[iu](?:8|16|32|64|128|size)|f32|f64))\b")


def _value(expression: str) -> Any:
    """The constant an expression of literals and arithmetic stands for, or None."""
    text = _NUMBER_SUFFIX.sub("", expression.strip()).replace("_", "") \
        if re.fullmatch(r"[\d\s_+\-*/%()a-z0-9]*", expression.strip()) else expression.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return None
    return _constant(tree.body)


_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv,
}  # fmt: skip


def _constant(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str, bool)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _constant(node.left), _constant(node.right)
        if not (isinstance(left, int) and isinstance(right, int)):
            return None
        if isinstance(node.op, (ast.Mod, ast.FloorDiv, ast.Div)) and right == 0:
            return None
        return _ARITHMETIC[type(node.op)](left, right)
    return None
