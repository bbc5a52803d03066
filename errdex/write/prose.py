"""Every section of an error's page, written deterministically from facts.

Each section is a small function of one `PageFacts` (`errdex.write.pagefacts`); the code
sections come from `errdex.write.snippets`. Wording that varies by kind or by message lives in
tables. Code in backticks names only what the record shows (template, placeholders,
guard, function, exception, snippet, the facts read from the repository); what isn't
known is written `...`. This module never reads files or calls a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.analyze import facts
from errdex.analyze.facts import Origin
from errdex.languages import spec_for
from errdex.models import Defensive, Explanation, History, Record, RecordFacts, SiteKind
from errdex.write.pagefacts import (
    SITUATIONS,
    PageFacts,
    action,
    fn_name,
    gather,
    loc,
    sibling_needs,
    single_leaf,
    violation_of,
)
from errdex.write.snippets import example_fix, strategy, try_catch, type_guard, validate

# --- the sections --------------------------------------------------------------


def _summary(f: PageFacts) -> str:
    others = len({(s.path, s.function) for s in f.record.sites}) - 1
    tail = f" (and {others} other place{'s' if others > 1 else ''})" if others > 0 else ""
    if f.req:
        return f"{f.req} when calling {f.where}{tail}"
    if f.guard:
        return f"{f.where} fails when `{f.guard}` holds{tail}"
    return {
        "unimplemented": f"{f.where} does not implement this case{tail}",
        "unreachable": f"{f.where} reached a branch its code marks as unreachable{tail}",
        "expect": f"`{f.receiver}` was None or an Err inside {f.where}{tail}"
        if f.receiver
        else f"A value {f.where} expects to be present was missing{tail}",
        "context": f"An operation inside {f.where} failed and was wrapped with this message{tail}",
        "handler": f"{f.where} raises this after catching "
        + (f"`{f.receiver}`" if f.receiver else "an exception")
        + tail,
    }.get(f.nature, f"{f.where} always {_verb(f)} on this path when it is reached{tail}")


def _verb(f: PageFacts) -> str:
    return {SiteKind.PANIC: "panics", SiteKind.WARN: "warns", SiteKind.BAIL: "returns an Err",
            SiteKind.ASSERT: "fails"}.get(f.site.kind, "raises")  # fmt: skip


def _origin_sentence(f: PageFacts, origin: Origin) -> str:
    name = f"`{origin.name}`"
    if origin.how == "parameter":
        typed = f" (type `{origin.expression}`)" if origin.expression else ""
        return (
            f"{name} is a parameter of `{fn_name(f)}`{typed}, so it comes straight from the "
            "caller."
        )
    verb = "is copied from" if origin.how == "field" else "is computed as"
    source = f.source_of(origin.name)
    typed = ""
    if source and "." in source and " " not in source:
        typed = f", i.e. the `{source.split('.')[-1]}` field of `{source.split('.')[0]}`"
    elif source:
        typed = f", i.e. the {source}"
    return (
        f"{name} {verb} `{origin.expression}`{typed} "
        f"(`{origin.text.rstrip(',;')}`, line {origin.line})."
    )


def _known_sentences(f: PageFacts) -> list[str]:
    """What only the repository tells: value kinds, entry points, tests, history."""
    out: list[str] = []
    sf, known = f.site_facts, f.known
    if sf is not None:
        values = [o for o in sf.origins if o.how == "value" and o.source]
        if values:
            out.append("The check compares " + ", ".join(
                f"the {o.source} (`{o.expression}`)" for o in values[:3]) + ".")  # fmt: skip
        if sf.entry_points:
            names = [f"`{e.function}`" for e in sf.entry_points[:4]]
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            out.append(f"You get here from {listed}.")
    if known is not None and known.tests:
        test = known.tests[0]
        more = f" (and {len(known.tests) - 1} more)" if len(known.tests) > 1 else ""
        out.append(f"The repository's tests trigger it at {test.path}:{test.line}{more}.")
    if known is not None and known.history is not None:
        out.append(history_sentence(known.history))
    return [s for s in out if s]


def history_sentence(history: History) -> str:
    """The message's history in one sentence; empty when nothing is known."""
    parts = []
    if history.introduced_commit:
        when = f" on {history.introduced_date[:10]}" if history.introduced_date else ""
        tag = f", first released in {history.introduced_tag}" if history.introduced_tag else ""
        parts.append(f"introduced in commit {history.introduced_commit[:10]}{when}{tag}")
    if history.changed_commit and history.changed_commit != history.introduced_commit:
        when = f" on {history.changed_date[:10]}" if history.changed_date else ""
        parts.append(f"last changed in {history.changed_commit[:10]}{when}")
    if history.removed_commit:
        when = f" on {history.removed_date[:10]}" if history.removed_date else ""
        parts.append(f"removed in {history.removed_commit[:10]}{when}")
    return ("This message was " + "; ".join(parts) + ".") if parts else ""


