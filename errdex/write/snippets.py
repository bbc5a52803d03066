"""The code on a page: the example fix (a "before" that violates the requirement and an
"after" that satisfies it) and the defensive patterns (validate first, a type guard, a
try/catch), in the library's own language.

What is written differently per language is the language's code writer
(`errdex.languages.<name>.writer`); this module holds what every language shares.

Built only from the page's facts (`errdex.write.pagefacts`); what isn't known is written `...`,
so a snippet never names a function or option the code doesn't have.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from errdex.analyze import facts
from errdex.languages import spec_for
from errdex.languages.writer import CodeWriter
from errdex.models import ExampleFix, SiteKind
from errdex.write import commandline, deprecation, passedon, reading
from errdex.write.derived import derived, fix_note
from errdex.write.pagefacts import (
    MAX_SETTERS,
    PageFacts,
    fn_name,
    loc,
    message_text,
    quote,
    raised_word,
    single_leaf,
    users_value,
)
from errdex.write.unsupported import unsupported

# Sample values for an `isinstance` fix: type -> (a wrong value, a right value).
_TYPE_SAMPLES = {
    "int": ('"1"', "1"),
    "float": ('"1.0"', "1.0"),
    "str": ("1", '"..."'),
    "bool": ('"yes"', "True"),
    "list": ("(...)", "[...]"),
    "dict": ("[...]", "{...}"),
    "bytes": ('"..."', 'b"..."'),
    "tuple": ("[...]", "(...)"),
}


def _writer(f: PageFacts) -> CodeWriter:
    return spec_for(f.lang).writer()


def _positive(f: PageFacts) -> str:
    """The guard negated, as code: what must be true."""
    guard, w = f.guard or "", _writer(f)
    cond = facts.parse_guard(guard, f.lang)
    if isinstance(cond, facts.Leaf) and cond.rel in w.ops:
        flipped = facts.deny(cond).leaf
        if flipped is not None and flipped.rel in w.ops:
            return f"{flipped.subject} {w.ops[flipped.rel]} {flipped.obj}"
    if isinstance(cond, facts.Group) and cond.op == "not":
        inner = re.sub(r"^(!|not\s+)", "", guard.strip())
        return inner[1:-1] if facts.parse_guard(inner[1:-1], f.lang) == cond.parts[0] else inner
    single = len(facts.split_top(guard.strip(), r"\s", f.lang)) == 1
    if isinstance(cond, facts.Leaf) and cond.rel.startswith("+") and single:
        return w.negate(guard, bare=True)
    if isinstance(cond, facts.Leaf) and cond.rel == "true":
        return w.negate(guard, bare=True)
    return w.negate(guard, bare=False)


def _samples(leaf: facts.Leaf) -> tuple[str, str] | None:
    obj = leaf.obj.strip()
    if leaf.rel == "+isinstance":
        first = obj.strip("()").split(",")[0].strip()
        return _TYPE_SAMPLES.get(first, ("...", f"{first}(...)"))
    if leaf.rel == "is_not" and obj == "None":
        return "None", "..."
    m = re.fullmatch(r"-?\d+", obj)
    if not m:
        return (obj, "...") if leaf.rel == "ne" and facts.is_literal(obj) else None
    n = int(obj)
    table = {"eq": (n + 1, n), "ne": (n, n + 1), "ge": (n - 1, n), "gt": (n, n + 1),
             "le": (n + 1, n), "lt": (n, n - 1)}  # fmt: skip
    pair = table.get(leaf.rel)
    return None if pair is None else (str(pair[0]), str(pair[1]))


def _receiver(f: PageFacts) -> str | None:
    """The variable a user's method call is made on, when the call is a method call."""
    return _writer(f).receiver_of(user_call(f))


def _gives_error(f: PageFacts) -> bool:
    """The site's function returns the error itself (`Error::with_path(self, p) -> Self`):
    a call of it is no call that fails, and `?` or `Ok(..)` on it does not compile."""
    header = reading.signature(f.site) if f.site.function else None
    return header is not None and f.site.function is not None and _writer(f).gives_error(
        header, f.site.function, f.site.exception or f.record.exception)


def _entries(f: PageFacts) -> list[str]:
    """The public functions that reach the site, other than its own, nearest first."""
    found = f.site_facts.entry_points if f.site_facts is not None else ()
    return list(dict.fromkeys(e.function for e in found if e.function != f.site.function))


