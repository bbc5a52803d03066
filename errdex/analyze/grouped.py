"""Entry points that hand the error on inside a group error: the entry's handler catches
it, keeps it (in a list, or through an object's method) and the entry raises all it kept
together later (errdex.extract.structure's `Grouping`, `Collector`). The page then says
the caller gets the group, and its snippets catch the group, not the error alone."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from errdex.extract.structure import Collector, FileStructure
from errdex.models import EntryPoint, Site


def collectors(structures: Mapping[str, FileStructure]) -> dict[tuple[str, str], Collector]:
    """The repository's collector classes by (the method that keeps, the one that raises)."""
    return {(c.keeps, c.raises): c for s in structures.values() for c in s.collectors}


def grouped(
    entries: tuple[EntryPoint, ...], site: Site, structures: Mapping[str, FileStructure],
    known: Mapping[tuple[str, str], Collector], raised: Callable[[str], frozenset[str]],
    catches: Callable[[str, frozenset[str]], bool],
) -> tuple[EntryPoint, ...]:  # fmt: skip
    """`entries` with the group each raises the site's error inside, where one does."""
    if not site.exception or not any(s.groupings for s in (
            structures.get(e.path) for e in entries) if s is not None):  # fmt: skip
        return entries
    classes = raised(re.split(r"::|\.", site.exception)[-1])
    out = []
    for entry in entries:
        structure = structures.get(entry.path)
        for g in structure.groupings if structure is not None else ():
            if g.function_line != entry.line or not catches(g.types, classes):
                continue
            group, message = g.group, g.message
            if not group:  # through a collector's methods
                found = next((known[(g.keeps, r)] for r in g.raises if (g.keeps, r) in known),
                             None)  # fmt: skip
                if found is None:
                    continue
                group, message = found.group, message or found.message
            entry = replace(entry, group=group, group_message=message, group_at=g.line)
            break
        out.append(entry)
    return tuple(out)
