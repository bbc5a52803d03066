"""What the code before a check does to the condition that leads to it, so the
requirement a page states is the one the function really has, not its last test alone:

- the earlier `return`s a site with no check of its own comes after are its check (the
  `raise` after `if len(data) == n: return ..` fails exactly when `len(data)` is not `n`);
- a check inside the handler of a `try` whose one statement raised (`except
  AttributeError:` of `x = getattr(self, name)`) runs only when that statement failed: the
  statement not failing is a way past as good as the check's own test;
- the language's own idioms between the function's start and the check that change what
  it tests (`del kwargs['command']` before `if kwargs:`).

Each answer is a guard written with the language's own negation and conjunction
(errdex.write.branches does the same for the branches of a chain), so every section of the
page reads one condition. It reads the site's path and snippet; it never names a language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from errdex.analyze import facts
from errdex.analyze.guards import Need
from errdex.analyze.origins import Origin, assigned_before, own_function_line
from errdex.extract.structure import EARLY_RETURN, EXCEPT
from errdex.languages import spec_for
from errdex.models import Language, PathStep, Record, Site, SiteFacts


def returned_guard(
    site: Site, reached: Sequence[PathStep], raised: Sequence[int] = ()
) -> tuple[str, tuple[PathStep, ...]] | None:
    """For a site with no check of its own: the guard under which it is reached past the
    earlier `return`s written right before it (`if len(data) == n: return ..` and then the
    `raise`: the return is the check), and the path without those steps (the guard says
    them now); None when no such return is read. A return with other code between it and
    the site is one way past among others the path may not show, so it stays a step; one
    whose block raises an error of its own (a line of `raised`) is no way past."""
    ways: list[PathStep] = []
    until = site.line
    for step in sorted(reached, key=lambda s: s.line, reverse=True):
        if step.kind != EARLY_RETURN or step.line >= until:
            continue
        if not step.branches or not _right_before(site, step.line, until) or any(
                step.line <= at < until for at in raised):  # fmt: skip
            break
        ways.insert(0, step)
        until = step.line
    if not ways or any(step.kind == EARLY_RETURN and step not in ways for step in reached):
        return None  # an earlier return left out is a way past the guard would not say
    spec = spec_for(site.language)
    guard = spec.conjunction.join(_negated(code, site.language) for step in ways
                                  for _, code in step.branches)  # fmt: skip
    return guard, tuple(step for step in reached if step not in ways)


def _negated(code: str, language: Language) -> str:
    """`code` negated in the language's own syntax, a negation of a plain value undone
    (`not flag` -> `flag`, not `not (not flag)`)."""
    spec = spec_for(language)
    negation = re.match(spec.negation, code)
    rest = code[negation.end() :].strip() if negation else ""
    if rest and re.fullmatch(r"[A-Za-z_][\w.]*", rest):
        return rest
    return spec.negated.format(code)


def _right_before(site: Site, line: int, until: int) -> bool:
    """Whether the statement starting at `line` is the last one before line `until`:
    every line between is its own body (indented deeper), blank, a comment or a closing
    bracket, as the snippet shows it."""
    lines, first = site.snippet.code.splitlines(), site.snippet.start_line
    at, end = line - first, until - first
    if not 0 <= at < end <= len(lines):
        return False
    indent, comment = _indent(lines[at]), spec_for(site.language).comment
    for text in lines[at + 1 : end]:
        stripped = text.strip()
        if stripped and not stripped.startswith(comment) and _indent(text) <= indent \
                and stripped.rstrip(";") not in ("}", ")", "]"):  # fmt: skip
            return False
    return True


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def handled_guard(
    guard: str | None, site_facts: SiteFacts | None, language: Language
) -> str | None:
    """`guard` (a check inside a handler) with the handler's own condition before it: the
    statement it tried failed (`not (hasattr(self, methodName)) and methodName !=
    'runTest'`); None when the innermost handler on the path has no way past it read."""
    if guard is None or site_facts is None:
        return None
    handling = next((step for step in reversed(site_facts.reached) if step.kind == EXCEPT),
                    None)  # fmt: skip
    if handling is None or not handling.branches:
        return None
    spec = spec_for(language)
    return spec.conjunction.join([*(spec.negated.format(code) for _, code in handling.branches),
                                  guard])  # fmt: skip


def restated(site: Site, guard: str) -> str | None:
    """`guard` over what the site's function did before it to the values it tests (the
    keys it took out of `kwargs`), by the language's idioms; None when nothing changes."""
    hooks = spec_for(site.language).before
    if hooks is None:
        return None
    lines = site.snippet.code.splitlines()
    stop = max(0, min(len(lines), site.line - site.snippet.start_line))
    start = own_function_line(site, lines[:stop])  # None: the snippet starts inside it
    return hooks.restate(guard, "\n".join(lines[start or 0 : stop]), start is not None)


def read_guard(site: Site, guard: str | None) -> tuple[tuple[str, ...], tuple[Origin, ...],
                                                       Need | None]:
    """The names `guard` reads, where they come from, and what must hold instead."""
    names = facts.guarded_names(guard, site.language) if guard else ()
    origins = tuple(o for o in facts.find_origins(site, names)
                    if not facts.is_literal(o.expression))  # fmt: skip
    return names, origins, facts.requirement_of(
        facts.through_locals(guard, origins, site.language), site.language)


def before_check(
    site: Site, guard: str | None, nature: str, site_facts: SiteFacts | None,
    siblings: Sequence[Record] = (),
) -> tuple[str | None, str, SiteFacts | None, str | None]:  # fmt: skip
    """(guard, nature, site facts, the check as the code writes it when the guard says it
    otherwise) once the code before the check is read: the earlier `return`s of a bare
    `raise` are its check (and leave the path: the guard says them), and the language's
    idioms restate a guard over what that code did to its values. `siblings` are the
    other records of the site's function."""
    if not guard and nature == "always" and site_facts is not None:
        raised = [s.line for other in siblings for s in other.sites
                  if s.path == site.path and s.function == site.function]  # fmt: skip
        returned = returned_guard(site, site_facts.reached, raised)
        params = set(site_facts.parameters or ()) - {"self"}
        roots = {n.split(".")[0] for n in facts.guarded_names(returned[0], site.language)} \
            if returned is not None else set()  # fmt: skip
        # Only a test of what the caller passes to a function of theirs becomes the check:
        # one of values the function computes (`data = f.read(n)`), of a parameter it
        # assigns again (`object = object.__code__`), or of a private helper's parameters,
        # reads better as the path to the raise.
        if returned is not None and roots and roots <= params and site_facts.public and \
                not any(assigned_before(site, root) for root in roots):  # fmt: skip
            guard, nature = returned[0], "guarded"
            site_facts = replace(site_facts, reached=returned[1])
    said = restated(site, guard) if guard and nature == "guarded" else None
    if said is not None:
        return said, nature, site_facts, guard
    return guard, nature, site_facts, None
