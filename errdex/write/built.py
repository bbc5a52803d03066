"""The build conditions a page's summary starts with: "In builds with the `metal`
feature, ..." for code only some builds compile, "On a Metal device, ..." for a device
backend's own code (the language says which, `LanguageSpec.build_condition`)."""

from __future__ import annotations

from errdex.languages import spec_for
from errdex.write import commandline
from errdex.write.pagefacts import PageFacts


def _shared(f: PageFacts) -> list[str]:
    """The build conditions every site the page knows of is compiled under, outermost
    first; none for a build script (its build command names its features itself)."""
    known = f.known.sites if f.known else ()
    if not known or (f.runs is not None and f.runs.kind == commandline.BUILD):
        return []
    shared = set(known[0].built_when).intersection(*(s.built_when for s in known[1:]))
    return [c for c in known[0].built_when if c in shared]


def built_in(f: PageFacts) -> str:
    """"in builds with the `metal` feature", "on a Metal device": the build conditions every
    site the page knows of is compiled under (only some builds have this error), as the
    language says them for the page's site ("" when there are none)."""
    say = spec_for(f.lang).build_condition
    if say is None:
        return ""
    return " and ".join(dict.fromkeys(say(c, f.site.function, f.site.path) for c in _shared(f)))


def build_fixes(f: PageFacts) -> list[str]:
    """How to build so that the code handling this case is compiled instead: a feature
    whose absence compiles every site (a stub of a backend left out)."""
    fix = spec_for(f.lang).build_fix
    return [said for c in _shared(f) if fix and (said := fix(c, f.site.path))]


def conditioned(f: PageFacts, summary: str) -> str:
    """The summary under its build condition, said first: "On a Metal device, `x` ..."."""
    built = built_in(f)
    if not built:
        return summary
    if summary[:1].isupper() and summary[1:2].islower():
        summary = summary[0].lower() + summary[1:]
    return f"{built[0].upper()}{built[1:]}, {summary}"