def _what_it_means(f: PageFacts) -> str:
    out: list[str] = []
    if f.nature == "guarded":
        out.append(f"{f.where} checks `{f.guard}` and {action(f)}.")
    elif f.nature == "unimplemented":
        out.append(f"{f.where} reaches a case that has not been implemented and {action(f)}.")
    elif f.nature == "unreachable":
        out.append(
            f"{f.where} reaches a branch its authors considered impossible and "
            f"{action(f)}; getting here points to an input or state it did not expect."
        )
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        out.append(
            f"{f.where} catches {caught} from the code in its try block and {action(f)}; "
            "the caught exception is the real cause (it is chained as __context__)."
        )
    elif f.nature in ("expect", "context") and f.receiver:
        what = "is None or an Err" if f.nature == "expect" else "fails"
        out.append(f"{f.where} calls `{f.receiver}`; when that {what}, it {action(f)}.")
    else:
        out.append(
            f"{f.where} {action(f)} whenever this line is reached; no condition in "
            "front of it decides, so the path that leads here is the cause."
        )
    if f.req:
        violation = violation_of(f)
        out.append(f"To pass, {f.req}" + (f"; it fails when {violation}." if violation else "."))
    out += [_origin_sentence(f, o) for o in f.origins]
    out += _known_sentences(f)
    out += _variant_sentences(f)
    holes = [h for h in f.record.template.placeholders if h.expression]
    if holes:
        listed = ", ".join(
            f"`{h.expression}`"
            if h.expression == h.name
            else f"`{{{h.name}}}` from `{h.expression}`"
            for h in holes
        )
        out.append(f"The message fills in {listed}, so the text you got shows the actual values.")
    if f.before:
        out.append(
            f"Before this, `{fn_name(f)}` has already checked: "
            + "; ".join(sibling_needs(f.before))
            + "."
        )
    sites = f.record.sites
    if len(sites) > 1:
        listed = "; ".join(
            f"`{s.function or s.path}` ({loc(s)}" + (f", when `{s.guard}`)" if s.guard else ")")
            for s in sites[:5]
        )
        more = f"; and {len(sites) - 5} more" if len(sites) > 5 else ""
        out.append(f"The same message is raised at {len(sites)} places: {listed}{more}.")
    return " ".join(out)


def _variant_sentences(f: PageFacts) -> list[str]:
    site = f.site
    if not site.variant:
        return []
    fields = [x for x in site.variant_fields if not x.isdigit()]
    carried = (" It carries " + ", ".join(f"`{x}`" for x in fields) + ".") if fields else ""
    spec = spec_for(f.lang)
    owner = site.variant
    if spec.can("variants_named_by_path") and site.exception:
        owner = site.exception
    return [f"`{owner}` is {spec.variant_noun}.{carried}"]


_MESSAGE_TIPS = (
    (r"not supported|unsupported|only .* supported|does not support",
     "Other values are not supported by {fn}; using one would mean extending the code at {loc}."),
    (r"not (yet )?implemented|unimplemented|todo", "If you need this case, it has to be "
     "implemented in {fn} ({loc}); check whether a newer release of {repo} has it."),
)  # fmt: skip