def no_call(f: PageFacts) -> str | None:
    """Why the page can write no call of the user's that reaches the site: "private" (a
    private or nested function, a private type's method, with no public caller known),
    "gives" (a function that returns the error itself, no caller known); None: it can."""
    if f.runs is not None or f.lifted is not None:
        return None
    if _gives_error(f):
        return None if _entries(f) else "gives"
    # Private by its definition's tree (`pub`, a trait, `#[pymethods]`), not by the
    # snippet's header: a trait's method has no `pub` of its own.
    defined = f.site_facts.public if f.site_facts is not None else None
    if defined is False and not f.users and not _writer(f).writes_own_call:
        return "private"
    return None


def user_call(f: PageFacts, values: dict[str, str] | None = None) -> str:
    """The call a user writes to reach the site: the public function itself with its
    parameters (`values` replacing some), or the nearest public entry point; the raising
    function only when no public one is known (see `no_call`: none is then written)."""
    w, values = _writer(f), values or {}
    if f.lifted is None and _gives_error(f) and _entries(f):
        return w.user_call(_entries(f)[0], None, None)  # what fails with the error it builds
    # A check said at the caller (errdex.write.lifted) is called as the caller.
    fn = f.lifted.entry.function if f.lifted is not None else f.site.function
    constructor = re.search(r"\.__(?:init|new)__$", fn or "")
    # a constructor: the user calls the class (when users can name it)
    if fn and constructor and (f.public is not False or f.lifted is not None or f.users):
        return w.user_call(fn[: constructor.start()], w.arguments(
            [p for p in f.params or () if p not in ("self", "cls")], values)
            if f.params is not None else None, False)
    if (f.public or f.lifted is not None) and fn:
        params = list(f.params) if f.params is not None else None
        is_method = params is not None and bool(params) and params[0] in ("self", "cls")
        args = None
        if params is not None:
            rest = [p for p in params if p not in ("self", "cls")]
            args = w.arguments(rest, values)
        call = w.user_call(fn, args, is_method)
        return call if f.lifted is not None else w.accessed(f, call)  # a property: no call
    if f.users:
        return w.user_call(f.users[0], None, None)
    return w.call(f)


def _stmt(f: PageFacts, call: str) -> str:
    return _writer(f).statement(f, call)


def example_fix(f: PageFacts) -> ExampleFix:
    if f.runs is not None:  # the user runs the program: no call of theirs reaches it
        return commandline.example_fix(f.runs, quote(message_text(f.record)),
                                       f.holds if f.user_terms else None)
    why = no_call(f)
    if why is not None:
        return _without_call(f, why, _example_fix(f, _CALL))
    return _example_fix(f, _stmt(f, user_call(f)))


