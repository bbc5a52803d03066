"""An error that passes on another call's failure, said as that: `load` maps the Err of
`Api::new()` to "Api error: {e}"; `create_static_lib` catches what `self.spawn(cmd)`
raised and raises `LibError` with it. No check of the user's values is made there: the
cause is that call, and the error it carries says what went wrong.

The failing call comes from the facts: the value a fallback is built for (`x.ok_or(..)`,
`x.map_err(..)`, whose guard is `x.is_none()` / `x.is_err()`), or the one statement the
`try` of an `except` step held (errdex.analyze.reached). Without it, the page keeps the
general wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errdex.extract.structure import EXCEPT
from errdex.languages import spec_for
from errdex.models import Site
from errdex.write import places
from errdex.write.pagefacts import PageFacts, fn_name, loc, raised_word

_FALLBACK = re.compile(r"(.+)\.is_(none|err)\(\)")
# A field of a value (`config.pooler_hidden_size`), read, not called: `.context` on it is
# on a value that may be absent
_FIELD = re.compile(r"&?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_MAX_OTHERS = 3
_LONGEST = 80  # characters of a call a sentence quotes whole
_REPORTS = {"logged": "logs this message", "emitted": "emits this warning"}
_RECEIVERS = ("self", "cls", "Self")
_ASSIGNED = re.compile(r"^\s*[\w.\[\]'\"]+\s*=(?!=)\s*")  # `port = int(port)`: the call


@dataclass(frozen=True)
class Failure:
    call: str  # "Api::new()", "self.spawn([self.lib] + lib_args)"
    how: str  # "returns an Err", "returns None", "raises `DistutilsExecError`"
    carries: bool | None  # an error comes with it (an Err, an exception); False: only a
    # missing value (None); None: either

    @property
    def held(self) -> bool:
        """A value the code read that had none (`config.hidden_size`), not a call made."""
        return self.carries is False and "(" not in self.call

    @property
    def shown(self) -> str:
        """The call as a page writes it: a long one by its function (`template.render(…)`)."""
        return short(self.call)


def short(call: str) -> str:
    """`call`, or its function's name with `(…)` when it is too long to quote."""
    head = re.match(r"[^(]*\(", call)
    return call if len(call) <= _LONGEST or head is None else f"{head.group()}…)"


def failure(f: PageFacts) -> Failure | None:
    """What failed at the primary site, when the facts name the call."""
    if f.nature == "handler":
        tried = _tried(f, f.site)
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        return Failure(tried, f"raises {caught}", True) if tried else None
    if f.nature not in ("expect", "context") or not f.receiver:
        return None
    fallback = _FALLBACK.fullmatch(f.guard or "")
    if f.nature == "context" and _FIELD.fullmatch(f.receiver):
        return Failure(f.receiver, "is None", False)  # a value held, not a call: not set
    if f.nature == "context" and not optional_result(f):
        return Failure(f.receiver, "fails", None)
    if fallback is not None and fallback.group(1) == f.receiver:
        err = fallback.group(2) == "err"
        return Failure(f.receiver, _returned(f.receiver, "an Err" if err else "None"), err)
    if optional_result(f):
        return Failure(f.receiver, "returns None", False)
    return Failure(f.receiver, _returned(f.receiver, "None or an Err"), None)


def optional_result(f: PageFacts) -> bool:
    """The value the fallback is on is a method's optional result (`tokens.last()`)."""
    optional = spec_for(f.lang).optional_results
    last = re.search(r"\.(\w+)\s*\([^()]*\)\s*$", f.receiver or "")
    return bool(optional and last and re.fullmatch(optional, last.group(1)))


def _returned(call: str, what: str) -> str:
    return f"returns {what}" if call.rstrip().endswith(")") else f"is {what}"


def _tried(f: PageFacts, site: Site) -> str | None:
    """The one statement of the `try` whose handler the site is in, when known."""
    known = places.facts_of(f, site)
    steps = [s for s in known.reached if s.kind == EXCEPT] if known is not None else []
    return steps[-1].tried or None if steps else None


def _others(f: PageFacts, first: Failure) -> list[str]:
    """The calls whose failure the record's other sites pass on, each once."""
    found: dict[str, None] = {}
    for site in f.record.sites:
        if site is f.site:
            continue
        fallback = _FALLBACK.fullmatch(site.guard or "")
        call = fallback.group(1) if fallback else _tried(f, site) if f.nature == "handler" \
            else None  # fmt: skip
        if call is None:
            return []  # one place's call is not known: naming the others would mislead
        if short(call) != first.shown:
            found[short(call)] = None
    return list(found)


def about_arguments(f: PageFacts, fail: Failure) -> list[str]:
    """The function's parameters the failing call works on: the value it is a part or a
    method of (`year.encode(..)`, `config.pooler_dropout`), or an argument of a plain
    function (`int(port)`, `std::fs::read(path)`). Then the failure is about a value the
    caller gave; a method of another object given the parameter (`self.handler(context)`)
    may fail for any reason."""
    params = {p for p in f.params or () if p not in _RECEIVERS and not p.startswith("_")}
    expression = _called(fail).lstrip("&*( ")
    looked_up = re.fullmatch(r"[\w.]+\[(.+)\]", expression, re.S)
    if looked_up:  # `_b[esc]`: the key was missing, not the mapping wrong
        return sorted(params & _roots(looked_up.group(1)))
    root, read = re.match(r"[A-Za-z_]\w*", expression), _roots(expression)
    if root is None or not read or not read <= params:
        return []  # it reads a local, or the object itself, too: any of them may be at fault
    if root.group() in params:
        return [root.group()]
    plain = re.fullmatch(r"[A-Za-z_]\w*(?:::\w+)*\s*\((.*)\)", expression, re.S)
    return sorted(read) if plain else []