def _solutions(f: PageFacts) -> tuple[str, ...]:
    out: list[str] = []
    fmt = {"fn": f.where, "loc": loc(f.site), "repo": f.record.repo}
    if f.req:
        out.append(f"Make sure that {f.holds} before calling {f.where}.")
        leaf = single_leaf(f)
        for origin in f.origins:
            if origin.how == "parameter":
                out.append(f"Check the `{origin.name}` argument you pass to `{fn_name(f)}`.")
            elif leaf is not None and facts.clean(leaf.subject, f.lang) == origin.name:
                moved = facts.Need("leaf", facts.Leaf(origin.expression, leaf.rel, leaf.obj))
                out.append(
                    f"Fix the value at its source: `{origin.name}` is copied from "
                    f"`{origin.expression}`, so make sure that "
                    f"{facts.describe(moved, f.lang, mood='is')}."
                )
            else:
                out.append(
                    f"Fix it where it is set: `{origin.name}` comes from `{origin.expression}`."
                )
        out += _rel_tips(f)
    elif f.guard:
        out.append(f"Find which of your inputs makes `{f.guard}` true in {f.where} and change it.")
    elif f.nature == "unreachable":
        out.append(
            f"Treat it as a bug: reproduce it with the smallest input and report it to "
            f"{f.record.repo} with the full message and {loc(f.site)}."
        )
        out.append(
            f"Check the values you pass to {f.where}; an unexpected one upstream leads here."
        )
    elif f.nature in ("expect", "context", "handler"):
        what = f"`{f.receiver}`" if f.receiver else "the operation it wraps"
        what = f"the code that raises {what}" if f.nature == "handler" else what
        out.append(f"Make {what} succeed: give {f.where} the input, file or state it relies on.")
        if f.nature in ("context", "handler"):
            out.append(
                "Print the whole error chain (the cause follows this message) to see "
                "what actually failed."
            )
    elif f.nature != "unimplemented":
        out.append(
            f"Avoid the path that reaches {loc(f.site)} in {f.where}: read the code "
            "above that line to see which branch leads there."
        )
    else:
        out.append(f"Avoid this case: {f.where} does not handle it at {loc(f.site)}.")
    text = f"{f.record.template.message} {f.guard or ''}".lower()
    out += [tip.format(**fmt) for pattern, tip in _MESSAGE_TIPS if re.search(pattern, text)]
    holes = [f"`{h.expression}`" for h in f.record.template.placeholders if h.expression]
    if holes:
        out.append(
            f"Read the values the message prints ({', '.join(holes)}) to see what the "
            "code actually received."
        )
    if f.after:
        out.append(
            f"Once this passes, `{fn_name(f)}` goes on to check: "
            + "; ".join(sibling_needs(f.after))
            + "."
        )
    return tuple(dict.fromkeys(out))


def _rel_tips(f: PageFacts) -> list[str]:
    leaf = single_leaf(f)
    if leaf is None:
        return []
    s, o = facts.show(leaf.subject, f.lang), facts.show(leaf.obj, f.lang)
    tips = {
        "eq": None if facts.is_literal(leaf.obj) else
        f"Print {s} and {o} just before the call to see which side is off, then fix how it "
        "is produced.",
        "+isinstance": f"Convert {s} before passing it, or fix the code that produces it.",
        "is_not": f"Pass a real value for {s}, or make sure the step that sets it ran first.",
        "in": f"Use a key that {o} contains; list its keys to see what is available.",
        "ge": f"Validate {s} against the bound where it is computed.",
        "+exists": f"Check that {s} exists and is spelled right; a relative path resolves from "
        "the working directory.",
    }  # fmt: skip
    tip = tips.get(leaf.rel)
    return [tip] if tip else []



