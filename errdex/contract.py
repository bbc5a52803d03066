"""Records to and from the JSON contract, and that contract's JSON Schema.

The contract is the one shape every consumer reads (`show --json`, each match's `record`,
the web API, the MCP tools' structured output), and the store keeps exactly this JSON, so
what is stored, printed and served can't drift apart. Both directions and the schema are
read off the dataclasses of `errdex.models` by one walk over their type hints: a field's
JSON is its type's (a dataclass is an object of its fields, a tuple a list, a tuple of
`(str, X)` pairs an object, an enum its value, `X | None` may be null). Where the JSON
reshapes a type (a record carries its template's keys and its sites' permalinks), the
change is stated once in `SHAPES`, which the conversion and the schema both read. So the
schema is generated, never written by hand beside the code.

Response shapes that are no model of their own (a match with its record, what `explain`
returns) are small dataclasses here, converted and described the same way. This module
does no I/O and imports nothing but `errdex.models`.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, Literal

from errdex.models import (
    EntryPoint,
    Explanation,
    FailureClass,
    History,
    Language,
    Listing,
    Location,
    Match,
    OriginFact,
    Placeholder,
    Record,
    RecordFacts,
    Related,
    Repository,
    SiblingCheck,
    Site,
    SiteFacts,
    SiteKind,
    Snippet,
    Template,
    TestRef,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
Status = Literal["current", "removed"]


@dataclass(frozen=True)
class Shape:
    """How a dataclass's JSON differs from its fields: `omit` fields are left out,
    `inline` fields' objects are merged into this one, and `add` keys (with their types)
    are computed by the converter."""

    omit: tuple[str, ...] = ()
    inline: tuple[str, ...] = ()
    add: tuple[tuple[str, Any], ...] = ()


SHAPES: dict[type, Shape] = {
    # `template` is the named text ("shape {a} vs {b}"); literals are rebuilt from it.
    Template: Shape(omit=("literals",), add=(("template", str),)),
    # A site inside a record: its language and template are the record's.
    Site: Shape(omit=("language", "template"), add=(("url", str | None),)),
    # The record's sites carry their permalinks (`site_urls`); `status` says whether the
    # message is still in the code (facts.history.removed).
    Record: Shape(omit=("site_urls",), inline=("template",), add=(("status", Status),)),
}


# -- response shapes that are no model of their own ----------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """One match as `explain --json` gives it: where the record is in the text, the
    values it binds, and the whole record."""

    id: str
    score: float
    exact: bool
    values: tuple[tuple[str, str], ...]
    span: tuple[int, int]
    why: str
    site_index: int | None
    record: Record


@dataclass(frozen=True)
class ExplainResult:
    """The `errdex explain --json` shape: the text as read, its matches best first."""

    input: str
    matches: tuple[MatchResult, ...]


def match_result(match: Match, record: Record) -> MatchResult:
    return MatchResult(id=match.record_id, score=round(match.score, 4), exact=match.exact,
                       values=match.values, span=match.span, why=match.why,
                       site_index=match.site_index, record=record)


# -- to JSON -------------------------------------------------------------------------------


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _is_pairs(tp: Any) -> bool:
    """`tuple[tuple[str, X], ...]`: name -> value pairs, a JSON object."""
    if typing.get_origin(tp) is not tuple:
        return False
    args = typing.get_args(tp)
    if len(args) != 2 or args[1] is not Ellipsis or typing.get_origin(args[0]) is not tuple:
        return False
    inner = typing.get_args(args[0])
    return len(inner) == 2 and inner[0] is str


def to_json(value: Any, tp: Any = None) -> Any:
    """`value` as JSON-ready data, by the rules above; `tp` is its declared type where a
    field's type says more than its value (pairs)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _object_to_json(value)
    if isinstance(value, (tuple, list)):
        if tp is not None and _is_pairs(_non_null(tp)):
            return {str(k): to_json(v) for k, v in value}
        item = _item_type(tp)
        return [to_json(v, item) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    raise TypeError(f"no JSON for {type(value).__name__}")


def _non_null(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if _is_union(tp) and len(args) == 1 else tp


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _item_type(tp: Any) -> Any:
    tp = _non_null(tp) if tp is not None else None
    args = typing.get_args(tp) if tp is not None else ()
    return args[0] if len(args) == 2 and args[1] is Ellipsis else None


def _object_to_json(value: Any) -> dict[str, Any]:
    cls: type = type(value)
    shape = SHAPES.get(cls, Shape())
    hints = _hints(cls)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        if f.name in shape.omit:
            continue
        data = to_json(getattr(value, f.name), hints[f.name])
        if f.name in shape.inline:
            out.update(data)
        else:
            out[f.name] = data
    if cls is Template:
        out["template"] = value.text
    elif cls is Record:
        out["sites"] = [dict(site, url=url) for site, url in
                        zip(out["sites"], value.site_urls, strict=True)]
        out["status"] = status_of(value.facts)
    elif cls is Site:
        out["url"] = None  # a record's site gets its permalink above
    return out


def record_to_dict(record: Record) -> dict[str, Any]:
    return _object_to_json(record)


def explanation_to_dict(explanation: Explanation) -> dict[str, Any]:
    return _object_to_json(explanation)


def template_to_dict(template: Template) -> dict[str, Any]:
    return _object_to_json(template)


def status_of(facts: RecordFacts | None) -> str:
    """"removed" for a record kept after its message left the code, else "current"."""
    return "removed" if facts and facts.history and facts.history.removed else "current"


# -- from JSON -----------------------------------------------------------------------------

_NAMED_HOLE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def template_from_dict(data: dict[str, Any]) -> Template:
    """Rebuild a Template from its named text (`{{`/`}}` are literal braces)."""
    literals = [""]
    for piece in _pieces(data["template"]):
        if piece is None:
            literals.append("")
        else:
            literals[-1] += piece
    placeholders = tuple(from_json(Placeholder, p) for p in data.get("placeholders", []))
    return Template(message=data["message"], literals=tuple(literals), placeholders=placeholders)


def _pieces(text: str) -> list[str | None]:
    """Literal strings, and None where a hole stands."""
    out: list[str | None] = []
    pos = 0
    for found in _NAMED_HOLE.finditer(text):
        out.append(text[pos : found.start()])
        token = found.group(0)
        out.append("{" if token == "{{" else "}" if token == "}}" else None)
        pos = found.end()
    out.append(text[pos:])
    return out


def from_json(tp: Any, data: Any) -> Any:
    """Data of type `tp` from its JSON; a dataclass field missing from the JSON (stored by
    an older errdex) takes its default. Not for the reshaped types (`SHAPES`)."""
    if data is None:
        return None
    tp = _non_null(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _hints(tp)
        kwargs = {f.name: from_json(hints[f.name], data[f.name])
                  for f in dataclasses.fields(tp) if f.name in data}
        return tp(**kwargs)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(data)
    if _is_pairs(tp):
        return tuple((str(k), str(v)) for k, v in data.items())
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], v) for v in data)
        return tuple(from_json(a, v) for a, v in zip(args, data, strict=True))
    if tp is int:
        return int(data)
    return data


