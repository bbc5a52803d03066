"""Whether a raise leaves its own function: a raise inside a `try` whose handler catches
it and does not raise again never reaches a caller (`try: v = obj.__dict__[k] / raise
KeyError .. / except Exception: pass`), so no page may tell a user their call fails with it.

Read from the site's snippet with the language's handler patterns (`LanguageSpec.handlers`),
by indentation: the nearest `try` that encloses the site, its first handler after the site,
and that handler's body. Anything the patterns do not read is "it escapes".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from errdex.languages import spec_for
from errdex.models import RecordFacts, Site, SiteKind

# Handler types that catch any error a library raises.
_CATCH_ALL = frozenset({"", "...", "Exception", "BaseException", "Throwable", "Error",
                        "exception"})  # C++'s `catch (...)` and `std::exception`


def caught_at(site: Site) -> int | None:
    """The line of the handler in the site's own function that catches what the site
    raises and carries on without raising; None when the error leaves the function."""
    spec = spec_for(site.language)
    if spec.handlers is None or site.kind in (SiteKind.WARN, SiteKind.LOG):
        return None  # a warning is shown, a line logged, whatever catches errors around it
    opens, handles, raises, hands_on = (_compiled(p) for p in spec.handlers)
    lines = site.snippet.code.splitlines()
    start = site.snippet.start_line
    at = site.line - start
    if not 0 <= at < len(lines):
        return None
    floor = _indent(lines[at])
    opened = None
    for i in range(at - 1, -1, -1):
        line = lines[i]
        if not line.strip() or _indent(line) >= floor:
            continue
        floor = _indent(line)
        if opens.fullmatch(line.strip()):
            opened = i
            break
        if handles.fullmatch(line.strip()) or re.match(rf"{spec.function_keyword}\b",
                                                        line.strip()):
            return None  # inside a handler, or the function's start: no try holds it
    if opened is None:
        return None
    depth = _indent(lines[opened])
    for i in range(site.end_line - start + 1, len(lines)):
        line = lines[i]
        if not line.strip() or _indent(line) > depth or line.strip() in ("}", "})"):
            continue
        handler = handles.fullmatch(line.strip())
        short = (site.exception or "").rsplit(".", 1)[-1]
        if handler is None or not catches(handler.group("types"), frozenset({short})):
            return None
        body = []
        for rest in lines[i + 1:]:
            if rest.strip() and _indent(rest) <= depth:
                break
            body.append(rest.strip())
        if not body or any(raises.match(b) for b in body):
            return None  # it raises again (this error or another): the caller sees one
        said = " ".join(body)
        name = handler.group("name")
        if hands_on.search(said) or (name and re.search(rf"\b{re.escape(name)}\b", said)):
            return None  # printed, logged or handed to a callback: the user may see it
        return start + i
    return None


def caught_above(
    sites: Sequence[Site], handled: Sequence[int | None], known: RecordFacts | None
) -> list[tuple[str, ...]]:
    """For each site its own function does not catch, where its callers catch it (the
    facts' `caught_by`: every call of its private function is in a try that carries on)."""
    by_callers = {(sf.path, sf.line): sf.caught_by for sf in (known.sites if known else ())}
    return [by_callers.get((s.path, s.line), ()) if at is None else ()
            for s, at in zip(sites, handled, strict=True)]


def catches(types: str, raised: frozenset[str]) -> bool:
    """Whether a handler naming `types` (as written: `(nodes.Impossible, Exception)`)
    catches an error of a class whose name, or a base's, is in `raised`."""
    names = {re.split(r"::|\.", t)[-1] for t in re.split(r"[(),|\s]+", types)}
    names.discard("")
    if not names:
        return True  # a bare handler
    return bool(names & _CATCH_ALL) or bool(names & raised)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def rethrows(site: Site, handler_line: int) -> bool:
    """Whether the handler (starting at `handler_line`) that holds the site re-raises
    what it caught on its other path (a bare `raise` after the site's `if`)."""
    rethrow = spec_for(site.language).rethrow
    if rethrow is None:
        return False
    lines = site.snippet.code.splitlines()
    start = site.snippet.start_line
    if not start <= handler_line <= site.line < start + len(lines):
        return False
    depth = len(lines[handler_line - start]) - len(lines[handler_line - start].lstrip())
    for line in lines[site.end_line - start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= depth:
            return False  # the handler ended
        if re.fullmatch(rethrow, line.strip()):
            return True
    return False
