"""Values a check reads that its function computes from its own arguments (`n =
_ss(data, mu)[3]` before `if n < 1`): the page names the argument that decides, not only
the local the check tests."""

from __future__ import annotations

import re
from dataclasses import dataclass

from errdex.analyze import facts
from errdex.analyze.origins import Origin, assigned_before, own_function_line
from errdex.extract.structure import ELSE
from errdex.models import PathStep
from errdex.write.branches import path_in_short
from errdex.write.pagefacts import PageFacts, fn_name, joined, loc


@dataclass(frozen=True)
class Derived:
    origin: Origin  # the local and where it is computed
    arguments: tuple[str, ...]  # the function's parameters its expression reads


def derived(f: PageFacts) -> tuple[Derived, ...]:
    """The locals the check reads that are computed from the function's parameters alone:
    not from the object's state too (`getattr(self, option)`), not from a parameter the
    function has bound anew before (`cum_weights = list(accumulate(weights))`), and not
    a local that only shares its name with a field the check reads (`self.size`)."""
    lines = f.site.snippet.code.splitlines()[: max(0, f.site.line - f.site.snippet.start_line)]
    if own_function_line(f.site, lines) is None:
        return ()  # the snippet starts inside the function: a parameter may be bound anew
    if (not f.direct and not _takes_arguments(f)) or private_alone(f):
        return ()  # no call of the user's passes them: a private function, or one taking none
    params = {p for p in f.params or () if p != "self" and not assigned_before(f.site, p)}
    roots = {n.split(".")[0] for n in f.names}
    out: list[Derived] = []
    for origin in f.origins:
        if origin.how != "local" or origin.name not in roots or origin.name in params \
                or not re.search(rf"(?<![\w.]){re.escape(origin.name)}\b", f.guard or "") \
                or re.search(r"\bself\b", origin.expression):  # fmt: skip
            continue
        read = tuple(sorted(set(facts.names_in(origin.expression)) & params))
        if read and all(d.origin.name != origin.name for d in out):
            out.append(Derived(origin, read))
    return tuple(out)


def private_alone(f: PageFacts) -> bool:
    """A private function (`_fold_as_ew`) no public caller is known to reach: its
    parameters are no arguments of a call the user writes."""
    return bool(re.match(r"_(?!_)", fn_name(f))) and not f.public and not f.users


def takes_arguments(f: PageFacts, function: str) -> bool | None:
    """Whether the entry point `function` takes arguments besides its receiver; None
    when the call graph does not know its parameters."""
    entry = next((e for e in f.site_facts.entry_points if e.function == function
                  and e.parameters is not None), None) if f.site_facts else None  # fmt: skip
    return None if entry is None or entry.parameters is None else \
        any(p not in ("self", "cls") for p in entry.parameters)


def _takes_arguments(f: PageFacts) -> bool:
    """Every function the page names as the user's call takes arguments, where the call
    graph knows it (`DirectUrl.validate()` takes none)."""
    return all(takes_arguments(f, user) is not False for user in f.users[:3])


def covered(f: PageFacts, found: tuple[Derived, ...]) -> bool:
    """Every value the check reads is an argument or computed from them."""
    params = set(f.params or ()) - {"self"}
    roots = {n.split(".")[0] for n in f.names}
    return bool(found) and roots <= params | {d.origin.name for d in found}


def _callers_own(f: PageFacts, found: tuple[Derived, ...]) -> bool:
    """The function is the one the user calls, and what it checks comes from its
    arguments alone: the requirement can be said in them."""
    return bool(f.public) and f.direct and covered(f, found)


def _named_in(text: str, found: tuple[Derived, ...]) -> tuple[Derived, ...]:
    """The computed values a requirement still names (`n`, or `drivesplits` inside
    `len(set(d for d, p in drivesplits))`)."""
    return tuple(d for d in found if re.search(rf"(?<![\w.]){re.escape(d.origin.name)}\b", text))


