"""The page of an error type that wraps another whole and prints its message unchanged
(a variant with no text of its own whose one field is the wrapped error). Its only site in
the code is often its own declaration: the conversion that builds it is implicit, so no
function "returns" it there (round 7 candle #1, #17 said the error file "always returns
this error on this path"). The page says what it wraps, names the places in the
repository where the language's conversion builds it (sites from
errdex.extract.constructions), and says so plainly when there are none.

It writes only from the record; the language's writer gives the code and how that
language converts (`CodeWriter.passed_through`)."""

from __future__ import annotations

from errdex.languages import spec_for
from errdex.models import Defensive, ExampleFix, Explanation, Record, Site, SiteKind


def declaration(record: Record) -> Site | None:
    """The site that is the wrapping type's own declaration, if the record has one."""
    at = record.definition
    for site in record.sites:
        template = site.template
        if site.kind is SiteKind.ERROR_ENUM and site.function is None \
                and template.literal_chars == 0 and len(template.placeholders) == 1 \
                and template.placeholders[0].expression \
                and (at is None or (at.path, at.line) == (site.path, site.line)):  # fmt: skip
            return site
    return None


def write_passed_through(record: Record) -> Explanation | None:
    """The page of a record whose error wraps another whole; None for any other."""
    declared = declaration(record)
    if declared is None or declared.exception is None:
        return None
    spec = spec_for(declared.language)
    wrapped = declared.template.placeholders[0].expression
    exc = declared.exception
    line = declared.snippet.code.splitlines()[declared.line - declared.snippet.start_line] \
        if 0 <= declared.line - declared.snippet.start_line \
        < len(declared.snippet.code.splitlines()) else ""  # fmt: skip
    wrap = spec.writer().passed_through(exc, wrapped, spec.module_path(declared.path), line)
    if wrap is None:
        return None
    places = [s for s in record.sites if s is not declared and s.function]
    named = [f"`{s.function}` ({s.path}:{s.line})" for s in places[:4]]
    listed = _joined(named) if len(places) <= 4 else \
        ", ".join(named) + f" and {len(places) - 4} more"  # fmt: skip
    own = f"your own code: {wrap.how}"
    calls = _joined([f"`{c}`" for c in wrap.producers[:3]])
    if places:
        more = "" if wrap.complete else (f" (the places the index recognises; other calls "
                                         f"returning a `{wrapped}` may convert one too)")
        where = (f"the library builds one at {listed}, where that call failed{more}; it "
                 f"also comes from {own}")
    elif wrap.complete:
        where = (f"nothing in the repository converts one into it (no conversion of a call "
                 f"such as {calls} into it): it surfaces from {own}")
    else:
        where = (f"the index found no place in the repository that builds one, but it does "
                 f"not know every call that returns a `{wrapped}`: the library's own code may "
                 f"build one, and so may {own}")
    summary = (f"`{exc}` wraps a `{wrapped}` and shows that error's own message; {where}")
    what = (f"`{exc}` (declared at {declared.path}:{declared.line}) has no text of its own: "
            f"the message is the `{wrapped}` it carries, so the words come from whatever "
            f"failed with that error. Nothing at the declaration checks or raises anything.")
    solutions = [f"`{s.function}` ({s.path}:{s.line}) turns a failed call's `{wrapped}` into "
                 f"`{exc}`: the message says what failed there."
                 for s in places[:3]]  # fmt: skip
    solutions.append(f"If it comes from {own}, handle the `{wrapped}` where it is made, "
                     "before it is converted (its message says what failed).")
    trigger = (f"A `{wrapped}` converted into `{exc}`: in {listed}, or in {own}."
               if places else f"A `{wrapped}` converted into `{exc}` by {own}.")
    situations = tuple(f"{s.function} fails with a {wrapped}" for s in places[:3]) \
        or (f"Your own code converting a `{wrapped}` into `{exc}`",)  # fmt: skip
    return Explanation(
        summary=summary,
        what_it_means=what,
        solutions=tuple(solutions),
        example_fix=ExampleFix(before=wrap.before, after=wrap.after),
        defensive=Defensive(
            strategy="catch and translate",
            validate=(f"{spec.comment} nothing to check in advance: what made the "
                      f"`{wrapped}` decides"),
            type_guard=wrap.type_guard,
            try_catch=wrap.try_catch,
        ),
        prevention=(f"Handle the `{wrapped}` where it is produced when you need to tell it "
                    "apart, instead of letting it be converted.",),
        trigger=trigger,
        common_situations=situations,
    )


def _joined(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