def called_argument(f: PageFacts, fail: Failure) -> str | None:
    """The parameter the failing call calls (`run()` of `groups(run)`): the caller's own
    function raised, inside the library's call."""
    called = re.match(r"([A-Za-z_]\w*)\s*\(", _called(fail).lstrip())
    own = called.group(1) if called and f.public else None  # the user's own call's
    return own if own in (f.params or ()) else None


def drops_cause(f: PageFacts) -> bool:
    """The raise drops the error it handles (`raise X(..) from None`): nothing chains it."""
    first = f.site.snippet.start_line
    raised = f.site.snippet.code.splitlines()[f.site.line - first : f.site.end_line - first + 1]
    return "from None" in " ".join(raised)


def reads_nothing_given(fail: Failure) -> bool:
    """The failing call reads no local or parameter, only the object itself, types and
    literals (`Api::new()`, `self.tokens.last()`): no value of the call goes into it."""
    return not _roots(_called(fail)) - set(_RECEIVERS)


def _called(fail: Failure) -> str:
    """The failing call without the assignment it is in (`port = int(port)`)."""
    return _ASSIGNED.sub("", fail.call, count=1)


def _roots(code: str) -> set[str]:
    """The names `code` reads a value from: not a member (`.x`), a path's type (`Api::`),
    a called function's name or a macro."""
    code = re.sub(r"(\"|')(?:\\.|(?!\1).)*\1", "", code)
    return {m.group(1) for m in re.finditer(r"(?<![\w.:])([A-Za-z_]\w*)\b(?!\s*(?:\(|::|!))",
                                            code) if not m.group(1)[0].isupper()}


def solution(f: PageFacts, fail: Failure) -> str:
    passes = f"{f.where} {_REPORTS.get(raised_word(f), 'reports it')} about it" \
        if f.reported else f"{f.where} returns this error" if fail.held \
        else f"{f.where} passes that failure on as this error"
    carried = "the exception it caught (if the log records it)" if f.reported \
        else "the message (it drops the error it caught: `from None`)" if drops_cause(f) \
        else "the error it carries (in the message, or chained as its cause)"
    about = about_arguments(f, fail)
    if (own := called_argument(f, fail)) is not None:
        fix = (f"`{own}` is the function you passed {f.entry}: it raised, so the failure is "
               "in your own code" + ("" if drops_cause(f) else f"; {carried} shows where"))
    elif about:
        listed = " and ".join(f"`{p}`" for p in about)
        plural = "s" if len(about) > 1 else ""
        whose = f"your {listed} argument{plural}" if f.public else \
            f"the argument{plural} {listed} of `{fn_name(f)}` (reached from your call to {f.entry})"
        root, _, member = fail.call.lstrip("&").partition(".")
        fix = f"It works on {whose}: " + (
            f"set its `{member}`" if fail.held and member and root in about
            else "give it a value, not None" if fail.held and not plural
            else f"give {'them' if plural else 'it'} what `{fail.shown}` looks for"
            if fail.carries is False else f"{carried} says what is wrong; pass a value it accepts")
    elif fail.carries is False:
        fix = f"Look at what `{fail.shown}` reads and why it had no value"
    else:
        fix = f"Read {carried} and fix what it names"
    if not about and reads_nothing_given(fail):
        fix += ": no argument of this call goes into it"
    others = _others(f, fail)
    more = ("; at the other places the failing call is "
            + ", ".join(f"`{c}`" for c in others[:_MAX_OTHERS])
            + (f" and {len(others) - _MAX_OTHERS} more" if len(others) > _MAX_OTHERS else "")
            if others else "")
    when = f"When `{fail.shown}` {fail.how} inside {f.where} ({loc(f.site)})"
    return f"{when}, {passes}. {fix}{more}."


def example_after(f: PageFacts, fail: Failure, note: str, stmt: str) -> str:
    """The example fix's "after": the call is unchanged; what to fix is in the comment."""
    called, about = called_argument(f, fail), about_arguments(f, fail)
    if called:
        what = f"fix the {called} function you pass: it raised"
    elif about:
        what = f"give {' and '.join(about)} a value it accepts"
    elif fail.carries is False:
        what = f"look at what {fail.shown} reads"
    else:
        what = "find out why it raised" if f.reported else "fix what the error it carries names"
    return (f"{note} {fail.shown} {fail.how.replace('`', '')} inside this call "
            f"({loc(f.site)}):\n{note} {what}\n{stmt}")


def summary(f: PageFacts, fail: Failure, tail: str) -> str:
    if f.internal:
        return f"Calling {f.entry} failed: `{fail.shown}`, inside it, {fail.how}{tail}"
    return f"`{fail.shown}` {fail.how} inside {f.where}{tail}"


def trigger(f: PageFacts, fail: Failure) -> str:
    return f"Calling {f.entry}, when `{fail.shown}` {fail.how} inside it ({loc(f.site)})."
