"""The other checks of a site's function as a page states them ("goes on to check",
"has already checked"): each sibling's requirement at its site in that function, and,
when its own path adds conditions to the site's, that it is checked only then (`sock`
must be None only when `host` or `port` is given: an enclosing `if` of that check alone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from errdex.analyze import facts
from errdex.models import Record
from errdex.write.pagefacts import PageFacts, loc, message_text

_LISTED = re.compile(r"(one|all) of these holds?: (.+)")


def sibling_needs(f: PageFacts, records: Sequence[Record], limit: int = 3) -> list[str]:
    """Each sibling's requirement, read at its site in the page's site's function (a
    record's first site may be in another function, with another condition)."""
    when_of = {(c.record_id, c.line): c.when for c in f.site_facts.siblings} \
        if f.site_facts else {}  # fmt: skip
    out = []
    for other in records[:limit]:
        here = [x for x in other.sites if x.path == f.site.path and x.function == f.site.function]
        s = min(here, key=lambda x: abs(x.line - f.site.line), default=other.sites[0])
        req = facts.requirement(s.guard, s.language) if s.guard else None
        message = message_text(other)
        quoted = json.dumps(message, ensure_ascii=False)
        if message.count("`") % 2:  # an unpaired backtick would garble the prose around it
            quoted = f"raised at {loc(s)}"
        when = when_of.get((other.id, s.line), ())
        only = " when " + " and ".join(plain_condition(w, len(when) > 1) for w in when) \
            if when else ""  # fmt: skip
        out.append(f"{req}{only} ({quoted})" if req else f"{quoted}{only}")
    return out


def plain_condition(condition: str, among: bool) -> str:
    """"one of these holds: a; b" as "a or b" (as "either a or b" `among` other
    conditions joined by "and"), to sit inside a list joined by "; "."""
    listed = _LISTED.fullmatch(condition)
    if listed is None:
        return condition
    if listed.group(1) == "all":
        return " and ".join(listed.group(2).split("; "))
    return ("either " if among else "") + " or ".join(listed.group(2).split("; "))
