"""The sections of an error's page, declared once: their names (the fields of
`errdex.models.Explanation`, and so the keys of the contract's `explanation`), titles and
kinds, in the order a page shows them.

The facts writer fills these fields, the LLM writer asks a model for them (its answer's
schema is `answer_schema()`), the checker holds the names they cite to the code, the
terminal and the error page's template print them under these titles. A section added
here is a field added to `Explanation`; a test holds the two together.

Nothing here writes or renders anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    PROSE = "prose"  # one paragraph; code names in backticks
    LIST = "list"  # several short paragraphs
    CODE = "code"  # a snippet in the library's language


@dataclass(frozen=True)
class Part:
    """One text of a section made of several (the example fix's before and after)."""

    name: str
    title: str
    kind: Kind
    # Whether the checker holds the names it cites to the code (and so whether a model's
    # text may replace the facts writer's).
    checked: bool = True


@dataclass(frozen=True)
class Section:
    name: str  # the Explanation field
    title: str
    kind: Kind | None  # None: made of `parts`
    anchor: str  # the page element's id
    parts: tuple[Part, ...] = ()
    group: str = ""  # the heading of the block a page shows it in, if not its own title


SECTIONS: tuple[Section, ...] = (
    Section("summary", "Summary", Kind.PROSE, "summary"),
    Section("what_it_means", "What it means", Kind.PROSE, "meaning"),
    Section("solutions", "Solutions", Kind.LIST, "solutions"),
    Section("example_fix", "Example fix", None, "example-fix", parts=(
        Part("before", "Before", Kind.CODE), Part("after", "After", Kind.CODE))),
    Section("defensive", "Defensive patterns", None, "defensive", parts=(
        Part("strategy", "Strategy", Kind.PROSE, checked=False),
        Part("validate", "Validate before calling", Kind.CODE),
        Part("type_guard", "Type guard", Kind.CODE),
        Part("try_catch", "Try / catch", Kind.CODE))),
    Section("prevention", "Prevention", Kind.LIST, "prevention"),
    Section("trigger", "Trigger", Kind.PROSE, "when", group="When it happens"),
    Section("common_situations", "Common situations", Kind.LIST, "when",
            group="When it happens"),
)
BY_NAME = {section.name: section for section in SECTIONS}


@dataclass(frozen=True)
class Field:
    """A text a writer fills: `name` is dotted for a part ("example_fix.before")."""

    name: str
    title: str
    kind: Kind
    checked: bool = True

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split("."))


def fields() -> Iterator[Field]:
    """Every text of a page, in page order, a part as `section.part`."""
    for section in SECTIONS:
        if section.kind is not None:
            yield Field(section.name, section.title, section.kind)
        for part in section.parts:
            yield Field(f"{section.name}.{part.name}", part.title, part.kind, part.checked)


def checked_fields() -> Iterator[Field]:
    """The texts whose cited names must be in the code (and a model may rewrite)."""
    return (field for field in fields() if field.checked)


def answer_schema() -> dict[str, Any]:
    """The JSON Schema of a model's answer: every section, parts as an object."""
    text = {"type": "string"}
    listed = {"type": "array", "items": text}

    def of(kind: Kind) -> dict[str, Any]:
        return listed if kind is Kind.LIST else text

    properties: dict[str, Any] = {}
    for section in SECTIONS:
        if section.kind is not None:
            properties[section.name] = of(section.kind)
        else:
            properties[section.name] = {
                "type": "object", "additionalProperties": False,
                "required": [part.name for part in section.parts],
                "properties": {part.name: of(part.kind) for part in section.parts}}
    return {"type": "object", "additionalProperties": False,
            "required": [section.name for section in SECTIONS], "properties": properties}


def titles() -> dict[str, str]:
    """Section and part titles by (dotted) name, for renderers."""
    out = {section.name: section.title for section in SECTIONS}
    out.update({f.name: f.title for f in fields()})
    return out
