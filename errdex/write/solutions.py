"""The page's solutions: what the user can change, from the facts of one `PageFacts`
(errdex.write.pagefacts), the most direct first: the argument or input the requirement
names, a way around the check, the value at its source, the case the code supports; for
what no input changes (an invariant, a handler's cause, the object's state), what to do
instead. It never reads files or calls a model.
"""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.languages import spec_for
from errdex.write import (
    branches,
    built,
    commandline,
    deprecation,
    inputs,
    invariants,
    passedon,
    places,
)
from errdex.write.derived import derived, private_alone, takes_arguments
from errdex.write.derived import solution as derived_solution
from errdex.write.loops import names_an_item
from errdex.write.pagefacts import (
    MAX_SETTERS,
    PageFacts,
    fn_name,
    joined,
    loc,
    shows_values,
    single_leaf,
    users_value,
    verb,
)
from errdex.write.siblings import sibling_needs
from errdex.write.unsupported import unsupported, unsupported_kind

_WAYS_OUT = frozenset({"if", "early_return"})  # step kinds a caller can step around


def takes_no_argument(f: PageFacts) -> bool:
    """A public method whose only parameter is its receiver (`createSocket(self)`): what
    it checks comes from the object's state or its environment, not from the call."""
    return bool(f.guard and f.public and f.params is not None
                and not set(f.params) - {"self", "cls"})


def object_decides(f: PageFacts) -> bool:
    """The check reads only the object the user calls the site's own method on: not a
    helper the call reaches (`Config::hidden_act` from `Model::new`), not a constructor
    (which builds that object from its arguments: `self.eps` is the `eps` given)."""
    name = re.split(r"::|\.", f.site.function or "")[-1]
    if f.internal or name in spec_for(f.lang).outline.constructors:
        return False
    return f.receiver_only or (takes_no_argument(f) and _reads_receiver(f))


def _reads_receiver(f: PageFacts) -> bool:
    """The check reads the object the method is called on (`self.closed`, or the value
    itself: `matches!(self, Self::Cuda(_))`)."""
    receiver = f.params[0] if f.params else None
    return receiver is not None and bool(
        re.search(rf"(?<![\w.]){re.escape(receiver)}(?:\.|\b(?!\s*::))", f.guard or ""))


