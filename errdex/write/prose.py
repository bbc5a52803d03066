"""Every section of an error's page, written deterministically from facts.

Each section is a small function of one `PageFacts` (`errdex.write.pagefacts`); code sections
come from `errdex.write.snippets`, wording that varies by kind or message from tables. Code in
backticks names only what the record shows; what isn't known is written `...`. This module
never reads files or calls a model.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.analyze import facts
from errdex.analyze.facts import Origin
from errdex.extract.structure import EARLY_RETURN
from errdex.languages import spec_for
from errdex.models import (
    Defensive,
    Explanation,
    History,
    Record,
    RecordFacts,
    Site,
    StateFact,
)
from errdex.write import commandline, deprecation, grouped, inputs, invariants, passedon, places
from errdex.write.branches import path_in_short
from errdex.write.built import conditioned
from errdex.write.conditions import checked_when, debug_note
from errdex.write.derived import derived, takes_arguments
from errdex.write.derived import summary as derived_summary
from errdex.write.derived import trigger as derived_trigger
from errdex.write.fixed import fixed_sentence
from errdex.write.impossible import RuledOut
from errdex.write.loops import class_like
from errdex.write.pagefacts import (
    MAX_SETTERS,
    PageFacts,
    action,
    fn_name,
    gather,
    joined,
    loc,
    raised_word,
    shows_values,
    verb,
    verified_tests,
    violation_of,
)
from errdex.write.passed import write_passed_through
from errdex.write.prevention import prevention
from errdex.write.setfrom import set_from_sentences
from errdex.write.siblings import sibling_needs
from errdex.write.snippets import example_fix, strategy, try_catch, type_guard, validate
from errdex.write.solutions import object_decides, solutions, takes_no_argument
from errdex.write.unsupported import unsupported


def _tail(f: PageFacts) -> str:
    sites = f.record.sites
    if len(sites) < 2:
        return ""
    functions = len({(s.path, s.function) for s in sites})
    where = f" in {functions} functions" if functions > 1 else ""
    does = {"logged": "log it", "emitted": "warn with it"}.get(raised_word(f), "raise it")
    return f" (one of {len(sites)} places{where} that {does})"


def _caught_where(f: PageFacts) -> str:
    """Where the library catches the error it raises, as a clause."""
    if f.caught_above:
        site, handlers = f.caught_above[0]
        name = f"`{site.function}`" if site.function else loc(site)
        return f"every call of {name} {_handled(f)} ({', '.join(handlers[:3])})"
    _, at = f.swallowed[0]
    return f"it is raised inside a try of {f.where} whose handler (line {at}) catches it"


def _handled(f: PageFacts, carries_on: str = "carries on") -> str:
    """How the library's calls stop an error: a try around them, or (where errors are
    returned values) the handling of their result."""
    if spec_for(f.lang).can("errors_propagate_by_return"):
        return "handles its error (a `match` arm or a default in its place) and carries on"
    return f"sits inside a try whose handler catches it and {carries_on}"


def _summary(f: PageFacts) -> str:
    tail = _tail(f)
    sites = f.record.sites
    if places.each_its_own(f):
        # One site's requirement is false at another: say only what they share.
        functions = len({(s.path, s.function) for s in sites})
        return (f"This message is {raised_word(f)} at {len(sites)} places in {functions} "
                f"function{'s' if functions > 1 else ''}, each under its own condition; "
                f"the first is reached from {f.entry} (see what it means for every place)")
    if f.invariant and len(f.swallowed) == len(sites):
        _, at = f.swallowed[0]
        return (f"This error never leaves {f.where}: it is raised inside a try whose handler "
                f"(line {at}) catches it and carries on, so a call does not fail with it{tail}")
    if f.invariant and f.never_seen:
        return (f"This error never reaches your code: {_caught_where(f)}, so a call does not "
                f"fail with it; it is the library's internal signal{tail}")
    if f.invariant and f.ruled_out:
        return (f"This check cannot fail at this commit (an earlier check in {f.where} already "
                f"rules out every failing value); reaching it points to a bug in "
                f"{f.record.repo}{tail}")
    if f.invariant and f.debug_only and not f.public:
        return (f"{f.entry} hit a debug-only assertion in the library's own code: it checks "
                f"values the library computes itself, so reaching it points to a bug in "
                f"{f.record.repo}{tail}")
    if f.invariant:
        return (f"{f.entry} hit a check its code treats as an internal invariant: no argument "
                f"of yours is meant to reach it; it points to a bug in {f.record.repo}{tail}")
    if f.runs is not None and (said := _program_summary(f, tail)):
        return said
    if f.debug_only and f.req and f.user_terms:
        return f"{f.req} when calling {f.entry} (checked in debug builds only){tail}"
    if f.req and f.user_terms and f.cli is not None:
        return f"{f.req} when running the program{commandline.defaults(f.program, f.req)}{tail}"
    if f.req and f.user_terms:
        return f"{f.req} when calling {f.entry}{checked_when(f)}{tail}"
    if said := inputs.summary(f, tail):  # on a file or a model the call reads
        return said
    if f.nature == "unimplemented" or (f.guard is None and unsupported(f)):
        return f"{f.entry} does not implement this case{tail}"
    if f.guard and unsupported(f) and f.req:
        return f"{f.entry} does not support this case: {f.req}{tail}"
    if f.guard and unsupported(f):
        return f"{f.entry} does not support the case your inputs select{tail}"
    if f.guard and f.nature != "expect" and (said := derived_summary(f, derived(f), tail)):
        return said  # `n`, computed from `data`, must be at least 1
    if f.guard and f.nature != "expect" and f.req and object_decides(f) and _fields_only(f):
        return (f"{f.req} on the object you call {f.entry} on{debug_note(f)}{checked_when(f)}: "
                f"its state decides, not an argument of this call{tail}")
    if f.guard and f.nature != "expect":
        shown = shows_values(f, "checked")
        return f"Calling {f.entry} fails a check inside it{debug_note(f)}{shown}{tail}"
    if f.nature == "always" and f.reached:
        when = path_in_short(joined(f.reached), f.site_facts.reached if f.site_facts else ())
        return f"{f.entry} {verb(f, this=True)} only when {when}{tail}"
    if deprecation.applies(f):
        return deprecation.summary(f, tail)
    failed = passedon.failure(f)
    tried = f" from `{failed.shown}`" if failed else ""
    failing = passedon.summary(f, failed, tail) if failed else ""
    return {
        "unreachable": f"{f.entry} reached a branch its code marks as unreachable{tail}",
        "expect": failing or f"A value {f.entry} expects to be present was missing{tail}",
        "context": failing or f"An operation inside {f.entry} failed and was wrapped with this "
        f"message{tail}",
        "handler": f"{f.entry} {verb(f, this=True)} after catching "
        + (f"`{f.receiver}`" if f.receiver else "an exception") + tried
        + (f" in {f.where}" if f.internal and f.users else "") + tail,
    }.get(f.nature, f"{f.entry} always {verb(f)} on this path when it is reached{tail}")


def _fields_only(f: PageFacts) -> bool:
    """Every value the check reads is a field of the object (`self.closed`), besides
    constants and classes (`_State.CREATED`)."""
    roots = {n.split(".")[0] for n in f.names} - spec_for(f.lang).builtin_names
    values = {r for r in roots if not class_like(r)}
    return bool(values) and all(re.search(rf"\bself\.{re.escape(r)}\b", f.guard or "")
                                for r in values)


def _program_summary(f: PageFacts, tail: str) -> str | None:
    """The summary of a site in a program of its own: what the user ran (or built), the
    flags on its way, and the check, said of the program, not of its functions."""
    program = f.runs
    if program is None or f.invariant:
        return None
    run, fn = commandline.runs(program), f"`{fn_name(f)}`"
    steps = commandline.flag_steps(f.reached)
    if f.req and f.user_terms and f.cli is not None:
        only = f" (checked only when {joined(steps)})" if steps else ""
        return (f"{f.req} when running {f.entry}{only}{commandline.defaults(program, f.req)}"
                f"{tail}")
    when = f" with {joined(steps)}".replace(" with `", " when `") if steps else ""
    if program.kind == commandline.BUILD:
        what = (f"`{f.receiver}` was None or an Err in its `main`"
                if f.nature == "expect" and f.receiver else f"its `main` {verb(f, this=True)}")
        return f"{run} fails: cargo runs the build script {f.site.path}, and {what}{tail}"
    if f.guard and f.nature == "guarded":
        need = f": {f.req}" if f.req else ""
        return f"{run}{when} fails a check in its {fn}{need}{shows_values(f, 'checked')}{tail}"
    if f.nature in ("expect", "context") and f.receiver:
        failing = "was None or an Err" if f.nature == "expect" else "failed"
        return f"{run}{when} failed: `{f.receiver}`, in its {fn}, {failing}{tail}"
    return None


def _origin_sentence(f: PageFacts, origin: Origin) -> str:
    name = f"`{origin.name}`"
    if origin.how == "parameter":
        typed = f" (type `{origin.expression}`)" if origin.expression else ""
        if f.public:
            return f"{name} is a parameter of `{fn_name(f)}`{typed}: the value you pass."
        if not f.users:  # no call of it is known: who passes what is not said
            return f"{name} is a parameter of `{fn_name(f)}`{typed}."
        return (f"{name} is a parameter of `{fn_name(f)}`{typed}, which the library calls "
                "with values it computes from yours.")
    if origin.how == "item":  # the loop the check sits in binds it
        return f"{name} is each element of `{origin.expression}` in turn (`{origin.text}`, " \
            f"line {origin.line})."
    if origin.how == "filled":  # what it was set to is not what the check reads
        return (f"{name} starts as `{origin.expression}` and is then changed by "
                f"`{origin.text.rstrip(',;')}` (line {origin.line}).")
    verb = "is copied from" if origin.how == "field" else "is computed as"
    source = f.source_of(origin.name)
    typed = ""
    owner, _, member = (source or "").rpartition(".")
    if source and owner and member and " " not in source:
        typed = f", i.e. the `{member}` field of `{owner}`"
    elif source:
        typed = f", i.e. the {source}"
    return (
        f"{name} {verb} `{origin.expression}`{typed} "
        f"(`{origin.text.rstrip(',;')}`, line {origin.line})."
    )


def _quoted(text: str) -> str:
    """The code's own words in quotes, an unpaired backtick (it garbles the prose) dropped."""
    text = text.replace('"', "'").replace("``", "`")  # reST literals read as Markdown's
    if text.count("`") % 2:
        text = text.replace("`", "")
    return f"\u201c{text}\u201d"  # typographic quotes: a `"` of the guard can't pair with them


