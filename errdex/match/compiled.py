"""What verification keeps of one template (`Compiled`), and how it is made from an entry.

The template's shape decides here, once, how much a match of it must cover (the whole
line for a short one, enough of it for a weak one); verifying a match against that is
`errdex.match.verify`'s job. Never changed once built, and never reads pasted text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from errdex.match.evidence import components, type_tail
from errdex.match.holes import hole_kinds
from errdex.match.near import literal_words
from errdex.models import MatchEntry

SHORT_TEMPLATE: Final = 4  # fewer literal non-space chars: must cover the whole message line
EDGE_TEMPLATE: Final = 16  # a hole at an end and fewer literal chars: must cover it too
# A template whose fixed text is one short word between holes that take anything
# (`{} must {}`) fits half the sentences there are: it is claimed exactly only where its
# literal text is at least this share of the line, and is a near miss otherwise.
WEAK_COVERAGE: Final = 0.25


@dataclass(slots=True)
class Compiled:
    """What verification needs of a template, kept small: a million of these stay in
    memory (specs, types and the word set are shared or recomputed, never copied).
    Never changed once built; not frozen, and with an __init__ of its own, because a
    million of them are made (see the note on errdex.match.paste's data classes)."""

    literals: tuple[str, ...]
    names: tuple[str, ...]  # the holes' names
    specs: tuple[str, ...]
    types: tuple[str, ...]
    empty_ok: tuple[bool, ...]
    single_line: tuple[bool, ...]  # per hole: its value can't span lines (all but `{:#?}`)
    literal_length: int  # every literal character, spaces included
    solid_chars: int  # literal non-space characters
    whole_line: bool  # too short to trust inside other text: must be the whole message
    weak: bool  # one short word and a hole that takes anything: see WEAK_COVERAGE
    exception: str | None
    sites: tuple[tuple[tuple[str, ...], int], ...]

    def __init__(
        self, literals: tuple[str, ...], names: tuple[str, ...], specs: tuple[str, ...],
        types: tuple[str, ...], empty_ok: tuple[bool, ...], single_line: tuple[bool, ...],
        literal_length: int, solid_chars: int, whole_line: bool, weak: bool,
        exception: str | None, sites: tuple[tuple[tuple[str, ...], int], ...]
    ) -> None:
        self.literals = literals
        self.names = names
        self.specs = specs
        self.types = types
        self.empty_ok = empty_ok
        self.single_line = single_line
        self.literal_length = literal_length
        self.solid_chars = solid_chars
        self.whole_line = whole_line
        self.weak = weak
        self.exception = exception
        self.sites = sites


@lru_cache(maxsize=65536)
def _single_line(specs: tuple[str, ...]) -> tuple[bool, ...]:
    return tuple("#?" not in spec for spec in specs)


def compile_entry(entry: MatchEntry, interned: dict[Any, Any]) -> Compiled:
    """`entry` as verification keeps it; `interned` shares equal tuples between entries."""
    template = entry.template
    specs = tuple(p.spec for p in template.placeholders)
    specs = interned.setdefault(specs, specs)
    names = tuple(p.name for p in template.placeholders)
    types, empty_ok = hole_kinds(specs)
    solid = sum(len(part) for lit in template.literals for part in lit.split())
    sites = tuple((components(path), line) for path, line in entry.sites)
    return Compiled(
        literals=template.literals,
        names=interned.setdefault(names, names),
        specs=specs,
        types=types,
        empty_ok=empty_ok,
        single_line=_single_line(specs),
        literal_length=sum(len(lit) for lit in template.literals),
        solid_chars=solid,
        # "interrupted", "unsupported dtype": a whole message, not words in a sentence.
        # `{!r} unclosed`, `closefd {}`: a few words and a hole that takes the rest.
        whole_line=solid < SHORT_TEMPLATE
        or (not template.placeholders and len(template.literals[0].split()) <= 2)
        or (solid < EDGE_TEMPLATE and len(template.literals) > 1
            and not (template.literals[0] and template.literals[-1])),
        weak=solid < EDGE_TEMPLATE and "any" in types
        and len(literal_words(template.literals)) <= 1,
        exception=type_tail(entry.exception),
        sites=interned.setdefault(sites, sites),
    )
