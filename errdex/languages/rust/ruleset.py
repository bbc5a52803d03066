"""The rules of one Rust run, indexed by form (macro, method, call), and the one query
built from them over `queries.scm` (errdex.extract.queries does the building)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Query

from errdex.extract import Rule
from errdex.languages.rust import SPEC

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


def _quote(names: Sequence[str]) -> str:
    return " ".join('"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"' for name in names)


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
    patterns: list[tuple[str, str]] = [("attr", _QUERIES["attr"])]
    if macros:
        names = _quote(sorted(macros))
        patterns.append(("macro", _QUERIES["macro"].replace("{names}", names)))
        patterns.append(("token", _QUERIES["token"].replace("{names}", names)))
    if methods:
        patterns.append(("method", _QUERIES["method"].replace("{names}", _quote(sorted(methods)))))
    if calls:
        patterns.append(("call", _QUERIES["call"].replace("{names}", _quote(sorted(calls)))))
    alternatives = "|".join(name + "$" for name in sorted(calls) if _IDENTIFIER.match(name))
    regex = "^([A-Z]" + ("|" + alternatives if alternatives else "") + ")"
    patterns.append(("scoped", _QUERIES["scoped"].replace("{regex}", regex)))
    patterns += [(kind, _QUERIES[kind]) for kind in ("struct", "unit", "enum", "item")]
    query = Query(TS_LANGUAGE, "\n".join(pattern for _, pattern in patterns))
    kinds = tuple(kind for kind, _ in patterns)
    return _RuleSet(macros=macros, methods=methods, calls=calls, query=query, kinds=kinds)
