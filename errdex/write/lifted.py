"""A check on an internal function's parameters, said on the public caller's arguments.

`hdr.parse.parse(value)` calls `get_word(value)`, whose check `not
value.startswith("=?")` reads only its parameter `value`: the user, who called `parse`,
gets the requirement on `parse`'s own `value`. The call's arguments come from the
outline (errdex.extract.outline), the caller from the call graph's direct public callers;
nothing is guessed: when an argument the check reads is not written in terms of the
caller's own parameters, the page keeps the internal function's wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.analyze import facts
from errdex.analyze.calldefs import RECEIVERS, VARIES, passed_to
from errdex.analyze.facts import Origin
from errdex.models import EntryPoint, Language

# A method call other than the aspects every value of a kind has (its shape, dtype,
# device): through a further hop, the parameter may be a part of the caller's value (a
# custom op's layout of a tensor), which has methods the value itself lacks.
_OTHER_CALL = re.compile(r"\.(?!(?:dims?\d?|size|shape|dtype|device|rank|ndim|len)\s*\()"
                         r"\w+\s*\(")
_SIMPLE = re.compile(r"[A-Za-z_][\w.]*(?:\(\))?|-?\d+")


@dataclass(frozen=True)
class Lifted:
    """The check restated at a direct public caller."""

    entry: EntryPoint  # the public function the user calls
    guard: str  # the site's guard with the parameters it reads replaced by the arguments
    passed: tuple[tuple[str, str], ...]  # (the site function's parameter, the argument)


def lift(
    guard: str, names: Sequence[str], params: Sequence[str], entry_points: Sequence[EntryPoint],
    entry: str, language: Language, origins: Sequence[Origin] = (),
) -> Lifted | None:  # fmt: skip
    """The guard at `entry`, when the call graph knows what `entry` passes the site's
    function (directly, or through one function that passes it on) and every
    value the guard reads is a parameter passed an expression of the caller's own
    parameters, not bound again before the check (`origins`); else None."""
    own = [p for p in params if p not in RECEIVERS]
    roots = facts.value_roots(names, guard, set(own))
    if not roots or not roots <= set(own) or re.search(r"\b(?:self|Self)\b", guard):
        return None
    if any(_rebound(o) for o in origins if o.name in roots):
        return None  # `let dim = t.dim(dim)?`: the check reads the size, not the argument
    for point in entry_points:
        if point.function != entry or point.arguments is None \
                or point.parameters is None:  # fmt: skip
            continue
        passed = passed_to(own, params, point.arguments)
        if passed is None or not roots <= set(passed) or _binds(guard, roots, language) \
                or any(passed[root] == VARIES for root in roots):  # fmt: skip
            return None
        if point.depth > 1 and _OTHER_CALL.search(guard):
            return None  # one hop up, only what the caller's own value surely has (its shape)
        # All at once: `f(b, a)` into `def f(a, b)` swaps them, one by one would not.
        shown = {root: passed[root] if _SIMPLE.fullmatch(passed[root]) else f"({passed[root]})"
                 for root in roots}
        lifted = _substituted(guard, shown)
        theirs = set(point.parameters) - set(RECEIVERS)
        read = facts.value_roots(facts.guarded_names(lifted, language), lifted, theirs)
        if not read or not read <= theirs or facts.requirement_of(lifted, language) is None:
            return None
        return Lifted(point, lifted, tuple((root, passed[root]) for root in sorted(roots)))
    return None


def _rebound(origin: Origin) -> bool:
    """The function binds the parameter's name again to a value read from another one
    before the check (`let dim = t.dim(dim)?`: the size of `t`'s dimension `dim`); a
    conversion or a part of the same value (`index as usize`, `_index(hour)`,
    `weights.storage_and_layout().0`) is still the argument."""
    read = re.match(r"&?\s*\*?\s*([A-Za-z_]\w*)\s*\.", origin.expression.strip())
    return origin.how == "local" and read is not None and read.group(1) != origin.name


def _binds(guard: str, roots: set[str], language: Language) -> bool:
    """Whether a name the guard reads is also bound by a pattern it matches
    (`matches!((s1, s2), (F32(s1), F32(s2)))`): substituting it there would be wrong."""
    cond = facts.parse_guard(guard, language)
    leaves = facts.leaves(cond) if cond is not None else ()
    return any(leaf.rel[1:] == "matches" and roots & set(facts.names_in(leaf.obj))
               for leaf in leaves)


def _substituted(guard: str, values: dict[str, str]) -> str:
    """`guard` with each name of `values` (not a field, `x.name`) replaced by its value."""
    names = "|".join(map(re.escape, sorted(values, key=len, reverse=True)))
    return re.sub(rf"(?<![\w.])({names})\b", lambda m: values[m.group(1)], guard)
