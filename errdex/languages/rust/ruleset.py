"""The rules of one Rust run, indexed by form (macro, method, call), and the one query
built from them over `queries.scm` (errdex.extract.queries does the building)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Query

from errdex.extract import Rule
from errdex.extract.outline import outline_patterns
from errdex.extract.queries import build_query, quoted
from errdex.languages.rust import SPEC
from errdex.languages.rust.composed import SECTIONS as _COMPOSED

TS_LANGUAGE = TSLanguage(SPEC.grammar())
_QUERIES = SPEC.queries()
_GENERIC_ARGS = re.compile(r"<[^<>]*>")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

@dataclass(frozen=True)
class _RuleSet:
    macros: dict[str, Rule]
    methods: dict[str, Rule]
    calls: dict[str, list[Rule]]  # last path segment -> rules
    query: Query
    kinds: tuple[str, ...]  # what each pattern of `query` finds


def _normalize_path(text: str) -> str:
    text = re.sub(r"\s+", "", text)
    prev = None
    while prev != text:
        prev = text
        text = _GENERIC_ARGS.sub("", text)
    return text.replace("::::", "::")


@lru_cache(maxsize=16)
def _rule_set(rules: tuple[Rule, ...]) -> _RuleSet:
    macros: dict[str, Rule] = {}
    methods: dict[str, Rule] = {}
    calls: dict[str, list[Rule]] = {}
    for rule in rules:
        name = _normalize_path(rule.name).removesuffix("!")
        if rule.form == "macro":
            macros.setdefault(name.rsplit("::", 1)[-1], rule)
        elif rule.form == "method":
            methods.setdefault(name.rsplit(".", 1)[-1], rule)
        elif rule.form == "call":
            last = name.replace(".", "::").rsplit("::", 1)[-1]
            calls.setdefault(last, []).append(rule)
    wanted: list[tuple[str, dict[str, str]]] = [("attr", {})]
    if macros:
        names = quoted(sorted(macros))
        wanted += [("macro", {"names": names}), ("token", {"names": names})]
    if methods:
        wanted.append(("method", {"names": quoted(sorted(methods))}))
    if calls:
        wanted.append(("call", {"names": quoted(sorted(calls))}))
    alternatives = "|".join(name + "$" for name in sorted(calls) if _IDENTIFIER.match(name))
    regex = "^([A-Z]" + ("|" + alternatives if alternatives else "") + ")"
    wanted.append(("scoped", {"regex": regex}))
    wanted += [(kind, {}) for kind in ("struct", "unit", "enum", "item", "converted", *_COMPOSED)]
    query, kinds = build_query(TS_LANGUAGE, _QUERIES, wanted, outline_patterns(SPEC.language))
    return _RuleSet(macros=macros, methods=methods, calls=calls, query=query, kinds=kinds)