def _why_sentences(f: PageFacts) -> list[str]:
    """The code's own words on why the check exists, marked as such."""
    out = []
    if f.comment:
        out.append(f"The code's comment just above the check says: {_quoted(f.comment)}.")
    if f.doc:
        out.append(f"The doc comment of `{fn_name(f)}` says: {_quoted(f.doc)}.")
    if f.debug_only:
        out.append("This is a `debug_assert`: it is checked in debug builds only; a release "
                   "build skips it and goes on with the unchecked value.")
    return out


def _known_sentences(f: PageFacts) -> list[str]:
    """What only the repository tells: value kinds, entry points, tests, history."""
    out: list[str] = []
    sf, known = f.site_facts, f.known
    if sf is not None:
        values = [o for o in sf.origins if o.how == "value" and o.source]
        if values:
            out.append("The check compares " + ", ".join(
                f"the {o.source} (`{o.expression}`)" for o in values[:3]) + ".")  # fmt: skip
        if sf.entry_points and not f.public:
            names = [f"`{e.function}`" for e in sf.entry_points[:4]]
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            out.append(f"You get here from {listed}.")
    tests = verified_tests(f)
    if tests:
        test = tests[0]
        more = f" (and {len(tests) - 1} more)" if len(tests) > 1 else ""
        out.append(f"The repository's tests expect it at {test.path}:{test.line}{more}.")
    if known is not None and known.history is not None:
        out.append(history_sentence(known.history, len({s.path for s in f.record.sites}) > 1))
    return [s for s in out if s]


