"""Whether a page explains an internal invariant: a case the library's own code says
cannot happen, so that no argument of the user's call causes it and the fix is a bug
report. What decides the failure class "Internal invariant violated"
(`errdex/rules/classes.toml`: the comment above the check, the message's words,
`unreachable!()`) decides the page too, so the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from errdex.analyze import classes, facts
from errdex.languages import spec_for
from errdex.models import Language, Record, Site, SiteFacts
from errdex.write import reading

if TYPE_CHECKING:
    from errdex.write.pagefacts import PageFacts


def said(record: Record, site: Site, text: str, nature: str,
         known: SiteFacts | None, params: Sequence[str] | None) -> tuple[bool, bool]:
    """(the code says the case cannot happen, the message or `unreachable!()` says so).
    `text` is the comment (and doc) above the primary site. The second is weighed by the
    caller: it does not outweigh a requirement on the user's own arguments (a public
    `match code { 0 => unreachable!() .. }`, jinja's "two values for the caller argument.
    This is most likely a bug.")."""
    sites = record.sites
    invariant = nature == "unreachable" or classes.says_cannot_happen(text)
    # A record is an invariant only when every site is one: a message shared with checks a
    # user can fail (another function's `dtype mismatch`) is not a bug report.
    invariant = invariant and all(
        classes.says_cannot_happen(reading.comment_above(other) or "") for other in sites
        if other is not site)  # fmt: skip
    # An `assert False` at the end of a chain over the library's own state (alone in a
    # method, as a dummy thread's `join`, it is how the method refuses every call).
    own = not reads_parameters(site.guard, known, params)
    invariant = invariant or (always_fails(site.guard, site.language) and own
                              and known is not None and bool(known.reached))
    worded = classes.message_says_cannot_happen(record) or all(
        classes.line_says_cannot_happen(s) for s in sites)
    # An "internal error" on a check of the function's own arguments (candle's
    # `DType::F4 => Err(InternalError("Dummy types not supported"))`) is one a caller
    # can make: the arguments decide.
    return invariant, worded and own


def always_fails(guard: str | None, language: Language) -> bool:
    """The failing guard is a constant truth: the negation of a false literal (an
    `assert False`), so the site raises whenever it is reached."""
    text, negations = (guard or "").strip(), 0
    negation = re.compile(spec_for(language).negation)
    while text:
        if text.startswith("(") and text.endswith(")") and facts.balanced(text[1:-1]):
            text = text[1:-1].strip()
        elif m := negation.match(text):
            text, negations = text[m.end():].strip(), negations + 1
        else:
            break
    return negations % 2 == 1 and text.lower() in ("false", "0")


def reads_parameters(guard: str | None, known: SiteFacts | None,
                      params: Sequence[str] | None) -> bool:
    """The check, or the conditions that lead to the site, name one of the function's own
    parameters: they are on the caller's values, not the library's own state."""
    names = set(params or ()) - {"self", "cls"}
    steps = " ".join([guard or ""] + [step.text for step in known.reached]
                     if known is not None else [guard or ""])  # fmt: skip
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b", steps) for n in names)


def shared_state(f: PageFacts) -> bool:
    """The site is in a method that changes its object's state, in a language whose objects
    may be shared by threads without a lock: interleaved calls are a cause to rule out."""
    if not spec_for(f.lang).can("unsynchronised_sharing") or not f.params:
        return False
    receiver = f.params[0]
    if receiver not in ("self", "this") and not (f.state or (f.site_facts and f.site_facts.state)):
        return False  # a free function: no object of its own
    return bool(re.search(rf"(?<![\w.]){re.escape(receiver)}\.[\w.\[\]]+\s*(?:[-+*/|&]?=(?!=)"
                          rf"|\.(?:append|pop|add|remove|clear|update|discard)\s*\()",
                          f.site.snippet.code))


def trigger(f: PageFacts) -> str:
    """When it happens, for an invariant: no argument of the user's."""
    threads = " (or of one object used from several threads at once)" if shared_state(f) \
        else ""  # fmt: skip
    return (f"No argument of your call to {f.entry}: it reached {f.site.path}:{f.site.line}, "
            f"which the code treats as impossible (an internal invariant of {f.record.repo}), "
            f"so it is a sign of a bug{threads}.")
