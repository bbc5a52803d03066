"""A deprecation warning every call gives (`getName() is deprecated, get the name
attribute instead` as the first line of `Thread.getName`): no path avoids it and no
argument decides; the function is on its way out, and the message usually says what to
use instead. The page says that, and quotes the message's own advice.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from errdex.models import SiteKind

if TYPE_CHECKING:
    from errdex.write.pagefacts import PageFacts

_DEPRECATED = re.compile(r"deprecat", re.IGNORECASE)
# The message's own advice after its first clause: "use ALPN instead", "Use logging
# instead", "get the name attribute instead", "Please use X".
_ADVICE = re.compile(r"[,;.:(]\s*((?:please\s+)?(?:use|get|set|call|import|see)\b.+?)[.)]?$",
                     re.IGNORECASE)


def applies(f: PageFacts) -> bool:
    """The site warns of a deprecation on every call that reaches it."""
    said = " ".join((f.record.template.message, f.site.exception or ""))
    return (f.site.kind is SiteKind.WARN and f.nature == "always" and not f.guard
            and not f.reached and bool(_DEPRECATED.search(said)))


def advice(f: PageFacts) -> str | None:
    """What the message says to do instead, as it says it."""
    found = _ADVICE.search(f.record.template.message)
    return found.group(1).strip() if found else None


def summary(f: PageFacts, tail: str) -> str:
    return f"{f.entry} is deprecated: every call warns{tail}"


def meaning(f: PageFacts) -> str:
    said = advice(f)
    instead = f", and the message says what to do instead: “{said}”" if said else ""
    return (f"{f.entry} warns on every call: it is deprecated{instead}. No "
            "argument or path of yours decides; the warning does not stop the call, but "
            "the function may be removed in a later release.")


def solution(f: PageFacts) -> str:
    said = advice(f)
    return (f"Stop calling {f.entry}: “{said}”, as the message says." if said else
            f"Stop calling {f.entry}: it is deprecated; use the replacement the library's "
            "documentation or changelog names for it.")


def trigger(f: PageFacts) -> str:
    return f"Every call of {f.entry}: it is deprecated."


def after(f: PageFacts, note: str) -> str:
    said = advice(f)
    return (f"{note} {f.entry.strip('`')} is deprecated: replace this call"
            + (f" ({said})" if said else ""))
