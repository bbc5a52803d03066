"""What a page says when an entry point raises the error inside a group error (its
handler keeps each error it catches and it raises them together afterwards,
errdex.analyze.grouped): the caller gets the group, so a handler for the error alone
does not catch it."""

from __future__ import annotations

from errdex.models import EntryPoint
from errdex.write.pagefacts import PageFacts


def entries(f: PageFacts) -> tuple[EntryPoint, ...]:
    """The entry points among the page's users that raise the error inside a group."""
    known = f.site_facts.entry_points if f.site_facts is not None else ()
    return tuple(e for user in f.users for e in known if e.function == user and e.group)


def call_group(f: PageFacts) -> EntryPoint | None:
    """The entry the page's call is of, when it hands the error on inside a group."""
    called = f.lifted.entry.function if f.lifted is not None else \
        f.users[0] if f.users else None  # fmt: skip
    return next((e for e in entries(f) if e.function == called), None)


def sentences(f: PageFacts) -> list[str]:
    """For each such entry, what its caller gets."""
    exc = f"`{f.exc_class or f.record.exception}`" if f.exc_class or f.record.exception \
        else "this error"  # fmt: skip
    out = []
    for entry in entries(f):
        group = entry.group or ""
        named = f" (\u201c{entry.group_message}\u201d)" if entry.group_message is not None \
            else ""  # fmt: skip
        article = "an" if group[:1] in tuple("AEIOUaeiou") else "a"
        out.append(f"Through `{entry.function}` it arrives inside {article} `{group}`{named}: "
                   f"its handler at {entry.path}:{entry.group_at} keeps each {exc} it catches "
                   "and it raises them together afterwards, so a handler for "
                   f"{exc} alone does not catch it; catch the group and look inside it.")
    return out