def _arguments(f: PageFacts, found: tuple[Derived, ...]) -> list[str]:
    """The arguments that decide: those the computed values come from, and those the
    check reads itself (`main` of `not main and not has_main`)."""
    read = {n.split(".")[0] for n in f.names} & (set(f.params or ()) - {"self"})
    return sorted({a for d in found for a in d.arguments} | read)


def _listed(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


MAX_QUOTED = 100  # characters of a statement a sentence quotes
MAX_CONDITIONS = 240  # characters of the conditions a summary adds


def computed_clause(found: tuple[Derived, ...], quoted: bool = True) -> str:
    """"`n` is computed from `data` (`T, ss, c, n = _ss(data, mu)`)": the statement only
    when one short line holds it whole."""
    return "; ".join(
        f"`{d.origin.name}` is computed from {_listed(list(d.arguments))}"
        + (f" (`{text}`)" if quoted and facts.balanced(text := d.origin.text.rstrip(",;"))
           and len(text) <= MAX_QUOTED else "")
        for d in found)  # fmt: skip


def summary(f: PageFacts, found: tuple[Derived, ...], tail: str) -> str | None:
    """The requirement on the computed values, in a call the user makes directly; the
    locals it still names said with what they are computed from."""
    if not (f.req and _callers_own(f, found)):
        return None
    debug = " (checked in debug builds only)" if f.debug_only else ""
    named = _named_in(f.req, found)
    where = f", where {computed_clause(named)}" if named else ""
    return f"{f.req} when calling {f.entry}{debug}{where}{only_when(f)}{tail}"


def _implied(step: PathStep, chained: bool, guard: str) -> bool:
    """A step the requirement already says: a chain's branches (folded into it), or the
    arms before a check on the same value (its own pattern implies them)."""
    if chained and step.kind == ELSE and step.branches:
        return True
    return bool(step.handled) and (chained or (bool(step.subject) and step.subject in guard))


def only_when(f: PageFacts) -> str:
    """The conditions the check runs under, for a summary that states its requirement:
    without them it reads as holding for every call."""
    chained = bool(f.checked and f.checked != f.guard)
    steps = tuple(s for s in (f.site_facts.reached if f.site_facts else ())
                  if not _implied(s, chained, f.guard or ""))  # fmt: skip
    said = path_in_short(joined([f.said(s.text, s.line) for s in steps]), steps)
    if len(said) > MAX_CONDITIONS:
        return " (checked only on the path what it means describes)"
    return f" (checked only when {said})" if steps else ""


def solution(f: PageFacts, found: tuple[Derived, ...], shown: str) -> str:
    args = _listed(_arguments(f, found))
    locals_ = _listed([d.origin.name for d in found])
    lines = ", ".join(f"line {d.origin.line}" for d in found)
    how = f" so that {f.holds}" if f.holds and covered(f, found) else ""
    if not f.direct:
        change = f"Change the arguments of your call to {f.entry} that become {args} of " \
            f"`{fn_name(f)}`"
    else:
        change = f"Change {args} in your call to {f.entry}"
    sources = _listed(sorted({a for d in found for a in d.arguments}))
    return (f"{change}{how}: the check ({loc(f.site)}) reads {locals_}, which "
            f"`{fn_name(f)}` computes from {sources} ({lines}){shown}.")


def fix_note(f: PageFacts, found: tuple[Derived, ...]) -> str | None:
    """The example fix's comment: which arguments to change, and what they must give."""
    if not (f.holds and _callers_own(f, found)):
        return None
    named = _named_in(f.holds, found)
    where = f"; {computed_clause(named, quoted=False)}" if named else ""
    return f"pass {_listed(_arguments(f, found))} for which {f.holds}{where}".replace("`", "")


def trigger(f: PageFacts, found: tuple[Derived, ...], violation: str | None) -> str | None:
    if not (violation and _callers_own(f, found)):
        return None
    return (f"Calling {f.entry} with {_listed(_arguments(f, found))} for which {violation}, "
            f"where {computed_clause(found)}.")