def solutions(f: PageFacts) -> tuple[str, ...]:
    out: list[str] = []
    repo, here = f.record.repo, loc(f.site)
    if f.invariant and f.never_seen:
        caught = [h for _, handlers in f.caught_above for h in handlers][:3] or \
            [f"{site.path}:{at}" for site, at in f.swallowed[:3]]
        out.append(f"Nothing to change on your side: {repo} catches this error itself "
                   f"({', '.join(caught)}) and carries on; it is an internal signal, not a "
                   f"failure of your call. If a traceback does show it, report it to {repo}.")
    elif f.invariant:
        out.append(f"Nothing to change on your side: no argument of your call to {f.entry} "
                   f"causes this; the code treats it as an internal invariant of {repo}, a "
                   f"bug if it is reached. Report it to {repo} with the full message and "
                   f"traceback, the version you run, the smallest input that reproduces it "
                   f"and the location {here}.")
        if invariants.shared_state(f):
            out.append("Before reporting, rule out using the same object from several threads "
                       "without a lock: calls that interleave on one object can leave it in a "
                       "state its own code treats as impossible.")
    elif f.req and f.user_terms and f.on_receiver:
        out.append(f"Call {f.entry} on an object for which {f.holds}: the object's state "
                   "decides, not an argument of this call.")
    elif f.req and f.user_terms and f.cli is not None:
        given = commandline.defaults(f.program, f.holds)
        out.append(f"Run {'the program' if f.runs is None else f.entry} with command-line "
                   f"flags for which {f.holds}{given}.")
    elif f.req and f.user_terms:
        out.append(f"Call {f.entry} with arguments for which {f.holds}.")
        # An enclosing `if` or an earlier normal return is a way out too (not an `else`
        # or an arm: the branches before those may raise errors of their own).
        ways = [f.said(step.text, step.line) for step in f.site_facts.reached
                if step.kind in _WAYS_OUT and not step.closed] \
            if f.site_facts and f.lifted is None else []  # a lifted check: the caller's terms
        if ways:
            out.append(f"Or give it inputs that do not reach the check: it runs only when "
                       f"{joined(ways)}.")
        leaf = single_leaf(f)
        for origin in f.origins:
            if origin.how == "parameter":
                out.append(f"Check the `{origin.name}` argument you pass to `{fn_name(f)}`.")
            elif (origin.how == "field" and leaf is not None and users_value(origin)
                  and facts.clean(leaf.subject, f.lang) == origin.name):
                moved = facts.Need("leaf", facts.Leaf(origin.expression, leaf.rel, leaf.obj))
                out.append(
                    f"Fix the value at its source: `{origin.name}` is copied from "
                    f"`{origin.expression}`, so make sure that "
                    f"{facts.describe(moved, f.lang, mood='is')}."
                )
        out += _rel_tips(f)
    elif f.req and f.origins and all(o.how == "field" and users_value(o) for o in f.origins):
        for origin in f.origins:
            out.append(f"`{origin.name}` is copied from `{origin.expression}`: set that value "
                       f"so that {f.holds}.")
    elif (on := inputs.on_input(f)) is not None:
        out.append(inputs.solution(f, on))
    elif unsupported_kind(f) == "abstract":
        out.append(f"{f.where} is a method its subclasses are meant to override: call it on a "
                   "subclass that implements it, or implement it in your own subclass.")
    elif unsupported_kind(f) == "elsewhere":
        out.append("What lacks support is named in the message (the platform, the system or "
                   "the other end of the connection), not an argument: run it where that is "
                   f"supported, or take another way through {f.entry} that does not need it.")
    elif unsupported(f) and (f.req or f.reached):
        supported = f.holds or f"not all of these hold: {joined(f.reached)}"
        out.append(f"{f.entry} does not handle this case at this commit; it takes a path it "
                   f"supports when {supported}. Change the input that selects the case (the "
                   "message names it).")
    elif unsupported(f):
        out.append(f"{f.entry} does not handle this case at this commit, and no condition in "
                   "front of it selects another path. Do what the message says, or take a "
                   "path the code supports (the message names the case).")
    elif f.nature == "unreachable":
        out.append(
            f"Treat it as a bug: reproduce it with the smallest input and report it to "
            f"{repo} with the full message and {here}."
        )
    elif (failed := passedon.failure(f)) is not None:
        out.append(passedon.solution(f, failed))
    elif f.nature in ("expect", "context", "handler"):
        what = f"`{f.receiver}`" if f.receiver else "the operation it wraps"
        what = f"the code that raises {what}" if f.nature == "handler" else what
        out.append(f"Make {what} succeed: give {f.entry} the input, file or state it relies "
                   "on.")
        if f.nature in ("context", "handler") and not passedon.drops_cause(f) \
                and not f.reported:  # a log line or a warning chains nothing
            out.append(
                "Print the whole error chain (the cause follows this message) to see "
                "what actually failed."
            )
    elif f.runs is not None and f.guard:
        steps = commandline.flag_steps(f.reached)
        only = f"; it runs only when {joined(steps)}" if steps else ""
        given = f"the flags and files you give {f.entry}" if f.runs.kind != commandline.BUILD \
            else (f"what the machine running {f.entry} provides (environment variables, "
                  "installed tools, the package's files)")  # fmt: skip
        out.append(f"Trace the values the check in `{fn_name(f)}` ({here}) reads back to "
                   f"{given}{only}{shows_values(f)}.")
    elif f.state_only:
        fact = f.state[0]
        setters = " or ".join(f"`{s.function}`" for s in fact.set_in[:MAX_SETTERS])
        if fact.argument:
            out.append(f"Give the object its `{fact.argument}` when you build it: the check in "
                       f"`{fn_name(f)}` ({here}) reads `{fact.field}`, which {setters} sets "
                       f"from its `{fact.argument}` argument; no argument of this call "
                       "changes it.")
        else:
            out.append(f"Look at the calls made on the object before this one: the check in "
                       f"`{fn_name(f)}` ({here}) reads `{fact.field}`, which {setters} set; "
                       "no argument of this call changes it.")
    elif f.guard and f.always_fails:
        out.append(f"Avoid the path that reaches {here}: {f.entry} {verb(f, this=True)} "
                   "whenever that line is reached, whatever you pass: the check reads only "
                   "values the code's own calls fix.")
    elif f.guard and not private_alone(f) and (read := sorted(
            {n.split(".")[0] for n in f.names} & f.own_params)):  # fmt: skip
        listed = ", ".join(f"`{n}`" for n in read)
        if not f.direct and all(takes_arguments(f, u) is False for u in f.users[:3]):
            out.append(f"{f.entry} takes no argument: what it passes as {listed} of "
                       f"`{fn_name(f)}` comes from the object it runs on or from its module; "
                       f"the check ({here}) reads it{shows_values(f)}.")
        elif not f.direct:
            out.append(f"Change the arguments of your call to {f.entry} that become {listed} "
                       f"of `{fn_name(f)}`: the check ({here}) reads them{shows_values(f)}.")
        else:
            out.append(f"Change {listed} in your call to {f.entry}: the check ({here}) reads "
                       f"them{shows_values(f)}.")
    elif f.guard and (found := derived(f)):  # `n = _ss(data, mu)[3]`, then `n < 1`
        out.append(derived_solution(f, found, shows_values(f)))
    elif object_decides(f):
        out.append(f"Look at how the object you call {f.entry} on was built and what was "
                   f"called on it before: the check ({here}) reads `{f.guard}`, not an "
                   f"argument of this call{shows_values(f)}.")
    elif takes_no_argument(f) and not _reads_receiver(f):
        out.append(f"{f.entry} takes no argument: the check ({here}) reads `{f.guard}`, "
                   f"which its environment or its module's state decides, not your "
                   f"call{shows_values(f)}.")
    elif f.guard:
        out.append(f"Trace the values the check in `{fn_name(f)}` ({here}) reads back to the "
                   f"inputs of your call to {f.entry}{shows_values(f)}.")
    elif f.site_facts and (returns := branches.returns_past(f.site_facts.reached)):
        out.append(f"Give {f.entry} inputs it returns for before {here}: "
                   f"{branches.returns_said(returns)}.")
    elif f.reached:
        which = "one of these does" if len(f.reached) > 1 else "this does"
        out.append(f"Give {f.entry} inputs for which {which} not hold: it gets to {here} only "
                   f"when {joined(f.reached)}.")
    elif deprecation.applies(f):
        out.append(deprecation.solution(f))
    else:
        out.append(
            f"Avoid the path that reaches {here}: {f.entry} {verb(f, this=True)} whenever "
            "that line is reached."
        )
    features = re.search(r"--features (\S+)", f.runs.command) if f.runs is not None else None
    if features and f.runs is not None and f.runs.kind == commandline.BUILD:
        out.append(f"The build script does this only with the feature(s) `{features.group(1)}`: "
                   "build without them if you do not need what they add.")
    if unsupported_kind(f) == "for now" and not f.invariant:
        out.append(f"If you need this case, check whether a newer release of {repo} has it, "
                   "or ask for it there.")
    if f.after and f.user_terms:
        out.append(
            f"Once this passes, `{fn_name(f)}` goes on to check: "
            + "; ".join(sibling_needs(f, f.after))
            + "."
        )
    if passedon.failure(f) is None:  # that one names the other places' calls itself
        out = places.scoped(f, out)
    return tuple(dict.fromkeys(([] if f.invariant else built.build_fixes(f)) + out))


def _rel_tips(f: PageFacts) -> list[str]:
    leaf = single_leaf(f)
    if leaf is None or names_an_item(f.origins, leaf.subject):
        return []
    s, o = facts.show(leaf.subject, f.lang), facts.show(leaf.obj, f.lang)
    tips = {
        "eq": None if facts.is_literal(leaf.obj) else
        f"Print {s} and {o} just before the call to see which side is off, then fix how it "
        "is produced.",
        "+isinstance": f"Convert {s} before passing it, or fix the code that produces it.",
        "is_not": f"Pass a real value for {s}, or make sure the step that sets it ran first.",
        "in": None if facts.is_literal(leaf.obj) else f"Use a value that {o} contains.",
        "+exists": f"Check that {s} exists and is spelled right; a relative path resolves from "
        "the working directory.",
    }  # fmt: skip
    tip = tips.get(leaf.rel)
    return [tip] if tip else []
