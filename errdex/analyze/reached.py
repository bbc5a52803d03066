"""When a site is reached: the conditions of its whole path (errdex.extract.structure's
tree, as the extractor emitted it) said in words, for the page.

The site's own guard is on the page already, and the earlier checks that fail with an
error are its sibling records ("already checked"); what this adds is everything else
that must hold to get here: the enclosing branches (`if paged { .. }`), the arm of a
`match` after the arms before it failed (`_ =>` after `DType::F32 | DType::F16`: the
dtype is none of those), the earlier `return`s the function did not take
(`if len(data) == 8: return ..`). It reads only the structure; it never names a language.
"""

from __future__ import annotations

import re
from dataclasses import replace

from errdex.analyze.guards import affirm, deny, describe, parse_guard
from errdex.extract.structure import (
    ALL,
    ARM,
    EARLY_EXIT,
    EARLY_RETURN,
    ELSE,
    EXCEPT,
    MATCHES,
    NOT,
    RAISED,
    TEST,
    TRY,
    Condition,
    FileStructure,
    Step,
)
from errdex.languages import spec_for
from errdex.models import Language, PathStep, Site

_EXITS = frozenset({TRY, EARLY_EXIT, EARLY_RETURN})  # steps that are not enclosing branches
_IS_NOT = re.compile(r"(`[^`]+`) is (?:not|none of) (.+)")
# Steps the page does not restate: a `x?` that succeeded, and the earlier checks that
# fail with an error (each is a record of its own, listed as already checked).
_QUIET = frozenset({TRY, EARLY_EXIT})
_ALWAYS = frozenset({"True", "true", "1"})  # a loop's condition that always holds
MAX_PATH_STEPS = 6  # the innermost ones: a page lists a few, not a function's every branch


def site_path(site: Site, structure: FileStructure | None) -> tuple[PathStep, ...]:
    """What holds whenever `site` is reached besides its own guard, outermost first."""
    found = structure.path_at(site.line, site.end_line) if structure is not None else None
    if found is None:
        return ()
    steps = list(found.steps)
    if site.guard:  # the innermost branch (or the rule) is the site's guard, stated already
        own = next((i for i in range(len(steps) - 1, -1, -1)
                    if steps[i].kind not in _EXITS), None)  # fmt: skip
        if own is not None and steps[own].kind != EXCEPT:  # a handler is said as one
            earlier = _earlier_arms(steps[own])
            if earlier is None:
                del steps[own]
            else:  # the guard says the arm's own pattern; the arms before it are still news
                steps[own] = earlier
    said = [_said(step, site.language) for step in steps if step.kind not in _QUIET]
    return tuple(_merged([step for step in said if step is not None]))[-MAX_PATH_STEPS:]


def _earlier_arms(step: Step) -> Step | None:
    """Of an arm step (`Some(other) =>` after `Some("f16") =>`, ...), the arms before it
    that failed to match, without the arm's own pattern (the site's guard says that)."""
    condition = step.condition
    if step.kind != ARM or condition.kind != ALL:
        return None
    before = tuple(p for p in condition.parts if p.kind == NOT)
    if not before or len(before) == len(condition.parts):
        return None
    return replace(step, condition=before[0] if len(before) == 1 else Condition(ALL, parts=before))


def _merged(steps: list[PathStep]) -> list[PathStep]:
    """Neighbouring "`x` is not 1", "`x` is not 2" (an `elif` chain) as one step:
    "`x` is none of 1 and 2"."""
    out: list[PathStep] = []
    values: list[str] = []
    for step in steps:
        m = _IS_NOT.fullmatch(step.text)
        last = _IS_NOT.fullmatch(out[-1].text) if out and values else None
        if m and last and m.group(1) == last.group(1):
            values.append(m.group(2))
            listed = ", ".join(values[:-1]) + " and " + values[-1]
            out[-1] = replace(out[-1], text=f"{m.group(1)} is none of {listed}",
                              branches=out[-1].branches + step.branches)
            continue
        values = [m.group(2)] if m else []
        out.append(step)
    return out


