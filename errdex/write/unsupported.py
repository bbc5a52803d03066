"""Cases the code says it does not support (`not yet implemented`, `must be overridden`,
`not supported on Windows`), and of which kind: what a page can offer depends on it."""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.write.pagefacts import PageFacts

_UNSUPPORTED = re.compile(
    r"not (yet )?(supported|implemented)|unsupported|does not support|unimplemented"
)


def unsupported(f: PageFacts) -> bool:
    """The message (or guard) says the case is not supported or implemented; a wrapper
    of what its try block raised is not such a case (that error decides)."""
    if f.nature == "handler":
        return False
    text = f"{f.record.template.message} {f.guard or ''}".lower()
    return f.nature == "unimplemented" or bool(_UNSUPPORTED.search(text))


_ABSTRACT = re.compile(
    r"must (?:be )?(?:overrid|implement)|subclass(?:es)? (?:must|should)|abstract")
_ELSEWHERE = re.compile(  # what lacks support is the platform or the other end, not the code
    r"\b(?:on|by) (?:the |this |your )?(?:platform|system|os|windows|server|remote|peer|host|"
    r"socket module)s?\b|on windows|\bwindows platforms?\b|server does not|platform does not")
_FOR_NOW = re.compile(r"\b(?:yet|currently|for now|at the moment|todo)\b|haven't|have not")


def unsupported_kind(f: PageFacts) -> str | None:
    """What an unsupported case is: "abstract" (a subclass must implement it),
    "elsewhere" (the platform or a server lacks it), "for now" (the code says it is not
    done yet: a release may bring it), "limit" (the code handles no such case); None when
    the case is not an unsupported one."""
    if not unsupported(f):
        return None
    text = f"{f.record.template.message} {f.record.exception or ''}".lower()
    if _ABSTRACT.search(text):
        return "abstract"
    if _ELSEWHERE.search(text):
        return "elsewhere"
    if _FOR_NOW.search(f"{text} {facts.site_line(f.site).lower()}"):  # `todo!()` too
        return "for now"
    return "limit"
