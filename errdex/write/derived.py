"""Values a check reads that its function computes from its own arguments (`n =
_ss(data, mu)[3]` before `if n < 1`): the page names the argument that decides, not only
the local the check tests."""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.analyze.origins import Computed
from errdex.write.conditions import checked_when, debug_note
from errdex.write.pagefacts import PageFacts, fn_name, loc


def derived(f: PageFacts) -> tuple[Computed, ...]:
    """The locals the check reads that its function computes from its own arguments
    (errdex.analyze.origins.computed_from_arguments), when those arguments are the
    user's: not those of a private function nobody public calls, nor of a helper whose
    callers take no argument."""
    if (not f.direct and not _takes_arguments(f)) or private_alone(f):
        return ()
    return f.computed


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


def covered(f: PageFacts, found: tuple[Computed, ...]) -> bool:
    """Every value the check reads is an argument or computed from them."""
    params = f.own_params
    roots = {n.split(".")[0] for n in f.names}
    return bool(found) and roots <= params | {d.origin.name for d in found}


def _callers_own(f: PageFacts, found: tuple[Computed, ...]) -> bool:
    """The function is the one the user calls, and what it checks comes from its
    arguments alone: the requirement can be said in them."""
    return bool(f.public) and f.direct and covered(f, found)


def _named_in(text: str, found: tuple[Computed, ...]) -> tuple[Computed, ...]:
    """The computed values a requirement still names (`n`, or `drivesplits` inside
    `len(set(d for d, p in drivesplits))`)."""
    return tuple(d for d in found if re.search(rf"(?<![\w.]){re.escape(d.origin.name)}\b", text))


def _arguments(f: PageFacts, found: tuple[Computed, ...]) -> list[str]:
    """The arguments that decide: those the computed values come from, and those the
    check reads itself (`main` of `not main and not has_main`)."""
    read = {n.split(".")[0] for n in f.names} & f.own_params
    return sorted({a for d in found for a in d.arguments} | read)


def _listed(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


MAX_QUOTED = 100  # characters of a statement a sentence quotes


def computed_clause(found: tuple[Computed, ...], quoted: bool = True) -> str:
    """"`n` is computed from `data` (`T, ss, c, n = _ss(data, mu)`)": the statement only
    when one short line holds it whole."""
    return "; ".join(
        f"`{d.origin.name}` is computed from {_listed(list(d.arguments))}"
        + (f" (`{text}`)" if quoted and facts.balanced(text := d.origin.text.rstrip(",;"))
           and len(text) <= MAX_QUOTED else "")
        for d in found)  # fmt: skip


def summary(f: PageFacts, found: tuple[Computed, ...], tail: str) -> str | None:
    """The requirement on the computed values, in a call the user makes directly; the
    locals it still names said with what they are computed from."""
    if not (f.req and _callers_own(f, found)):
        return None
    named = _named_in(f.req, found)
    where = f", where {computed_clause(named)}" if named else ""
    return f"{f.req} when calling {f.entry}{debug_note(f)}{where}{checked_when(f)}{tail}"


def solution(f: PageFacts, found: tuple[Computed, ...], shown: str) -> str:
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


def fix_note(f: PageFacts, found: tuple[Computed, ...]) -> str | None:
    """The example fix's comment: which arguments to change, and what they must give."""
    if not (f.holds and _callers_own(f, found)):
        return None
    named = _named_in(f.holds, found)
    where = f"; {computed_clause(named, quoted=False)}" if named else ""
    return f"pass {_listed(_arguments(f, found))} for which {f.holds}{where}".replace("`", "")


def trigger(f: PageFacts, found: tuple[Computed, ...], violation: str | None) -> str | None:
    if not (violation and _callers_own(f, found)):
        return None
    return (f"Calling {f.entry} with {_listed(_arguments(f, found))} for which {violation}, "
            f"where {computed_clause(found)}.")
