"""A message raised at several places, each under its own condition: a page's fix is
written for its first place (its requirement is false at another), so it says so, and
what the other places check follows (round 11 packaging "Invalid license expression":
site 149's "must be truthy" given as the rule for all three).
"""

from __future__ import annotations

from collections.abc import Sequence

from errdex.analyze import facts
from errdex.analyze.facts import Origin
from errdex.extract.structure import EARLY_RETURN, ELSE, IF
from errdex.models import PathStep, Site, SiteFacts
from errdex.write.pagefacts import PageFacts, joined, loc
from errdex.write.siblings import plain_condition

_LISTED = 3  # the other places a solution names; the page's "what it means" lists all
_LONGEST = 160  # characters of a condition quoted whole


def each_its_own(f: PageFacts) -> bool:
    """The record's places check different conditions (not one invariant)."""
    sites = f.record.sites
    return len(sites) > 1 and len({s.guard for s in sites}) > 1 and not f.invariant


def scoped(f: PageFacts, solutions: list[str]) -> list[str]:
    """`solutions`, all about the page's first place, said of that place, followed by what
    the other places check; unchanged for a page of one condition."""
    if not each_its_own(f) or not solutions:
        return solutions
    own = {_requirement(f.site, f.origins), _requirement(f.site)} - {None}
    others = [s for s in f.record.sites if s is not f.site and _requirement(s) not in own]
    if not others:  # the same check written another way (`tag is None`, `tag` its local)
        return solutions
    first = solutions[0]
    at = f"At {loc(f.site)} (one of {len(f.record.sites)} places): {first[:1].lower()}{first[1:]}"
    said = [_check(f, s) for s in others[:_LISTED]]
    more = f"; and {len(others) - _LISTED} more" if len(others) > _LISTED else ""
    return [at, *solutions[1:],
            f"The other places have checks of their own (see what it means): {'; '.join(said)}"
            f"{more}."]


def _requirement(site: Site, origins: Sequence[Origin] = ()) -> str | None:
    """A place's requirement in words; its locals written as what they hold (`origins`)."""
    guard = facts.through_locals(site.guard, origins, site.language) if origins else site.guard
    need = facts.requirement_of(guard, site.language) if guard else None
    return facts.describe(need, site.language) if need else None


def facts_of(f: PageFacts, site: Site) -> SiteFacts | None:
    """The facts of one of the page's places (the record's facts hold the first ones)."""
    if site is f.site:
        return f.site_facts
    known = f.known.sites if f.known else ()
    return next((k for k in known if (k.path, k.line) == (site.path, site.line)), None)


_SAID_KINDS = frozenset({IF, ELSE, EARLY_RETURN})  # steps said as conditions of a place
_SHORT_WHEN = 160  # characters of a place's conditions said in the list of places


def _checked_when(reached: Sequence[PathStep]) -> str:
    """" when `"t"` is in `mode`": the branches a place is checked under (bz2's default
    "rb" never gets there), or " on a path of its own" when they are too long to list
    (arms, handlers, long chains); "" when it is checked on every path."""
    if not reached:
        return ""
    said = [step.text for step in reached]
    when = " and ".join(plain_condition(s, len(said) > 1) for s in said)
    if any(step.kind not in _SAID_KINDS for step in reached) or "; " in when \
            or len(when) > _SHORT_WHEN:
        return " on a path of its own"
    return f" when {when}"


def _check(f: PageFacts, site: Site) -> str:
    said = _requirement(site)
    known = facts_of(f, site)
    reached = known.reached if known is not None else ()
    steps = [step.text for step in reached]
    if said is not None:
        return f"at {loc(site)}, {said}{_checked_when(reached)}"
    if site.guard and len(site.guard) <= _LONGEST:
        return f"at {loc(site)}, it raises when `{site.guard}`"
    # No step found is not "always": an `if`/`elif` chain whose branches return is no step
    return f"at {loc(site)}, it raises when {joined(steps)}" if steps else \
        f"at {loc(site)}, the path to it decides"