def _example_fix(f: PageFacts, stmt: str) -> ExampleFix:
    w = _writer(f)
    note, end, inline = w.comment, w.statement_end, w.inline_comment
    message = quote(message_text(f.record))
    if _gives_error(f):  # the call of a caller of the function that builds it
        return ExampleFix(
            before=f"{stmt}{inline} fails: {message}",
            after=f"{note} `{f.site.function}` wraps another error in this one (it returns "
            f"the error, not a Result):\n{note} the wrapped error, shown in the message, is "
            f"the cause: fix what it names\n{stmt}",
        )
    failing = f"{stmt}{inline} fails: {message}"
    if f.invariant and f.never_seen:
        return ExampleFix(
            before=stmt,
            after=f"{note} nothing to change in this call: {f.record.repo} catches this "
            "error itself and carries on",
        )
    if f.invariant:
        return ExampleFix(
            before=failing,
            after=f"{note} nothing to change in this call: the code treats this as a bug;\n"
            f"{note} report it to {f.record.repo} with the message and this call's inputs",
        )
    leaf, pair = single_leaf(f), None
    if leaf is not None:
        pair = _samples(leaf)
    good = f"{f.req}".replace("`", "")
    if leaf is not None and pair is not None and f.user_terms:
        subject = facts.clean(leaf.subject, f.lang)
        if subject in (f.params or ()):
            bad_call, good_call = user_call(f, {subject: pair[0]}), user_call(f, {subject: pair[1]})
            if bad_call != good_call:
                return ExampleFix(f"{_stmt(f, bad_call)}{inline} fails: {message}",
                                  f"{_stmt(f, good_call)}{inline} {good}")
    if leaf is not None and pair is not None and w.copies_fields:
        subject = facts.clean(leaf.subject, f.lang)
        target = next((o for o in f.origins if o.how == "field" and o.name == subject
                       and re.fullmatch(r"[A-Za-z_]\w*(\.\w+)+", o.expression)
                       and o.expression.split(".")[0] not in ("self", "Self")), None)
        if target is not None:  # a field copied from the caller's config: set it there
            return ExampleFix(
                before=f"{target.expression} = {pair[0]}{end}\n{failing}",
                after=f"{target.expression} = {pair[1]}{end}{inline} {good}\n{stmt}",
            )
    if f.guard and f.user_terms:
        holds = f"{f.holds}".replace("`", "")
        return ExampleFix(
            before=failing,
            after=f"{note} call it with arguments for which {holds}\n{stmt}",
        )
    if f.nature == "unimplemented" or unsupported(f):
        supported = f"{note} it supports the case when {f.holds}".replace("`", "") \
            if f.holds else f"{note} or use a case the code supports (the message names it)"
        return ExampleFix(
            before=failing,
            after=f"{note} this case is not handled at this commit: do what the message says,\n"
            f"{supported}",
        )
    if f.state_only:
        fact = f.state[0]
        setters = " or ".join(s.function for s in fact.set_in[:MAX_SETTERS])
        given = f" from its {fact.argument} argument" if fact.argument else ""
        look = f"give the object its {fact.argument} when you build it" if fact.argument \
            else "look at the calls made before it"  # fmt: skip
        return ExampleFix(
            before=failing,
            after=f"{note} the check reads the object's {fact.field}, set by {setters}{given}:\n"
            f"{note} no argument of this call changes it; {look}\n"
            f"{stmt}",
        )
    if (failed := passedon.failure(f)) is not None:
        return ExampleFix(before=f"{stmt}{inline} {raised_word(f)}: {message}" if f.reported
                          else failing, after=passedon.example_after(f, failed, note, stmt))
    if f.guard and (said := fix_note(f, derived(f))):  # `n = len(data)`, then `n < 1`
        return ExampleFix(before=failing, after=f"{note} {said}\n{stmt}")
    if f.guard:
        shown = f"\n{note} the message shows which values" if f.record.template.placeholders \
            else ""
        return ExampleFix(
            before=failing,
            after=f"{note} a check inside this call ({loc(f.site)}) rejects values it reads"
            f"{shown}\n{stmt}",
        )
    if f.nature == "handler" and f.receiver:
        return ExampleFix(
            before=f"{stmt}{inline} {f.receiver} raised inside, reported as: {message}",
            after=f"{note} what raised {f.receiver} inside it is the cause: fix that input\n"
            f"{note} (this message is {raised_word(f)} about it, nothing is raised)\n{stmt}"
            if f.reported else
            f"{note} what raised {f.receiver} inside it is the cause (chained to this\n"
            f"{note} error): fix that input, or catch this error and look at its cause\n{stmt}",
        )
    if f.nature in ("expect", "context") and f.receiver:
        return ExampleFix(
            before=f"{stmt}{inline} `{f.receiver}` fails inside: {message}",
            after=f"{note} first provide what `{f.receiver}` needs (see what it means)\n{stmt}",
        )
    return ExampleFix(
        before=f"{stmt}{inline} reaches {loc(f.site)}: {message}",
        after=deprecation.after(f, note) if deprecation.applies(f) else
        f"{note} no check at {loc(f.site)} itself decides: the path to it does, and that\n"
        f"{note} path may depend on this call's arguments: take one that avoids it\n"
        f"{note} (see the solutions above)",
    )


def _not_callable(f: PageFacts, why: str) -> str:
    """Comment lines (without their marker, joined by newlines) on why no call is written."""
    if why == "gives":
        return (f"`{f.site.function}` returns this error itself (not a Result):\n"
                "no call of it fails with it")
    return (f"`{f.site.function}` is internal (not public): no call of yours\n"
            "names it, and no public call that reaches it is known")


_CALL = "\x00call\x00"  # where the call would be, in a fix written without one


def _without_call(f: PageFacts, why: str, fix: ExampleFix) -> ExampleFix:
    """`fix` with its lines that hold the call replaced by why none is written."""
    w = _writer(f)
    said = "\n".join(f"{w.comment} {line}" for line in _not_callable(f, why).split("\n"))
    before = []
    for line in fix.before.split("\n"):
        if _CALL not in line:
            before.append(line)
            continue
        rest = line.split(_CALL, 1)[1].strip()
        rest = rest.removeprefix(w.inline_comment.strip()).strip()
        lead = "the error it builds" if why == "gives" else "a call that reaches it"
        before.append(f"{said};\n{w.comment} {lead}: {rest}" if rest else said)
    after = [line for line in fix.after.split("\n") if _CALL not in line]
    return ExampleFix(before="\n".join(before), after="\n".join(after) or said)


def strategy(f: PageFacts) -> str:
    leaf = single_leaf(f)
    if leaf is not None and leaf.rel in ("+isinstance", "-isinstance"):
        return "type check"
    return "validation" if f.req else "catch and translate"