def _site_from_dict(data: dict[str, Any], language: Language, template: Template) -> Site:
    hints = _hints(Site)
    fields = {f.name: from_json(hints[f.name], data[f.name]) for f in dataclasses.fields(Site)
              if f.name in data and f.name not in ("language", "template")}
    return Site(language=language, template=template, **fields)


def record_from_dict(data: dict[str, Any]) -> Record:
    template = template_from_dict(data)
    language = Language(data["language"])
    hints = _hints(Record)
    plain = {f.name: from_json(hints[f.name], data[f.name]) for f in dataclasses.fields(Record)
             if f.name in data and f.name not in ("template", "sites", "site_urls", "facts")}
    plain["facts"] = from_json(RecordFacts, data.get("facts") or None)
    return Record(
        template=template,
        sites=tuple(_site_from_dict(s, language, template) for s in data["sites"]),
        site_urls=tuple(s.get("url") for s in data["sites"]),
        **plain,
    )


# -- the schema ----------------------------------------------------------------------------

# The named contracts `/api/schema` publishes (each a `$defs` entry); the web pages' and
# the service's response types are added by their modules through `contract_types`.
CONTRACTS: tuple[type, ...] = (Record, ExplainResult, MatchResult, Listing, Repository)
# Types reachable from the record that the schema must describe (by reference).
_MODELS = (Placeholder, Snippet, Explanation, Related, FailureClass, Location, RecordFacts,
           SiteFacts, OriginFact, SiblingCheck, EntryPoint, TestRef, History, SiteKind)