def _prevention(f: PageFacts) -> tuple[str, ...]:
    out: list[str] = []
    if f.req:
        out.append(
            f"Check that {f.holds} where the inputs of {f.where} are built, not just "
            "before the call."
        )
    for origin in f.origins:
        if origin.how != "parameter":
            out.append(
                f"Validate `{origin.expression}` where it is loaded or constructed, so a "
                "bad value fails early with a clear message."
            )
    leaf = single_leaf(f)
    if leaf is not None and leaf.rel in ("+isinstance", "is_not") and spec_for(f.lang).can(
        "optional_type_checking"
    ):
        out.append(
            f"Annotate {facts.show(leaf.subject, f.lang)} in your own code and run a "
            "type checker (mypy or pyright) over the callers."
        )
    if f.before or f.after:
        needs = sibling_needs([*f.before, *f.after], limit=4)
        out.append(
            f"Check all of `{fn_name(f)}`'s requirements together: " + "; ".join(needs) + "."
        )
    if f.site.kind is SiteKind.WARN:
        out.append("Turn warnings into errors in your test suite so this one is noticed.")
    if f.nature == "unimplemented":
        when = f.record.version or (f.record.commit or "")[:10] or "this version"
        out.append(f"Track {f.record.repo} releases: the case is unimplemented in {when}.")
    out.append(
        f"Add a test that calls {f.where} with the inputs you use in production, so a "
        "change that triggers this shows up in CI."
    )
    return tuple(out)


def _trigger(f: PageFacts) -> str:
    if f.guard:
        violation = violation_of(f)
        text = f"Calling {f.where} when `{f.guard}` holds" + (f", i.e. {violation}" if violation
                                                              else "") + "."  # fmt: skip
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        text = f"{caught} raised inside the try block of {f.where} ({loc(f.site)})."
    elif f.nature in ("expect", "context") and f.receiver:
        failing = "returns None or an Err" if f.nature == "expect" else "fails"
        text = f"`{f.receiver}` {failing} inside {f.where} ({loc(f.site)})."
    elif f.nature == "unimplemented":
        text = (
            f"Calling {f.where} with inputs that reach the unimplemented branch at {loc(f.site)}."
        )
    else:
        text = f"Execution reaching {loc(f.site)} inside {f.where}."
    others = [s for s in f.record.sites if s is not f.site]
    if others:
        listed = ", ".join(f"`{s.function or s.path}` ({loc(s)})" for s in others[:4])
        text += f" It can also come from {listed}" + (" and more." if len(others) > 4 else ".")
    if f.known is not None and f.known.tests:
        test = f.known.tests[0]
        text += f" A working example is the test at {test.path}:{test.line}: `{test.text}`."
    return text


def _situations(f: PageFacts) -> tuple[str, ...]:
    out: list[str] = []
    violation = violation_of(f)
    for origin in f.origins:
        if origin.how == "parameter":
            what = f" when {violation}" if violation else " that fails the check"
            out.append(f"Passing `{origin.name}` to `{fn_name(f)}`{what}")
        elif (source := f.source_of(origin.name)) and "." in source and " " not in source:
            owner, field = source.split(".", 1)
            out.append(f"A `{owner}` built with a `{field}` value this check rejects")
        else:
            out.append(
                f"A configuration or constructor input that sets `{origin.expression}` "
                "to a value this check rejects"
            )
    text = " ".join([f.record.template.message, f.guard or "", f.record.exception or ""]).lower()
    out += [phrase for pattern, phrase in SITUATIONS if re.search(pattern, text)]
    if not out:
        out.append(f"Calling {f.where} with inputs for which `{f.guard}` holds" if f.guard
                   else f"Any call that reaches {loc(f.site)}")  # fmt: skip
    return tuple(out[:4])


def write_explanation(
    record: Record, siblings: Sequence[Record] = (), known: RecordFacts | None = None
) -> Explanation:
    """The page's prose for `record`, from its own facts; `siblings` are the other records
    raised in the same function(s), in source order; `known` the facts read from the
    repository (typed origins, entry points, tests, history), when there are any."""
    f = gather(record, siblings, known)
    return Explanation(
        summary=_summary(f),
        what_it_means=_what_it_means(f),
        solutions=_solutions(f),
        example_fix=example_fix(f),
        defensive=Defensive(
            strategy=strategy(f),
            validate=validate(f),
            type_guard=type_guard(f),
            try_catch=try_catch(f),
        ),
        prevention=_prevention(f),
        trigger=_trigger(f),
        common_situations=_situations(f),
    )
