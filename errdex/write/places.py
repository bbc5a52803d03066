"""A message raised at several places, each under its own condition: a page's fix is
written for its first place (its requirement is false at another), so it says so, and
what the other places check follows (round 11 packaging "Invalid license expression":
site 149's "must be truthy" given as the rule for all three).
"""

from __future__ import annotations

from collections.abc import Sequence

from errdex.analyze import facts
from errdex.analyze.facts import Origin
from errdex.models import Site, SiteFacts
from errdex.write.pagefacts import PageFacts, joined, loc

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


def _check(f: PageFacts, site: Site) -> str:
    said = _requirement(site)
    if said is not None:
        return f"at {loc(site)}, {said}"
    if site.guard and len(site.guard) <= _LONGEST:
        return f"at {loc(site)}, it raises when `{site.guard}`"
    known = facts_of(f, site)
    steps = [step.text for step in known.reached] if known is not None else []
    # No step found is not "always": an `if`/`elif` chain whose branches return is no step
    return f"at {loc(site)}, it raises when {joined(steps)}" if steps else \
        f"at {loc(site)}, the path to it decides"
