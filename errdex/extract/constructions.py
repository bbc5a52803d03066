"""Constructions resolved to sites: a construction of a type that owns its message
(`Error::Foo {..}`, `raise ParseError(line, col)`) becomes a site of that message, with the
text it passes inlined (errdex.extract.compose); a raise of a library's own type whose
message is made at run time becomes a site found by its type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from errdex.extract import bounded_template
from errdex.extract.compose import compose
from errdex.extract.shared import is_literal
from errdex.languages import spec_for
from errdex.models import (
    Construction,
    FileExtraction,
    MessageDefinition,
    Placeholder,
    Site,
    SiteKind,
    Template,
)


def _common_prefix_len(a: str, b: str) -> int:
    parts_a, parts_b = a.split("/"), b.split("/")
    n = 0
    for x, y in zip(parts_a, parts_b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _last_segments(type_path: str) -> tuple[str | None, str]:
    parts = [p for p in type_path.replace("::", ".").split(".") if p]
    name = parts[-1] if parts else type_path
    owner = parts[-2] if len(parts) > 1 else None
    return owner, name


def resolve_constructions(extractions: Sequence[FileExtraction]) -> list[Site]:
    """Turn constructions of types that own a message into sites of that message.

    A construction `Error::Foo {..}` resolves to the definition named `Foo` whose owner
    is `Error` when the path names an owner; among several, the one defined nearest in
    the tree (longest shared directory prefix) wins, so each crate's `Error` stays its own.
    """
    by_name: dict[str, list[MessageDefinition]] = {}
    for extraction in extractions:
        for definition in extraction.definitions:
            by_name.setdefault(definition.name, []).append(definition)
    sites: list[Site] = []
    wrappers = [d for e in extractions for d in e.definitions if _wrapped(d)]
    for extraction in extractions:
        for built in extraction.constructions:
            if built.converts_into is not None:
                wrapper = _wrapper_of(built, wrappers)
                if wrapper is not None:
                    sites.append(_defined_site(built, wrapper))
                continue
            owner, name = _last_segments(built.type_path)
            candidates = [
                d
                for d in (by_name.get(name, []) if built.resolvable else [])
                if d.language is built.language
                and (owner is None or d.owner is None or d.owner == owner
                     or spec_for(built.language).can("classes_resolve_by_name"))
            ]
            if candidates:
                best = max(candidates, key=lambda d: _common_prefix_len(d.path, built.path))
                if built.message_given and not _prints_given(built, best):
                    continue  # `Cls(message="..")` over a default text: the call's is shown
                site = _defined_site(built, best)
                # `Error::Io(e)`: no text, but the wrapper's page names where it is built
                if site.template.literal_chars or best.template.literal_chars \
                        or _wrapped(best) is not None:
                    sites.append(site)
            elif built.raised and not built.message_given:
                sites.append(_typed_site(built, name))
    return sites


def _wrapped(definition: MessageDefinition) -> str | None:
    """The type a definition wraps whole, when its text is that value's own (`{source}`
    of `#[error(transparent)] Io(#[from] std::io::Error)`)."""
    template = definition.template
    if template.literal_chars or len(template.placeholders) != 1:
        return None
    wrapped = template.placeholders[0].expression  # a type, not a field (`{0}` of Msg)
    return wrapped if wrapped and wrapped not in definition.fields else None


def same_type(written: str, known: str) -> bool:
    """`io::Error` and `std::io::Error` name one type; a bare `Error` names none."""
    a, b = written.replace(".", "::").split("::"), known.replace(".", "::").split("::")
    shared = min(len(a), len(b))
    return a[-shared:] == b[-shared:] and (shared > 1 or a[-1] != "Error")


def _wrapper_of(built: Construction, wrappers: Sequence[MessageDefinition]
                ) -> MessageDefinition | None:
    """The definition a converted value becomes: one wrapping its type, of the error type
    its function returns (by name), or for the module's own result alias the one nearest
    in the tree, when only one error type there wraps it."""
    into = (built.converts_into or "").replace(".", "::").split("::")[-1]
    found = [d for d in wrappers if d.language is built.language
             and same_type(_wrapped(d) or "", built.type_path)
             and (not into or d.owner == into)
             and _common_prefix_len(d.path, built.path) > 0]  # fmt: skip
    if not found:
        return None
    near = max(_common_prefix_len(d.path, built.path) for d in found)
    nearest = [d for d in found if _common_prefix_len(d.path, built.path) == near]
    return nearest[0] if len({d.owner for d in nearest}) == 1 else None


def _site_at(built: Construction, **what: Any) -> Site:
    """A site where `built` stands; `what` says what is raised there."""
    return Site(language=built.language, path=built.path, line=built.line,
                end_line=built.end_line, function=built.function, guard=built.guard,
                snippet=built.snippet, **what)


def _typed_site(built: Construction, name: str) -> Site:
    """A raise of a library's own exception type whose message is made at run time: no
    text to match, but the type still names it (`configparser.DuplicateSectionError:`)."""
    arguments = ", ".join(value for _, value in built.field_values)
    # A class of this very file is named as Python prints it: `configparser.Error`.
    module = built.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return _site_at(
        built,
        kind=SiteKind.RAISE,
        exception=built.type_path if built.resolvable else f"{module}.{name}",
        template=Template(
            message=f"{name}: {{message}}",
            literals=("", ""),
            placeholders=(Placeholder("message", f"{name}({arguments})"),),
        ),
        variant=name,
    )


def _prints_given(built: Construction, definition: MessageDefinition) -> bool:
    """Whether the definition's text prints a text the construction passes (`{msg} at
    line {n}` does; a default text used only when no message is given does not)."""
    fields = definition.fields
    given = {fields[int(key)] if key.isdigit() and int(key) < len(fields) else key
             for key, _ in (*built.payloads, *built.field_values)}  # fmt: skip
    printed = {name for p in definition.template.placeholders
               for name in (p.name, p.expression.removeprefix("self."))}  # fmt: skip
    return bool(given & printed)


def _defined_site(built: Construction, definition: MessageDefinition) -> Site:
    fields = definition.fields
    bound = tuple(
        # A construction elsewhere knows arguments only by position; the definition
        # knows their names.
        (fields[int(name)] if name.isdigit() and int(name) < len(fields) else name, value)
        for name, value in built.field_values
        if is_literal(value)
    )
    spec = spec_for(definition.language)
    by_path = spec.can("variants_named_by_path")
    returned = by_path or spec.can("errors_propagate_by_return")  # a value, not a raise
    return _site_at(
        built,
        kind=SiteKind.ERROR_ENUM if returned else SiteKind.RAISE,
        exception=definition.exception or (f"{definition.owner}::{definition.name}"
                                           if by_path and definition.owner else definition.name),
        # Text passed for a field is inlined: both parts were bounded, their join is too.
        template=bounded_template(compose(definition.template, built.payloads, fields,
                                          inline_literals=definition.exception is not None)),
        bound=bound,
        variant=definition.name,
        variant_fields=fields if definition.attributes is None else definition.attributes,
    )
