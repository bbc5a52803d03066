"""A page's prevention section: what keeps the error from coming back, in the user's
code and tests (the requirement checked where the inputs are built, a type checker, CI)."""

from __future__ import annotations

from errdex.analyze import facts
from errdex.languages import spec_for
from errdex.models import SiteKind
from errdex.write import commandline
from errdex.write.loops import names_an_item
from errdex.write.pagefacts import PageFacts, fn_name, single_leaf
from errdex.write.siblings import sibling_needs
from errdex.write.unsupported import unsupported_kind


def prevention(f: PageFacts) -> tuple[str, ...]:
    out: list[str] = []
    if f.invariant and f.never_seen:
        out.append("Nothing to prevent: the library catches this error itself.")
    elif f.invariant:
        out.append(f"Keep {f.record.repo} up to date: a bug behind an invariant is fixed "
                   "upstream, not in your code.")
    elif f.req and f.user_terms and f.runs is None:
        out.append(f"Check that {f.holds} where the inputs of {f.entry} are built, not just "
                   "before the call.")
        leaf = single_leaf(f)
        if leaf is not None and leaf.rel in ("+isinstance", "is_not") and spec_for(
            f.lang
        ).can("optional_type_checking") and not names_an_item(f.origins, leaf.subject):
            out.append(
                f"Annotate {facts.show(leaf.subject, f.lang)} in your own code and run a "
                "type checker (mypy or pyright) over the callers."
            )
        if f.before or f.after:
            needs = sibling_needs(f, [*f.before, *f.after], limit=4)
            out.append(
                f"Check all of `{fn_name(f)}`'s requirements together: " + "; ".join(needs) + "."
            )
    if f.site.kind is SiteKind.WARN and f.site.exception:
        out.append("Turn warnings into errors in your test suite so this one is noticed.")
    elif f.site.kind in (SiteKind.WARN, SiteKind.LOG):  # a log record: nothing is raised
        out.append("Capture the library's log in your tests (its logger's records) so this "
                   "one is noticed: it is logged, not raised.")
    if unsupported_kind(f) == "for now" and not f.invariant:
        when = f.record.version or (f.record.commit or "")[:10] or "this version"
        out.append(f"Track {f.record.repo} releases: the case is not handled in {when}.")
    if f.runs is not None:
        out.append(f"Build with {f.entry} in CI, on the kind of machine you build on, so a "
                   "change that triggers this shows up there." if f.runs.kind == commandline.BUILD
                   else f"Run {f.entry} in CI with the flags and files you use, so a change "
                   "that triggers this shows up there.")
        return tuple(out)
    out.append(f"Add a test that calls {f.entry} with the inputs you use in production, so a "
               "change that triggers this shows up in CI.")
    return tuple(out)