def history_sentence(history: History, files: bool = False) -> str:
    """The message's history in one sentence, each commit with the file it touched when
    the sites are in several `files`; empty when nothing is known."""
    parts = []
    if history.introduced_commit:
        when = f" on {history.introduced_date[:10]}" if history.introduced_date else ""
        where = f" in {history.introduced_path}" if files and history.introduced_path else ""
        tag = f", first released in {history.introduced_tag}" if history.introduced_tag else ""
        parts.append(f"introduced in commit {history.introduced_commit[:10]}{when}{where}{tag}")
    if history.changed_commit and history.changed_commit != history.introduced_commit:
        when = f" on {history.changed_date[:10]}" if history.changed_date else ""
        where = f" in {history.changed_path}" if files and history.changed_path else ""
        parts.append(f"last changed in {history.changed_commit[:10]}{when}{where}")
    if history.removed and history.removed_commit:
        when = f" on {history.removed_date[:10]}" if history.removed_date else ""
        parts.append(f"removed in {history.removed_commit[:10]}{when}")
    return ("This message was " + "; ".join(parts) + ".") if parts else ""


def _what_it_means(f: PageFacts) -> str:
    out: list[str] = []
    helper = f" (internal: you reach it from {f.entry})" if f.internal and f.users else ""
    if f.runs is not None:
        helper = commandline.where(f.runs, f.site.path)
    if f.nature == "guarded":
        out.append(f"{f.where}{helper} checks `{f.checked or f.guard}` and {action(f)}.")
    elif f.nature == "unimplemented":
        out.append(f"{f.where}{helper} reaches a case that has not been implemented and "
                   f"{action(f)}.")
    elif f.nature == "unreachable":
        out.append(f"{f.where}{helper} reaches a branch its authors considered impossible and "
                   f"{action(f)}; getting here points to a bug or an input it did not expect.")
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        tried = f"`{failed.shown}`" if (failed := passedon.failure(f)) else "the code"
        out.append(
            f"{f.where} catches {caught} from {tried} in its try block and {action(f)}; "
            + ("the caught exception is the real cause: this message is "
               f"{raised_word(f)} about it, not raised to your call." if f.reported else
               "the caught exception is the real cause (the error chains it as its cause or "
               "context).")
        )
        if f.selects:
            out.append(f"Inside the handler, it raises this message only when `{f.selects}` "
                       "holds.")
    elif f.nature in ("expect", "context") and f.receiver:
        what = failed.how if (failed := passedon.failure(f)) else "fails"
        read = failed is not None and failed.held
        done = "returns an error with this message" if read and f.nature == "context" \
            else action(f)  # nothing failed to wrap: the value was absent
        out.append(f"{f.where}{helper} {'reads' if read else 'calls'} `{f.receiver}`; when "
                   f"that {what}, it {done}.")
        if f.only_when:
            out.append(f"It gets there only when `{f.only_when}` holds; that condition leads "
                       "to the call, the value's failure is the cause.")
    elif f.reached and f.site_facts is not None and any(
            step.kind == EARLY_RETURN for step in f.site_facts.reached):  # fmt: skip
        out.append(f"{f.where}{helper} {action(f)} when this line is reached; the returns "
                   "before it are its checks.")
    elif f.reached:
        out.append(f"{f.where}{helper} {action(f)} when this line is reached: no check of its "
                   "own decides, the path to it does.")
    else:
        out.append(deprecation.meaning(f) if deprecation.applies(f) else
                   f"{f.where}{helper} {action(f)} whenever this line is reached; no condition "
                   "in front of it decides, so the path that leads here is the cause.")
    at = "It" if len(f.record.sites) == 1 else f"At {loc(f.site)} it"  # other sites: own paths
    out += [f"{at} is reached only when {joined(f.reached)}."] if f.reached else []
    out += set_from_sentences(f)
    if f.lifted is not None:
        point = f.lifted.entry
        given = ", ".join(f"`{arg}` as `{param}`" for param, arg in f.lifted.passed)
        # "reaches", not "calls": an applied op (`xs.apply_op1(Sigmoid)`) runs the method
        # for its caller, who never names it.
        out.append(f"`{point.function}` ({point.path}:{point.line}) reaches "
                   f"`{fn_name(f)}` with {given}.")
    out += grouped.sentences(f)
    if f.req and f.user_terms:
        violation = violation_of(f)
        out.append(f"To pass, {f.req}" + (f"; it fails when {violation}." if violation else "."))
    elif f.state_only:
        out.append(_state_sentence(f))
    elif built := [fact for fact in f.state if fact.built_by]:
        out.append(_built_sentence(built))
    elif f.req and (said := _arguments_sentence(f)):
        out.append(said)
    out += [_ruled_out_sentence(f, site, why) for site, why in f.ruled_out]
    out += [f"At {loc(site)} the error is caught by the handler at line {at} of the same "
            "function, which does not raise again: it never reaches a caller."
            for site, at in f.swallowed]
    out += [f"At {loc(site)} the error leaves `{site.function}`, but every call of it "
            f"{_handled(f, 'does not raise again').replace('sits inside', 'is inside')} "
            f"({', '.join(handlers[:3])}): it never reaches a caller outside the library."
            for site, handlers in f.caught_above]
    if f.invariant and f.never_seen:
        out.append("The library raises this error to signal a case it handles itself: "
                   "there is nothing to change in your call.")
    elif f.invariant and f.debug_only and not f.ruled_out:
        out.append("A `debug_assert` in the library's own code (not public API) checks values "
                   "the library computed itself: there is nothing to change in your call.")
    elif f.invariant and not f.ruled_out:
        out.append("The code treats this as an invariant: no input is meant to reach it, so "
                   "there is nothing to change in your call.")
    out += _why_sentences(f)
    out += [_origin_sentence(f, o) for o in f.origins
            if not (o.how == "parameter" and o.name in f.fixed)]  # said with the arguments
    out += _known_sentences(f)
    out += _variant_sentences(f)
    holes = [h for h in f.record.template.placeholders if h.expression]
    if holes:
        written = f.record.template.message
        # A hole's name is said only where the message names it (`{dtype}`); a positional
        # `{}` or `%d` got its name from errdex, which the code does not have.
        listed = ", ".join(
            f"`{{{h.name}}}` from `{h.expression}`"
            if h.expression != h.name and "{" + h.name in written
            else f"`{h.expression}`"
            for h in holes
        )
        out.append(f"The message fills in {listed} when it is {raised_word(f)}.")
    if f.before:
        out.append(
            f"On the way here, `{fn_name(f)}` has already checked: "
            + "; ".join(sibling_needs(f, f.before))
            + "."
        )
    sites = f.record.sites
    if len(sites) > 1:
        listed = "; ".join(
            f"`{s.function or s.path}` ({loc(s)}" + (f", when `{s.guard}`)" if s.guard else ")")
            for s in sites[:5]
        )
        more = f"; and {len(sites) - 5} more" if len(sites) > 5 else ""
        out.append(f"The same message is {raised_word(f)} at {len(sites)} places: {listed}{more}.")
    return " ".join(out)