def _said(step: Step, language: Language) -> PathStep | None:
    condition = step.condition
    if step.kind == ARM or condition.kind == ALL:
        handled = _handled(condition)
        if handled is not None:
            subject, patterns = handled
            listed = ", ".join(f"`{p}`" for p in patterns[:6])
            more = f" and {len(patterns) - 6} more" if len(patterns) > 6 else ""
            return PathStep(step.kind, step.line, f"`{subject}` is none of {listed}{more}",
                            subject, tuple(patterns))  # fmt: skip
    if step.kind == EXCEPT and condition.kind in (TEST, RAISED):  # the caught classes
        caught = condition.text.strip()
        hooks = spec_for(language).before
        # What the one statement it tried does when it does not raise (`getattr(self,
        # name)`: the object has that attribute) is a way past the handler.
        way = hooks.way_past(condition.subject, caught) if hooks and condition.kind == RAISED \
            else None  # fmt: skip
        tried = condition.subject if condition.kind == RAISED else ""
        said = f"`{tried}` raised `{caught}`" if tried else f"the code it tried raised `{caught}`"
        return PathStep(step.kind, step.line, said, caught,
                        branches=((step.line, way),) if way else (), tried=tried)
    if condition.kind == TEST and condition.text.strip() in _ALWAYS:
        return None  # `while True:` holds on every path: nothing to say
    if step.kind == EARLY_RETURN and condition.kind == NOT and condition.parts[0].kind == ALL:
        return _return_not_taken(step, condition.parts[0].parts, language)
    text = _in_words(condition, language)
    # An `else`'s branch before it, or an earlier `return`'s test, as code: taking that
    # branch is a way to pass.
    branch = ((step.line, condition.parts[0].text),) if step.kind in (ELSE, EARLY_RETURN) and \
        condition.kind == NOT and condition.parts and condition.parts[0].kind == TEST else ()
    when = _in_words(condition.parts[0], language) if step.kind == EARLY_RETURN and \
        condition.kind == NOT and condition.parts else ""  # fmt: skip
    return PathStep(step.kind, step.line, text, branches=branch,
                    returns_when=when if ":" not in when else "") if text else None


def _return_not_taken(step: Step, held: tuple[Condition, ...],
                      language: Language) -> PathStep | None:  # fmt: skip
    """A `return` nested in earlier branches, not taken: "it did not return at line 832
    (it does when `state` is an instance of `tuple` and `len(state)` is 6)"."""
    words = [_in_words(part, language) for part in held]
    if not all(words) or any(":" in w for w in words):  # a part that is no plain test
        return None
    when = " and ".join(words)
    return PathStep(step.kind, step.line, f"it did not return at line {step.line} (it does "
                    f"when {when})", returns_when=when)


def _handled(condition: Condition) -> tuple[str, list[str]] | None:
    """(subject, the patterns it failed to match) for an arm after other arms of the
    same value with no pattern of its own (a catch-all: `_`, `other`)."""
    parts = condition.parts if condition.kind == ALL else (condition,)
    subjects: set[str] = set()
    patterns: list[str] = []
    for part in parts:
        if part.kind != NOT or not part.parts or part.parts[0].kind != MATCHES:
            return None
        subjects.add(part.parts[0].subject)
        patterns.extend(p.strip() for p in part.parts[0].text.split("|") if p.strip())
    return (subjects.pop(), patterns) if len(subjects) == 1 and patterns else None


def _in_words(condition: Condition, language: Language) -> str:
    """`condition` (true here) in words, mood "is": "`len(data)` is not 8"."""
    if condition.kind == TEST:
        return _test(condition.text, language, holds=True)
    if condition.kind == NOT and condition.parts and condition.parts[0].kind == TEST:
        return _test(condition.parts[0].text, language, holds=False)
    if condition.kind == MATCHES:
        return f"`{condition.subject}` matches `{condition.text}`"
    if condition.kind == RAISED:
        caught = " or ".join(f"`{c.strip()}`" for c in condition.text.strip("()").split(","))
        return f"`{condition.subject}` raised {caught}"
    if condition.kind == NOT and condition.parts and condition.parts[0].kind == MATCHES:
        inner = condition.parts[0]
        return f"`{inner.subject}` does not match `{inner.text}`"
    parts = [_in_words(p, language) for p in condition.parts]
    if condition.kind == ALL and all(parts):
        return "; ".join(parts)
    return ""


def _test(text: str, language: Language, holds: bool) -> str:
    parsed = parse_guard(text, language)
    if parsed is None:
        return f"`{text}` is {'true' if holds else 'false'}"
    return describe(affirm(parsed) if holds else deny(parsed), language, mood="is")

