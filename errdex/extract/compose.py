"""Composed templates and where error types are defined.

A construction that passes formatted text for a field (`Error::Backend(format!("no {} kernel
for {}", dev, op))` behind `#[error("backend error {0}")]`, a helper `self.fail(f"bad {x}")`
whose exception prints its argument) shows users the type's display with that text inlined:
`backend error no {} kernel for {}`. `compose` builds that template; `attach_definitions`
gives each record of an error type the place its display text is written.

Language-neutral: it works on Templates, MessageDefinitions and Records only, and never
reads or parses a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from errdex.models import (
    FileExtraction,
    Location,
    MessageDefinition,
    Placeholder,
    Record,
    Site,
    Snapshot,
    Template,
)


def compose(
    template: Template, payloads: Sequence[tuple[str, Template]], fields: Sequence[str] = (),
    *, inline_literals: bool = False,
) -> Template:
    """`template` with each placeholder named by a payload replaced by that payload's text.

    A payload named by position (`"0"`) fills the field declared at that position. With
    `inline_literals` (a helper's argument is its message) plain literals are inlined too.

    A Debug hole (`{0:?}`) prints a string quoted, so its payload is inlined in quotes.
    Placeholder names stay unique: an inlined hole whose name is taken gets a suffix.
    """
    # A plain literal passed to a type with text of its own (`op: "matmul"`) stays a bound
    # value, so the type's sites stay one record; formatted text, or text for a type that
    # prints nothing else (`#[error("{0}")]`, a helper raising its argument), is inlined.
    by_field = {
        fields[int(name)] if name.isdigit() and int(name) < len(fields) else name: payload
        for name, payload in payloads
        if payload.literal_chars
        and (inline_literals or payload.placeholders or not template.literal_chars)
    }
    if not by_field or not any(_field(p, by_field) for p in template.placeholders):
        return template
    literals: list[str] = [template.literals[0]]
    holes: list[Placeholder] = []
    taken = {p.name for p in template.placeholders if not _field(p, by_field)}
    for hole, after in zip(template.placeholders, template.literals[1:], strict=True):
        payload = by_field.get(_field(hole, by_field))
        if payload is None:
            holes.append(hole)
            literals.append(after)
            continue
        inner = list(payload.literals)
        if "?" in hole.spec:
            inner[0] = '"' + inner[0]
            inner[-1] = inner[-1] + '"'
        literals[-1] += inner[0]
        for inner_hole, inner_after in zip(payload.placeholders, inner[1:], strict=True):
            holes.append(replace(inner_hole, name=_unique(inner_hole.name, taken)))
            literals.append(inner_after)
        literals[-1] += after
    composed = Template(message="", literals=tuple(literals), placeholders=tuple(holes))
    return replace(composed, message=composed.text)


def _field(hole: Placeholder, by_field: Mapping[str, Template]) -> str:
    """The field a hole prints (its expression, `self.` or `.` dropped, else its name),
    if a payload fills it; "" if none does."""
    expression = hole.expression.strip().removeprefix("self.").lstrip(".")
    for key in (expression, hole.name):
        if key in by_field:
            return key
    return ""


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.add(candidate)
    return candidate


_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9]$")  # SCREAMING_CASE: a named constant


def resolve_constants(
    sites: Sequence[Site], by_name: Mapping[str, list[MessageDefinition]]
) -> list[Site]:
    """Sites whose message is only a named constant's text (`panic!("{}", MSG)`,
    `.expect(MSG)`), with that text inlined; such a site whose constant isn't found is
    left out, as it has no text to match."""
    out: list[Site] = []
    for site in sites:
        if site.template.literal_chars:
            out.append(site)
            continue
        given: list[tuple[str, Template]] = []
        for hole in site.template.placeholders:
            name = re.split(r"::|\.", hole.expression.strip())[-1]
            found = [d for d in by_name.get(name, ()) if d.language is site.language
                     and not d.fields and not d.template.placeholders]
            if found:
                best = max(found, key=lambda d: _shared_dirs(d.path, site.path))
                given.append((hole.name, best.template))
        if given:
            out.append(replace(site, template=compose(site.template, given,
                                                      inline_literals=True)))
        elif not any(_CONSTANT.match(re.split(r"::|\.", p.expression.strip())[-1])
                     for p in site.template.placeholders):
            out.append(site)  # a typed site (`configparser.Error: {message}`): kept as it was
    return out


def definitions_by_name(
    extractions: Iterable[FileExtraction],
) -> dict[str, list[MessageDefinition]]:
    by_name: dict[str, list[MessageDefinition]] = {}
    for extraction in extractions:
        for definition in extraction.definitions:
            by_name.setdefault(definition.name, []).append(definition)
    return by_name


def attach_definitions(
    records: Sequence[Record], extractions: Sequence[FileExtraction], snapshot: Snapshot
) -> list[Record]:
    """Each record of an error variant or exception class, with the place its type's
    display text is written: the definition its first typed site was resolved to."""
    by_name = definitions_by_name(extractions)
    out: list[Record] = []
    for record in records:
        found = _definition_of(record, by_name)
        if found is None:
            out.append(record)
            continue
        url = snapshot.url_for(found.path, found.line)
        out.append(replace(record, definition=Location(found.path, found.line, url)))
    return out


def _definition_of(
    record: Record, by_name: Mapping[str, list[MessageDefinition]]
) -> MessageDefinition | None:
    for site in record.sites:
        if not site.variant:
            continue
        owner = None
        if site.exception and "::" in site.exception:
            owner = site.exception.rsplit("::", 2)[-2]
        candidates = [
            d
            for d in by_name.get(site.variant, ())
            if d.language is site.language and (owner is None or d.owner in (None, owner))
        ]
        if candidates:
            return max(candidates, key=lambda d: (_shared_dirs(d.path, site.path), -d.line))
    return None


def _shared_dirs(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n