def _ruled_out_sentence(f: PageFacts, site: Site, why: RuledOut) -> str:
    values = ", ".join(f"`{v}`" for v in why.values)
    return (f"At {loc(site)} the check cannot fail at this commit: the check that raises at line "
            f"{why.line} before it lets through only {values} for `{why.name}`, and each of "
            "those passes it.")


def _state_sentence(f: PageFacts) -> str:
    """The receiver's state the check reads, and the methods that set it."""
    parts = [f"`{fact.field}` is set by " + ", ".join(
        f"`{s.function}` (line {s.line})" for s in fact.set_in[:MAX_SETTERS]) + (
        f" from its `{fact.argument}` argument" if fact.argument else "") for fact in f.state[:3]]
    decides = "How the object was built" if all(x.argument for x in f.state[:3]) else \
        "What was called on the object before"  # fmt: skip
    return (f"It reads the state of the object, not an argument of `{fn_name(f)}`: "
            + "; ".join(parts) + f". {decides} decides.")


def _built_sentence(built: list[StateFact]) -> str:
    """Fields that only the constructor sets, of an object the entry point builds."""
    fact = built[0]
    fields = ", ".join(f"`{b.field}`" for b in built[:3])
    setter = fact.set_in[0]
    return (f"It reads {fields} of the object, which `{setter.function}` (line {setter.line}) "
            f"sets when `{fact.built_by}` builds the object in the same call: the arguments "
            f"of `{fact.built_by}` decide.")


