"""`errdex check`: every name a record's text cites must exist in the indexed code.

A name is an identifier inside `backticks` in the prose, or any identifier of the code
sections (example fix, defensive snippets). It is known when the repository's code or
tests have it (the stored vocabulary), when the record's own message or snippet has it,
when the snippet itself defines it (`fn x_ok`, `def is_x_error`, `let v`, `as e`), or when
it is part of the language. Facts-written pages must have no unknown names; the LLM
writer's sections are checked with the same function before they are accepted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from errdex.contract import explanation_to_dict, record_to_dict
from errdex.languages import spec_for
from errdex.models import Explanation, Language
from errdex.sections import Kind, checked_fields
from errdex.store import Store
from errdex.write.commandline import SHELL_COMMENT, SHELL_WORDS

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHELL_START = re.compile(rf"\s*(?:{re.escape(SHELL_COMMENT)}|(?:cargo|python|if)\s)")
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


def _code_names(code: str, language: Language, shell: bool = False
                ) -> tuple[set[str], set[str]]:  # fmt: skip
    """(names used, names the snippet defines itself). `shell`: a program's page, whose
    code sections are the commands that run it (its flags and words are no names)."""
    marker = SHELL_COMMENT if shell else spec_for(language).comment
    comment = re.compile(re.escape(marker) + r"[^\n]*")
    code = _CODE_STRINGS.sub('""', comment.sub("", code))
    if shell:
        code = re.sub(r"(?<![\w-])-{1,2}[\w-]+|'[^']*'", " ", code)
    defined: set[str] = set()
    for m in _DEFINES.finditer(code):
        defined.update(g for g in m.groups() if g)
    # A function the snippet defines with a language's keyword (`func`, `function`; a
    # regex, as origins reads it: Java's is its return type, `boolean isXError(`); the
    # page's languages one at a time (a type-like keyword would eat another's `fn`)
    for keyword in (spec_for(each).function_keyword for each in _page_languages(language)):
        defined.update(re.findall(rf"\b(?:{keyword})\s+([A-Za-z_]\w*)\s*(?=[(<\[])", code))
    keyword = f"(?:{spec_for(language).function_keyword})"
    # function parameters of a snippet-defined function: `fn x_ok(a: T, b: U)`, `(err error)`,
    # `fn load<T>(produce: impl FnOnce() -> R)`
    for m in re.finditer(rf"\b(?:fn|def|{keyword})\s+\w+\s*(?:<[^<>()]*>)?\s*\(", code):
        for param in _parameters(code, m.end()):
            defined.update(_IDENT.findall(param.split(":")[0]))
    return set(_IDENT.findall(code)), defined


def _page_languages(language: Language) -> tuple[Language, ...]:
    """The languages a page of `language` writes code in: its own, then those its spec
    names (a Rust page catches a wasm `JsError` in JavaScript)."""
    return (language, *spec_for(language).snippet_languages)


@cache
def _page_words(language: Language) -> frozenset[str]:
    return frozenset().union(*(spec_for(each).reserved_words
                               for each in _page_languages(language)))


def _parameters(code: str, start: int) -> list[str]:
    """The parameters of a parameter list that opens just before `start`, split at its
    own commas (a `FnOnce() -> R` or `Vec<(A, B)>` inside one stays whole)."""
    depth, out, current = 1, [], list[str]()
    for char in code[start:].replace("->", "  "):  # a return arrow opens nothing
        depth += {"(": 1, "<": 1, "[": 1, ")": -1, ">": -1, "]": -1}.get(char, 0)
        if depth == 0:
            break
        if char == "," and depth == 1:
            out.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*out, "".join(current)]


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
    for facts in (record.get("facts") or {}).get("sites", ()):
        program = facts.get("program") or {}  # the command, its flags, their typed values
        texts += [program.get("command") or "", json.dumps(program.get("flags") or []),
                  json.dumps(program.get("values") or [])]
    return frozenset(w for text in texts for w in _IDENT.findall(text))


def _values_of_types(used: set[str], known: frozenset[str]) -> set[str]:
    """Names a snippet uses for the caller's value of a known type: `tensor` for a
    `Tensor`, `var_builder` or `varBuilder` for a `VarBuilder`, `bz2_file` for a `BZ2File`
    (the receiver of a user's method call)."""
    wanted = {name: name.replace("_", "").lower() for name in used if name[:1].islower()}
    if not wanted:
        return set()
    types = {k.lower() for k in known if k[:1].isupper()}  # `BZ2File` for `bz2_file`
    return {name for name, folded in wanted.items() if folded in types}


def unknown_names(
    record: dict[str, Any], vocabulary: frozenset[str],
    explanation: Explanation | dict[str, Any] | None = None,
) -> list[UnknownName]:
    """The names `record`'s explanation (or the given one) cites that nothing defines."""
    explanation = explanation if explanation is not None else record.get("explanation")
    if not explanation:
        return []
    language = Language(record["language"])
    programs = any(site.get("program") for site in (record.get("facts") or {}).get("sites", ()))
    known = vocabulary | record_words(record) | _page_words(language)
    out: list[UnknownName] = []
    for section, text, is_code in sections(explanation):
        # A program's page may write the commands that run it, in the shell
        shell = programs and is_code and bool(_SHELL_START.match(text))
        if is_code:
            used, defined = _code_names(text, language, shell)
            defined |= SHELL_WORDS if shell else set()
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
