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
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, Literal

from errdex.models import (
    CommandFlag,
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
    Program,
    Record,
    RecordFacts,
    RecordVersion,
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


Convert = Callable[[Any], Any]
_PLAIN = (str, int, float, bool, type(None))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _is_pairs(tp: Any) -> bool:
    """`tuple[tuple[str, X], ...]`: name -> value pairs, a JSON object."""
    if typing.get_origin(tp) is not tuple:
        return False
    args = typing.get_args(tp)
    if len(args) != 2 or args[1] is not Ellipsis or typing.get_origin(args[0]) is not tuple:
        return False
    inner = typing.get_args(args[0])
    return len(inner) == 2 and inner[0] is str


def _is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _same(value: Any) -> Any:
    return value


# -- to JSON -------------------------------------------------------------------------------
# Each type's converter is worked out once from its hints (`_writer`) and kept: records are
# converted on every read, and walking type hints per value costs ten times the JSON parse.


def to_json(value: Any, tp: Any = None) -> Any:
    """`value` as JSON-ready data, by the rules above; `tp` is its declared type where a
    field's type says more than its value (pairs)."""
    if tp is None:
        if isinstance(value, (tuple, list)):
            return [to_json(v) for v in value]
        if isinstance(value, dict):
            return {str(k): to_json(v) for k, v in value.items()}
        kind: Any = type(value)
        return _writer(kind)(value)
    return _writer(tp)(value)


@cache
def _writer(tp: Any) -> Convert:
    if tp in _PLAIN or tp is Any or typing.get_origin(tp) is Literal:
        return _same
    if isinstance(tp, type) and issubclass(tp, Enum):
        return lambda v: v.value
    if _is_union(tp):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(options) == 1:
            inner = _writer(options[0])
            return lambda v: None if v is None else inner(v)
        return lambda v: None if v is None else to_json(v)  # by what it is
    if _is_pairs(tp):
        value = _writer(typing.get_args(typing.get_args(tp)[0])[1])
        return lambda v: {str(k): value(x) for k, x in v}
    origin = typing.get_origin(tp)
    if origin in (tuple, list):
        args = typing.get_args(tp)
        item = _writer(args[0]) if (len(args) == 2 and args[1] is Ellipsis) or origin is list \
            else None
        if item is not None:
            return lambda v: [item(x) for x in v]
        items = [_writer(a) for a in args]
        return lambda v: [w(x) for w, x in zip(items, v, strict=True)]
    if origin is dict:
        value = _writer(typing.get_args(tp)[1])
        return lambda v: {str(k): value(x) for k, x in v.items()}
    if _is_dataclass_type(tp):
        return _object_writer(tp)
    if tp in (dict, list, tuple):
        return lambda v: to_json(v, None) if not isinstance(v, type) else v
    raise TypeError(f"no JSON for {tp!r}")


def _object_writer(cls: type) -> Convert:
    shape = SHAPES.get(cls, Shape())
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.name not in shape.omit]
    # (name, its converter or None when the value is its JSON, whether it is inlined)
    plan: list[tuple[str, Convert | None, bool]] = []

    def write(value: Any) -> dict[str, Any]:
        if not plan:  # worked out on first use: types may refer to each other
            for name in names:
                writer = _writer(hints[name])
                plan.append((name, None if writer is _same else writer, name in shape.inline))
        out: dict[str, Any] = {}
        for name, convert, inline in plan:
            data = getattr(value, name)
            if convert is not None:
                data = convert(data)
            if inline:
                out.update(data)
            else:
                out[name] = data
        if cls is Template:
            out["template"] = value.text
        elif cls is Record:
            out["sites"] = [dict(site, url=url) for site, url in
                            zip(out["sites"], value.site_urls, strict=True)]
            out["status"] = status_of(value.facts)
        elif cls is Site:
            out["url"] = None  # a record's site gets its permalink above
        return out

    return write


def record_to_dict(record: Record) -> dict[str, Any]:
    data: dict[str, Any] = _writer(Record)(record)
    return data


def explanation_to_dict(explanation: Explanation) -> dict[str, Any]:
    data: dict[str, Any] = _writer(Explanation)(explanation)
    return data


def template_to_dict(template: Template) -> dict[str, Any]:
    data: dict[str, Any] = _writer(Template)(template)
    return data


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
    placeholder = _reader(Placeholder)
    placeholders = tuple(placeholder(p) for p in data.get("placeholders", []))
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
    return _reader(tp)(data)


@cache
def _reader(tp: Any) -> Convert:
    if _is_union(tp):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = _reader(options[0]) if len(options) == 1 else _same
        return lambda v: None if v is None else inner(v)
    if tp is int:
        return lambda v: None if v is None else int(v)
    if tp in _PLAIN or tp is Any or typing.get_origin(tp) is Literal:
        return _same
    if isinstance(tp, type) and issubclass(tp, Enum):
        return lambda v: None if v is None else tp(v)
    if _is_pairs(tp):
        value = _reader(typing.get_args(typing.get_args(tp)[0])[1])
        return lambda v: tuple((str(k), value(x)) for k, x in v.items())
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _reader(args[0])
            return lambda v: tuple(item(x) for x in v)
        items = [_reader(a) for a in args]
        return lambda v: tuple(r(x) for r, x in zip(items, v, strict=True))
    if _is_dataclass_type(tp):
        return _object_reader(tp)
    return _same


def _object_reader(cls: type, skip: tuple[str, ...] = ()) -> Callable[..., Any]:
    """A dataclass from its JSON object; the fields in `skip` are the caller's to give
    (`read(data, **given)`)."""
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.name not in skip]
    plan: list[tuple[str, Convert | None]] = []

    def read(data: Any, **given: Any) -> Any:
        if data is None:
            return None
        if not plan:
            for name in names:
                reader = _reader(hints[name])
                plan.append((name, None if reader is _same else reader))
        for name, convert in plan:
            if name in data:
                value = data[name]
                given[name] = value if convert is None else convert(value)
        return cls(**given)

    return read


_read_site = _object_reader(Site, skip=("language", "template"))
_read_record = _object_reader(Record, skip=("template", "sites", "site_urls", "facts"))


def record_from_dict(data: dict[str, Any]) -> Record:
    template = template_from_dict(data)
    language = Language(data["language"])
    record: Record = _read_record(
        data, template=template,
        sites=tuple(_read_site(s, language=language, template=template) for s in data["sites"]),
        site_urls=tuple(s.get("url") for s in data["sites"]),
        facts=_reader(RecordFacts)(data.get("facts") or None),
    )
    return record


# -- the schema ----------------------------------------------------------------------------

# The named contracts `/api/schema` publishes (each a `$defs` entry); the web pages' and
# the service's response types are added by their modules through `contract_types`.
CONTRACTS: tuple[type, ...] = (Record, ExplainResult, MatchResult, Listing, Repository,
                                RecordVersion)
# Types reachable from the record that the schema must describe (by reference).
_MODELS = (Placeholder, Snippet, Explanation, Related, FailureClass, Location, RecordFacts,
           SiteFacts, OriginFact, SiblingCheck, EntryPoint, TestRef, History, SiteKind,
           Program, CommandFlag)


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