def _arguments_sentence(f: PageFacts) -> str:
    """Which of the checked values are the function's own parameters, or computed from
    them, said only as far as the function's parameters are known; and which of them the
    library's own calls fix to a literal."""
    params = f.own_params
    roots = {n.split(".")[0] for n in f.names}
    mine = sorted(roots & params)
    derived = sorted({o.name for o in f.origins if o.how == "local" and o.name not in mine
                      and params & set(facts.names_in(o.expression))})  # fmt: skip
    literals = fixed_sentence(f, sorted(roots & set(f.fixed)))
    if not mine and not derived:
        # Where the others come from is not known from the facts (a destructured tuple, a
        # value read through several locals, the environment): say nothing, not guess.
        return literals
    listed = ", ".join(f"`{n}`" for n in mine)
    said = (f"Of the values it checks, {listed} {'is' if len(mine) == 1 else 'are'} the "
            f"argument{'s' if len(mine) > 1 else ''} of `{fn_name(f)}`") if mine else ""
    if derived:
        computed = ", ".join(f"`{n}`" for n in derived)
        said += ("; " if said else "Of the values it checks, ") + \
            f"{computed} {'is' if len(derived) == 1 else 'are'} computed from its arguments"
    held = sorted({o.name for o in f.origins if o.how == "field"} - set(mine) - set(derived))
    if held:
        fields = ", ".join(f"`{n}`" for n in held)
        said += f"; {fields} {'is' if len(held) == 1 else 'are'} held by the object"
    return f"{said}. {literals}".strip()


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
    elif site.exception and re.split(r"::|\.", site.exception)[-1] != site.variant:
        # A helper that raises another type with the text it is given (`self.fail(msg)`
        # raising TemplateSyntaxError): the call to the helper is where the message is.
        return [f"`{site.variant}` is a helper that raises `{site.exception}` with the text "
                f"this call passes it."]
    if not f.record.template.literal_chars and spec.can("variants_named_by_path"):
        return [f"`{owner}` has no text of its own: it displays the value it carries."]
    if not f.record.template.literal_chars:  # `class Restart(Exception): pass`
        return [f"`{owner}` has no text of its own: its message is what it is given, empty "
                "when it is raised bare; its type says what happened."]
    return [f"`{owner}` is {spec.variant_noun}.{carried}"]


