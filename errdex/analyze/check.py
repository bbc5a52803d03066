"""`errdex check`: every name a record's text cites must exist in the indexed code.

A name is an identifier inside `backticks` in the prose, or any identifier of the code
sections (example fix, defensive snippets). It is known when the repository's code or
tests have it (the stored vocabulary), when the record's own message or snippet has it,
when the snippet itself defines it (`fn x_ok`, `def is_x_error`, `let v`, `as e`), or when
it is part of the language. Facts-written pages must have no unknown names; the LLM
writer's sections are checked with the same function before they are accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from errdex.contract import explanation_to_dict, record_to_dict
from errdex.languages import spec_for
from errdex.models import Explanation, Language
from errdex.sections import Kind, checked_fields
from errdex.store import Store

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_DOUBLE_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_CODE_STRINGS = re.compile(r"""[rbfu]*"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)'""")
_DEFINES = re.compile(
    r"\b(?:fn|def|let(?:\s+mut)?|as|class|struct|for)\s+([A-Za-z_]\w*)|\|([A-Za-z_]\w*)\||"
    r"\b([A-Za-z_]\w*)\s*=(?!=)|\b([A-Za-z_]\w*)\s*@|\(([A-Za-z_]\w*)\)\s*(?:if|=>)"
)


@dataclass(frozen=True)
class UnknownName:
    record_id: str
    section: str  # "summary", "solutions", "defensive.try_catch", ...
    name: str


def _prose_names(text: str) -> set[str]:
    text = _DOUBLE_QUOTED.sub(" ", text)  # quoted messages are the code's own strings
    found: set[str] = set()
    for span in _BACKTICKED.findall(text):
        found.update(_IDENT.findall(span))
    return found


def _code_names(code: str, language: Language) -> tuple[set[str], set[str]]:
    """(names used, names the snippet defines itself)."""
    comment = re.compile(re.escape(spec_for(language).comment) + r"[^\n]*")
    code = _CODE_STRINGS.sub('""', comment.sub("", code))
    defined: set[str] = set()
    for m in _DEFINES.finditer(code):
        defined.update(g for g in m.groups() if g)
    # A function the snippet defines with its language's keyword (`func`, `function`; a
    # regex, as origins reads it: Java's is its return type, `boolean isXError(`).
    keyword = f"(?:{spec_for(language).function_keyword})"
    defined.update(re.findall(rf"\b{keyword}\s+([A-Za-z_]\w*)\s*(?=[(<\[])", code))
    # function parameters of a snippet-defined function: `fn x_ok(a: T, b: U)`, `(err error)`
    for params in re.findall(rf"\b(?:fn|def|{keyword})\s+\w+\s*\(([^)]*)\)", code):
        defined.update(p.split(":")[0].strip().lstrip("&*") for p in params.split(","))
        defined.update(w for p in params.split(",") for w in _IDENT.findall(p.split(":")[0]))
    return set(_IDENT.findall(code)), defined


def sections(explanation: Explanation | dict[str, Any]) -> Iterable[tuple[str, str, bool]]:
    """(section name, text, is code) of every checked text of an explanation or its JSON
    (`errdex.sections`), a list section's items one by one."""
    data = explanation if isinstance(explanation, dict) else _as_dict(explanation)
    for field in checked_fields():
        value: Any = data
        for key in field.path:
            value = (value or {}).get(key)
        if field.kind is Kind.LIST:
            for item in value or ():
                yield field.name, str(item), False
        else:
            yield field.name, str(value or ""), field.kind is Kind.CODE


def _as_dict(explanation: Explanation) -> dict[str, Any]:
    return explanation_to_dict(explanation)


def record_words(record: dict[str, Any]) -> frozenset[str]:
    """Identifiers the record's own data carries (message, snippets, guards, facts)."""
    texts = [record.get("message") or "", record.get("template") or "",
             record.get("exception") or "", record.get("repo") or ""]
    for site in record.get("sites", ()):
        texts += [site.get("snippet", {}).get("code", ""), site.get("function") or "",
                  site.get("guard") or "", site.get("path") or "", site.get("exception") or "",
                  site.get("variant") or ""]
    return frozenset(w for text in texts for w in _IDENT.findall(text))


def _values_of_types(used: set[str], known: frozenset[str]) -> set[str]:
    """Names a snippet uses for the caller's value of a known type: `tensor` for a
    `Tensor`, `var_builder` or `varBuilder` for a `VarBuilder` (the receiver of a user's
    method call)."""
    return {name for name in used if name[:1].islower() and (
        "".join(part.capitalize() for part in name.split("_")) in known
        or name[:1].upper() + name[1:] in known)}  # `commandInstance`, camelCase


def unknown_names(
    record: dict[str, Any], vocabulary: frozenset[str],
    explanation: Explanation | dict[str, Any] | None = None,
) -> list[UnknownName]:
    """The names `record`'s explanation (or the given one) cites that nothing defines."""
    explanation = explanation if explanation is not None else record.get("explanation")
    if not explanation:
        return []
    language = Language(record["language"])
    known = vocabulary | record_words(record) | spec_for(language).reserved_words
    out: list[UnknownName] = []
    for section, text, is_code in sections(explanation):
        if is_code:
            used, defined = _code_names(text, language)
            defined |= _values_of_types(used - known - defined, known)
        else:
            used, defined = _prose_names(text), set()
        for name in sorted(used - known - defined):
            if not name.isdigit() and name != "_":
                out.append(UnknownName(record["id"], section, name))
    return out


def check_store(store: Store, repo: str | None = None) -> dict[str, Any]:
    """Every unknown name in the stored records' text, by writer: the `check` report."""
    repos = [repo] if repo else [r.repo for r in store.repos()]
    found: list[dict[str, str]] = []
    checked = 0
    for name in repos:
        vocabulary = store.vocabulary(name)
        for row in store.records(name):
            record = record_to_dict(store.record(row.id))
            checked += 1
            writer = (record.get("explanation") or {}).get("source", "facts")
            for unknown in unknown_names(record, vocabulary):
                found.append({"id": unknown.record_id, "repo": name, "writer": writer,
                              "section": unknown.section, "name": unknown.name})
    return {"records": checked, "unknown": found,
            "facts_unknown": sum(1 for u in found if u["writer"] == "facts")}