def _in_caller_terms(f: PageFacts, code: str) -> str | None:
    """`code` (the guard, or what must hold instead, as the site's function writes it) as
    the user's call site can run it: each local and field replaced by the expression it is
    set from, `self` by the value the method is called on. None when it still reads a value
    only the raising function has: a local set from another local, `self` of an object the
    call has not built yet (`self.x` in a constructor with no `self.x = x`), or a value the
    language's writer says the caller holds in another form."""
    w = _writer(f)
    code = w.caller_code(f, code)  # fields copied from the caller's config first
    code = _outside_strings(code, lambda part: _through_origins(f, part))
    receiver = _receiver(f)
    if receiver:
        code = _outside_strings(code, lambda part: _RECEIVER.sub(receiver, part))
    if not _callers_own(f, code, receiver) or not w.checkable(f, code):
        return None
    return code


def _caller_check(f: PageFacts) -> tuple[str, str] | None:
    """The guard as the user's call site writes it, and what must hold; None when the
    requirement is not in the user's terms or its code reads what only the site has."""
    if not (f.req and f.guard and f.user_terms):
        return None
    guard = _in_caller_terms(f, f.guard)
    return None if guard is None else (guard, f.req.replace("`", ""))


_RECEIVER = re.compile(r"(?<![\w.])self\b")
_QUOTED = re.compile(r"""[rbfu]*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def _outside_strings(code: str, change: Callable[[str], str]) -> str:
    """`code` with `change` applied to its text between string literals only."""
    out, at = [], 0
    for m in _QUOTED.finditer(code):
        out += [change(code[at : m.start()]), m.group(0)]
        at = m.end()
    return "".join([*out, change(code[at:])])


def _through_origins(f: PageFacts, code: str) -> str:
    """Locals (`hq`) and fields (`self.metadata_encoding`) written as what the function
    sets them from (`q.dim(1)`, `metadata_encoding`), when that is a whole expression."""
    w, done = _writer(f), set()
    for origin in f.origins:
        if origin.how not in ("local", "field") or origin.name in done:
            continue
        done.add(origin.name)
        value = w.caller_value(origin.expression, origin.text)
        if not value or not facts.balanced(value) or (
                origin.how == "local" and value == origin.name):
            continue  # `let shape = shape.into()`: the argument itself
        if len(facts.split_top(value, r"\s", f.lang)) > 1:
            value = f"({value})"
        name = re.escape(origin.name)
        pattern = rf"(?<![\w.])self\.{name}\b(?!\s*\()" if origin.how == "field" \
            else rf"(?<![\w.:]){name}\b(?!\s*(?:\(|::|!(?!=)))"  # fmt: skip
        code = re.sub(pattern, value.replace("\\", "\\\\"), code)
    return code


def _arguments(f: PageFacts) -> set[str]:
    """The names the user's call site holds: the call's arguments (the caller's own
    parameters when the check is lifted to it), the config values fields are copied from."""
    held = set(f.params or ()) - {"self", "cls"}
    held |= {o.expression.split(".")[0] for o in f.origins
             if o.how == "field" and users_value(o)}  # fmt: skip
    return held


def _callers_own(f: PageFacts, code: str, receiver: str | None) -> bool:
    """Whether every value `code` reads is one the user's call site has: an argument, the
    receiver, or a name of the module (a class, a constant) the function does not bind."""
    text = facts._STRING.sub('""', code)
    if _RECEIVER.search(text):
        return False  # the object the check reads is not one the caller holds by a name
    held = _arguments(f) | ({receiver} if receiver else set())
    held |= set(re.findall(r"\bfor\s+([A-Za-z_]\w*)\s+in\b", text))  # its own loop's name
    roots = {n.split(".")[0] for n in facts.guarded_names(code, f.lang)}
    unknown = roots - held
    if not unknown or f.lifted is not None:
        return True  # a lifted check is written on the entry's parameters already
    if any(name.startswith("_") for name in unknown):
        return False  # a private name of the module (`_provision_rx`): not the caller's
    return not _bound_in_body(f, unknown)


def _bound_in_body(f: PageFacts, names: set[str]) -> set[str]:
    """Those of `names` that the site's function binds before the site (an assignment,
    `let`, a `for` or `as` target): values of its own, not of the module."""
    lines = f.site.snippet.code.splitlines()
    at = min(max(f.site.line - f.site.snippet.start_line, 0), len(lines))
    short = facts.short_name(f.site.function) or ""
    w = _writer(f)
    start = next((i for i in range(at, -1, -1) if i < len(lines) and short
                  and w.defines(lines[i], short)), -1)  # fmt: skip
    body = "\n".join(lines[start + 1 : at + 1])
    out = set()
    for name in names:
        n = re.escape(name)
        if re.search(rf"(?<![\w.]){n}\s*(?::[^=\n]*)?=(?!=)|\b(?:let|for|as)\s+(?:mut\s+)?"
                     rf"[\w\s,()&\[\]]*?(?<![\w.]){n}\b|(?<![\w.]){n}\s*,[\w\s,]*=(?!=)"
                     rf"|,\s*{n}\s*(?:,[\w\s,]*)?=(?!=)", body):
            out.add(name)
    return out


def validate(f: PageFacts) -> str:
    if f.runs is not None:
        what = f"check that {f.holds}".replace("`", "") if f.req and f.user_terms else \
            f"see what reaches {loc(f.site)} (the flags and files it reads)"
        return commandline.shell_check(f.runs, quote(f.literal or message_text(f.record)),
                                       what)
    w = _writer(f)
    why = no_call(f)
    if why is not None:
        said = _not_callable(f, why).replace("\n", f"\n{w.comment} ")
        return (f"{w.comment} nothing to validate before a call: {said};\n{w.comment} "
                "catch the error instead (see try/catch).")
    stmt = _stmt(f, user_call(f))
    checked = _caller_check(f)
    if checked is not None:
        guard, plain = checked
        return w.validate(f, guard, quote(plain), stmt)
    note = w.comment
    if f.invariant and f.never_seen:
        return (f"{note} nothing to validate before the call: {f.record.repo} catches this "
                f"error itself.\n{stmt}")
    if f.invariant:
        return (f"{note} nothing to validate before the call: the code treats this as a "
                f"bug;\n{note} catch the error to report it (see try/catch).\n{stmt}")
    if not f.guard:
        return (f"{note} nothing to check before this call: {fn_name(f)} raises this whenever "
                f"{loc(f.site)} is reached;\n{note} catch the error instead (see try/catch).\n"
                f"{stmt}")
    return (f"{note} the check is inside {fn_name(f)} ({loc(f.site)}), on values this page "
            f"cannot\n{note} write in your terms: catch the error instead (see try/catch).\n"
            f"{stmt}")


def _stem(f: PageFacts) -> str:
    for name in f.names:
        last = name.split(".")[-1].lstrip("_")
        if re.fullmatch(r"[A-Za-z]\w*", last):
            return last.lower()
    return re.sub(r"\W", "_", fn_name(f)).strip("_").lower() or "call"


def type_guard(f: PageFacts) -> str:
    if f.runs is not None and f.literal:
        return commandline.shell_check(f.runs, quote(f.literal), f"see {loc(f.site)}")
    w, stem = _writer(f), _stem(f)
    said = _in_caller_terms(f, _positive(f)) if _caller_check(f) is not None else None
    if said is not None:
        positive = w.predicate_body(said)
        code = facts._STRING.sub('""', positive)
        held = _arguments(f) | {_receiver(f) or "self"}
        params = [r for r in dict.fromkeys(re.findall(r"(?<![\w.:])[A-Za-z_]\w*", code))
                  if r in held]  # fmt: skip
        return w.predicate(f, stem, positive, params)
    if not f.literal:
        return _no_text(f)
    return w.error_test(f, stem, quote(f.literal))


def _no_text(f: PageFacts) -> str:
    """A message made wholly at run time has no text to test for: say to test its type."""
    exc = f.exc_class or f.record.exception
    by_type = f" by its type, `{exc}`" if exc else " by its type"
    return f"{_writer(f).comment} this message has no fixed text to look for: tell it{by_type}"


def try_catch(f: PageFacts) -> str:
    if not f.literal:
        return _no_text(f)
    literal = quote(f.literal)
    advice = (f.req if f.user_terms and f.req else f"see {loc(f.site)}").replace("`", "")
    if f.runs is not None:
        return commandline.shell_check(f.runs, literal, advice)
    why = no_call(f)
    if why is not None and f.site.kind in (SiteKind.LOG, SiteKind.WARN):
        return (f"{_writer(f).comment} nothing is thrown to catch: this message is "
                f"{raised_word(f)} and the code goes on;\n{_writer(f).comment} {advice}")
    if why is not None:
        note = _writer(f).comment
        said = _not_callable(f, why).replace("\n", f"\n{note} ")
        return (f"{note} no call to wrap here: {said}.\n{note} Where your call into "
                f"{f.record.repo} returns an error, tell this one by its text, {literal}\n"
                f"{note} (see the type guard); {advice}")
    return _writer(f).try_catch(f, user_call(f), literal, advice)