def _trigger(f: PageFacts) -> str:
    if f.invariant and f.never_seen:
        text = f"None of yours: {_caught_where(f)}."
    elif f.guard and f.user_terms:
        violation = violation_of(f)
        text = f"Calling {f.entry} when " + (violation or f"`{f.guard}` holds") + "."
    elif f.guard and not f.invariant and (said := derived_trigger(f, derived(f), violation_of(f))):
        text = said  # `n`, computed from `data`, is less than 1
    elif f.invariant or inputs.on_input(f):  # no argument of yours; the file or model read
        text = invariants.trigger(f) if f.invariant else inputs.trigger(f)
    elif (failed := passedon.failure(f)) is not None:
        text = passedon.trigger(f, failed)
    elif f.guard and f.always_fails:
        text = f"Calling {f.entry} on a path that reaches {loc(f.site)}: the check there " \
            "fails whenever it is reached."
    elif takes_no_argument(f):  # what it checks comes from elsewhere
        text = (f"Calling {f.entry} when the check at {loc(f.site)} fails: it takes no "
                "argument, so the object's state or its environment decides.")
    elif f.guard and f.state_only:
        fields = ", ".join(f"`{fact.field}`" for fact in f.state[:3])
        text = (f"Calling {f.entry} when the check at {loc(f.site)} fails on the object's "
                f"state ({fields}), which earlier calls set: not an argument of this call.")
    elif f.guard and (built := [fact for fact in f.state if fact.built_by]):
        text = (f"Calling `{built[0].built_by}` with arguments from which it builds an object "
                f"that fails the check at {loc(f.site)} (`{f.guard}`).")
    elif f.guard and f.receiver_only:
        text = (f"Calling {f.entry} on an object whose own state fails the check at "
                f"{loc(f.site)} (`{f.guard}`): how it was built and what was called on it "
                "before decide, not this call's arguments.")
    elif f.guard and f.users and all(takes_arguments(f, u) is False for u in f.users[:3]):
        they = "it takes no argument" if len(f.users[:3]) == 1 else "none of them takes one"
        text = f"Calling {f.entry} when the check at {loc(f.site)} fails: {they}."
    elif f.guard:
        text = f"Calling {f.entry} with arguments that make the check at {loc(f.site)} fail."
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        text = f"{caught} raised inside the try block of {f.where} ({loc(f.site)})."
    elif f.nature == "unimplemented":
        text = (
            f"Calling {f.entry} with inputs that reach the unimplemented branch at {loc(f.site)}."
        )
    elif f.reached:
        text = f"Calling {f.entry} when {joined(f.reached)} ({loc(f.site)})."
    else:
        text = deprecation.trigger(f) if deprecation.applies(f) else \
            f"Calling {f.entry} on a path that reaches {loc(f.site)}."
    impossible = {id(s) for s, _ in f.ruled_out}
    others = [s for s in f.record.sites if s is not f.site and id(s) not in impossible]
    if others:
        listed = ", ".join(f"`{s.function or s.path}` ({loc(s)})" for s in others[:4])
        text += f" It can also come from {listed}" + (" and more." if len(others) > 4 else ".")
    tests = verified_tests(f)
    if tests:
        test = tests[0]
        text += f" A working example is the test at {test.path}:{test.line}: `{test.text}`."
    return text


