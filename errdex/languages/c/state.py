"""One C or C++ file being extracted: its source, its call rules (with what the folder's
`rules.toml` says of each beyond the shared `Rule` fields), what was found so far, and
the text helpers every part of the extractor uses."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.filestate import FileState
from errdex.languages import spec_for
from errdex.models import Language

FUNCTIONS = frozenset({"function_definition", "lambda_expression"})
# Blocks that own methods (C++): a method is `Owner::name`, the innermost owner.
OWNERS = frozenset({"class_specifier", "struct_specifier", "namespace_definition"})
SKIP = frozenset({"comment"})
# Calls that end the process: a message printed to stderr before one is its last word.
EXITS = frozenset({"abort", "exit", "_exit", "_Exit", "quick_exit", "std::abort",
                   "std::exit", "std::terminate", "std::quick_exit", "::abort", "::exit"})
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


@cache
def rule_extras(language: Language) -> Mapping[str, Mapping[str, Any]]:
    """What the built-in rules say beyond `Rule`'s fields, by rule name: how the runtime
    prints the message (`printed`, `bare`), where its exception is named
    (`exception_arg`), how the message is given (`streamed`, `stream`), and when the call
    is an error at all (`to_stderr`, `needs_exit`, `levels`). A repository's own rules
    (errdex.toml) have only `Rule`'s fields."""
    entries = tomllib.loads(spec_for(language).rules_text()).get("rules", [])
    return {str(e["name"]): e for e in entries}


class CFile(FileState):
    """Everything about one file being extracted (`code`: its whitespace one space, as
    the preprocessor's `#x` writes an argument)."""

    def __init__(self, language: Language, path: str, source: bytes,
                 rules: Sequence[Rule]) -> None:  # fmt: skip
        super().__init__(spec_for(language), path, source, rules)
        self.language = language
        self.extras = rule_extras(language)
        given = {r.name: dict(r.details) for r in rules if r.details}
        if given:  # a discovered helper's: what its own body prints, where its class is
            self.extras = {**self.extras, **given}
        # Where a message made in a variable before its use starts: (first byte of the
        # variable's use, last byte, the line its making starts on).
        self.made_at: list[tuple[int, int, int]] = []
        self.local_classes: set[str] = set()  # exception classes this file declares
        self.defined: set[str] = set()  # of those, the ones whose constructor builds text

    def rule_for(self, name: str) -> Rule | None:
        """The rule of a called name as written, else of its last `::` segment
        (`c10::TORCH_CHECK` is rare, `::abort` common)."""
        rule = self.rules.get(name)
        if rule is None and "::" in name:
            rule = self.rules.get(name.rsplit("::", 1)[-1])
        return rule

    def function_of(self, node: Node) -> str | None:
        """`name` for a C function, `Owner::name` for a C++ method (its class, or the
        `Owner::` its out-of-class definition writes); a lambda counts as the function it
        is written in."""
        cur: Node | None = node.parent
        while cur is not None:
            if cur.type == "function_definition":
                name = declared_name(self, cur.child_by_field_name("declarator"))
                if name is None:
                    return None
                owner = self.owner_of(cur)
                return f"{owner}::{name}" if owner and "::" not in name else name
            cur = cur.parent
        return None

    def owner_of(self, node: Node) -> str | None:
        cur = node.parent
        while cur is not None:
            if cur.type in ("class_specifier", "struct_specifier"):
                name = cur.child_by_field_name("name")
                return self.text(name) if name is not None else None
            cur = cur.parent
        return None


def declared_name(file: CFile, declarator: Node | None) -> str | None:
    """The name a function declarator declares, through pointers and references:
    `*make_shape(int n)` -> `make_shape`, `Shape::reshape(int)` -> `Shape::reshape`."""
    cur = declarator
    while cur is not None and cur.type in ("pointer_declarator", "reference_declarator",
                                           "function_declarator", "parenthesized_declarator"):
        inner = cur.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in cur.named_children if c.type != "type_qualifier"), None)
        cur = inner
    if cur is None or cur.type not in ("identifier", "field_identifier", "qualified_identifier",
                                       "destructor_name", "operator_name"):
        return None
    return "".join(file.text(cur).split())


def parameter_names(file: CFile, declarator: Node | None) -> tuple[str, ...]:
    """The names a function declarator's parameters bind (`const std::string& got` ->
    `got`)."""
    cur = declarator
    while cur is not None and cur.type != "function_declarator":
        cur = cur.child_by_field_name("declarator")
    params = cur.child_by_field_name("parameters") if cur is not None else None
    names: list[str] = []
    for param in params.named_children if params is not None else ():
        inner = param.child_by_field_name("declarator")
        while inner is not None and inner.type != "identifier":
            inner = inner.child_by_field_name("declarator") or next(
                (c for c in inner.named_children if c.type == "identifier"), None)
        if inner is not None:
            names.append(file.text(inner))
    return tuple(names)


def type_name(text: str) -> str:
    """A type as written, without template arguments or whitespace:
    `std::basic_error<char>` -> `std::basic_error`."""
    while "<" in text and _TEMPLATE_ARGS.search(text):
        text = _TEMPLATE_ARGS.sub("", text)
    return "".join(text.split("<", 1)[0].split())
