"""When a check runs, as a summary that states its requirement adds it: only in debug
builds, or only under the conditions on its path. Without them the requirement reads as
holding for every call."""

from __future__ import annotations

from errdex.extract.structure import ELSE
from errdex.models import PathStep
from errdex.write.branches import path_in_short
from errdex.write.pagefacts import PageFacts, joined

MAX_CONDITIONS = 240  # characters of the conditions a summary adds


def debug_note(f: PageFacts) -> str:
    return " (checked in debug builds only)" if f.debug_only else ""


def checked_when(f: PageFacts) -> str:
    """" (checked only when …)": the conditions on the check's path the requirement does
    not already say; past MAX_CONDITIONS, a pointer to the page's own account of them."""
    chained = bool(f.checked and f.checked != f.guard)
    steps = tuple(s for s in (f.site_facts.reached if f.site_facts else ())
                  if not _implied(s, chained, f.guard or ""))  # fmt: skip
    said = path_in_short(joined([f.said(s.text, s.line) for s in steps]), steps)
    if len(said) > MAX_CONDITIONS:
        return " (checked only on the path what it means describes)"
    return f" (checked only when {said})" if steps else ""


def _implied(step: PathStep, chained: bool, guard: str) -> bool:
    """A step the requirement already says: a chain's branches (folded into it), or the
    arms before a check on the same value (its own pattern implies them)."""
    if chained and step.kind == ELSE and step.branches:
        return True
    return bool(step.handled) and (chained or (bool(step.subject) and step.subject in guard))