def _situations(f: PageFacts) -> tuple[str, ...]:
    if f.invariant and f.never_seen:
        return (f"None that fails a call of yours: {_caught_where(f)}",)
    out: list[str] = []
    violation = violation_of(f)
    for origin in f.origins if f.user_terms else ():
        if origin.how == "parameter":
            what = f" when {violation}" if violation else " that fails the check"
            out.append(f"Passing `{origin.name}` to `{fn_name(f)}`{what}")
        elif (source := f.source_of(origin.name)) and "." in source and " " not in source:
            owner, field = source.split(".", 1)
            out.append(f"A `{owner}` built with a `{field}` value this check rejects")
    # Situations from the facts only: a keyword table over the message or the error's type
    # guessed them ("file" in "keyfile") and was wrong more often than right.
    if not out:
        out.append(f"Calling {f.entry} with inputs that fail the check at {loc(f.site)}"
                   if f.guard else f"Any call that reaches {loc(f.site)}")  # fmt: skip
    return tuple(out[:4])


def write_explanation(
    record: Record, siblings: Sequence[Record] = (), known: RecordFacts | None = None
) -> Explanation:
    """The page's prose for `record`, from its own facts; `siblings` are the other records
    raised in the same function(s), in source order; `known` the facts read from the
    repository (typed origins, entry points, tests, history), when there are any."""
    passed = write_passed_through(record)
    if passed is not None:
        return passed
    f = gather(record, siblings, known)
    trigger, situations = _trigger(f), _situations(f)
    if f.runs is not None:  # the user runs (or builds) the program: nobody calls it
        ran = commandline.runs(f.runs)
        trigger = trigger.replace(f"Calling {f.entry}", ran, 1)
        situations = tuple(s.replace(f"Calling {f.entry}", ran, 1) for s in situations)
    return Explanation(
        summary=conditioned(f, _summary(f)),
        what_it_means=_what_it_means(f),
        solutions=solutions(f),
        example_fix=example_fix(f),
        defensive=Defensive(
            strategy=strategy(f),
            validate=validate(f),
            type_guard=type_guard(f),
            try_catch=try_catch(f),
        ),
        prevention=prevention(f),
        trigger=trigger,
        common_situations=situations,
    )
