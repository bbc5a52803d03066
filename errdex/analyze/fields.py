"""The fields a site's path needs set on its method's receiver, and what the literals
that build that receiver put in them: a function that builds the value with such a field
left empty (`Op { mask: None, .. }`) never reaches a site behind `if let Some(m) =
self.mask`, and one that sets it from its own parameter (`mask: mask.cloned()`) reaches it
only as that argument says. The language says which conditions need a field set and
which literal holds no value (`Outline.needed_field`, `Outline.absent`); this module
knows no language and reads only the structure the extraction made.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from errdex.analyze.calldefs import Def
from errdex.extract.structure import ALL, ARM, IF, MATCHES, TEST, FileStructure
from errdex.models import Site

_NAME = re.compile(r"[A-Za-z_]\w*")


class LiteralFields:
    """The struct literals of a snapshot's functions and what each file's language needs
    to read a path's conditions on the receiver's fields."""

    def __init__(self) -> None:
        # (type, caller def index) -> the fields the caller's literal of the type sets
        self.literals: dict[tuple[str, int], tuple[tuple[str, str], ...]] = {}
        # path -> its structure and (the language's `needed_field`, its `absent` literal),
        # for the files of a language that has both
        self.presence: dict[str, tuple[FileStructure, Callable[[str, str, str], str | None],
                                       str]] = {}  # fmt: skip

    def needed(self, site: Site, d: Def) -> tuple[frozenset[str], str]:
        """The fields of the receiver of the site's method `d` that the enclosing
        branches and arms on its path need to hold a value (`if let Some(m) =
        self.mask.as_ref()`), with the language's literal for no value."""
        hooks = self.presence.get(site.path)
        if hooks is None or not d.owner or not d.receiver:
            return frozenset(), ""
        structure, needed_field, absent = hooks
        path = structure.path_at(site.line, site.end_line)
        found = set()
        for step in path.steps if path is not None else ():
            if step.kind not in (IF, ARM):
                continue
            c = step.condition
            for part in c.parts if c.kind == ALL else (c,):
                if part.kind in (TEST, MATCHES):
                    field = needed_field(part.subject if part.kind == MATCHES else "",
                                         part.text, d.receiver)
                    if field:
                        found.add(field)
        return frozenset(found), absent

    @staticmethod
    def read(site: Site, d: Def) -> frozenset[str]:
        """The fields of the receiver of the site's method `d` that its guard reads
        (`self.ids_l` of `Gather::f`): a literal that sets one from the caller's parameter
        makes the check one on that caller's argument, not on an object of the user's."""
        if not d.owner or not d.receiver or not site.guard:
            return frozenset()
        field = rf"(?<![\w.]){re.escape(d.receiver)}\.([A-Za-z_]\w*)\b(?!\s*\()"
        return frozenset(re.findall(field, site.guard))

    def leaves_empty(self, owner: str, caller: int, needed: frozenset[str],
                     absent: str) -> bool:  # fmt: skip
        """Whether the caller's literal of `owner` sets one of the `needed` fields to the
        literal for no value."""
        fields = dict(self.literals.get((owner, caller), ()))
        return any(fields.get(f, "").strip() == absent for f in needed)

    def set_from(self, owner: str, caller: Def, index: int, needed: frozenset[str]
                 ) -> tuple[tuple[str, str], ...]:  # fmt: skip
        """The `needed` fields the caller's literal of `owner` sets from one of the
        caller's own parameters (`mask: mask.cloned()`), with that parameter."""
        params = set(caller.params or ()) - {caller.receiver}
        out = []
        for field, value in self.literals.get((owner, index), ()):
            named = params.intersection(_NAME.findall(value))
            if field in needed and len(named) == 1:
                out.append((field, named.pop()))
        return tuple(out)