class _Schemas:
    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def of(self, tp: Any) -> dict[str, Any]:
        simple = {str: "string", int: "integer", float: "number", bool: "boolean",
                  type(None): "null"}
        if tp in simple:
            return {"type": simple[tp]}
        if tp is Any:
            return {}
        origin = typing.get_origin(tp)
        if _is_union(tp):
            options = [self.of(a) for a in typing.get_args(tp)]
            return {"anyOf": options}
        if origin is Literal:
            return {"enum": list(typing.get_args(tp))}
        if _is_pairs(tp):
            value = typing.get_args(typing.get_args(tp)[0])[1]
            return {"type": "object", "additionalProperties": self.of(value)}
        if origin is tuple:
            args = typing.get_args(tp)
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0])}
            return {"type": "array", "prefixItems": [self.of(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        if origin is list:
            return {"type": "array", "items": self.of(typing.get_args(tp)[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(typing.get_args(tp)[1])}
        if isinstance(tp, type) and issubclass(tp, Enum):
            self.defs.setdefault(tp.__name__, {"enum": [m.value for m in tp]})
            return {"$ref": f"#/$defs/{tp.__name__}"}
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            if tp.__name__ not in self.defs:
                self.defs[tp.__name__] = {}  # a placeholder first: types may nest
                self.defs[tp.__name__] = self._object(tp)
            return {"$ref": f"#/$defs/{tp.__name__}"}
        raise TypeError(f"no schema for {tp!r}")

    def _object(self, cls: type) -> dict[str, Any]:
        shape = SHAPES.get(cls, Shape())
        hints = _hints(cls)
        properties: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name in shape.omit:
                continue
            if f.name in shape.inline:
                inner = hints[f.name]
                self.of(inner)
                properties.update(self.defs[inner.__name__]["properties"])
            else:
                properties[f.name] = self.of(hints[f.name])
        for key, tp in shape.add:
            properties[key] = self.of(tp)
        if cls is Record:  # its sites carry their permalinks
            properties["sites"] = {"type": "array", "items": self.of(Site)}
        schema: dict[str, Any] = {"type": "object", "properties": properties,
                                  "required": list(properties), "additionalProperties": False}
        if cls.__doc__:
            schema["description"] = " ".join(cls.__doc__.split())
        return schema


_EXTRA: list[type] = []


def contract_types(*types_: type) -> None:
    """Publish more response types in the schema (a surface's page data)."""
    for tp in types_:
        if tp not in _EXTRA:
            _EXTRA.append(tp)
    schema.cache_clear()


@cache
def schema() -> dict[str, Any]:
    """The whole contract as one JSON Schema document: every type under `$defs`."""
    builder = _Schemas()
    for tp in (*CONTRACTS, *_MODELS, *_EXTRA):
        builder.of(tp)
    return {"$schema": SCHEMA_DIALECT, "$id": "errdex:contract", "title": "errdex JSON contract",
            "$defs": dict(sorted(builder.defs.items()))}


def schema_for(tp: Any) -> dict[str, Any]:
    """A standalone schema for one type (a dataclass, or e.g. `list[Listing]`), its
    references resolved through the whole document's `$defs`. A dataclass's own
    definition is the root (`"type": "object"`, as MCP's output schemas must be)."""
    builder = _Schemas()
    builder.defs = dict(schema()["$defs"])
    top = builder.of(tp)
    ref = top.get("$ref", "")
    if ref.startswith("#/$defs/") and "properties" in builder.defs[ref[8:]]:
        top = dict(builder.defs[ref[8:]])
    return {"$schema": SCHEMA_DIALECT, **top, "$defs": dict(sorted(builder.defs.items()))}


__all__ = [
    "CONTRACTS", "SHAPES", "ExplainResult", "MatchResult", "Shape", "contract_types",
    "explanation_to_dict", "from_json", "match_result", "record_from_dict", "record_to_dict",
    "schema", "schema_for", "status_of", "template_from_dict", "template_to_dict", "to_json",
]
