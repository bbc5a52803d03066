"""One JavaScript or TypeScript file being extracted: its source, its call rules, what
was found so far, and the text helpers every part of the extractor uses."""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.filestate import FileState
from errdex.languages.javascript import SPEC
from errdex.models import Language, Template

_CLASSES = frozenset({"class_declaration", "class", "abstract_class_declaration"})
_NAMED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
_FUNCTION_VALUES = frozenset({"function_expression", "arrow_function", "generator_function"})
_FIELDS = frozenset({"field_definition", "public_field_definition"})


class ScriptFile(FileState):
    """Everything about one file being extracted (read with JavaScript's words, what it
    finds recorded as `language`'s)."""

    def __init__(self, language: Language, path: str, source: bytes,
                 rules: Sequence[Rule]) -> None:  # fmt: skip
        super().__init__(SPEC, path, source, rules)
        self.language = language
        self.error_classes: set[str] = set()  # this file's classes that extend an error
        # Their text and fields, for a class that extends one without a constructor.
        self.built: dict[str, tuple[Template, tuple[str, ...]]] = {}
        self.root: Node | None = None  # the file's tree, for names declared at the top
        self.top_level: dict[str, Node] | None = None  # those names, read once

    def function_of(self, node: Node) -> str | None:
        """`Class.method` for a method, `name` for a function or a function value bound
        to a name (`const parse = (..) => ..`, `exports.parse = function ..`, `{parse() ..}`);
        a callback passed along counts as the function it is written in."""
        cur: Node | None = node.parent
        while cur is not None:
            if cur.type in _NAMED_FUNCTIONS:
                return self._name(cur, "name")
            if cur.type == "method_definition" or cur.type in _FIELDS:
                name = self._name(cur, "name" if cur.type == "method_definition" else "property")
                owner = self.class_name(cur)
                return f"{owner}.{name}" if owner and name else name
            if cur.type in _FUNCTION_VALUES and cur.parent is not None:
                bound = self._bound_name(cur.parent, cur)
                if bound:
                    return bound
            cur = cur.parent
        return None

    def _name(self, node: Node, field: str) -> str | None:
        name = node.child_by_field_name(field)
        return self.text(name) if name is not None else None

    def _bound_name(self, parent: Node, value: Node) -> str | None:
        if parent.type == "variable_declarator" and parent.child_by_field_name("value") == value:
            name = parent.child_by_field_name("name")
            return self.text(name) if name is not None and name.type == "identifier" else None
        if parent.type == "assignment_expression" and parent.child_by_field_name("right") == value:
            left = parent.child_by_field_name("left")
            if left is not None and left.type == "member_expression":
                return self._name(left, "property")
            return self.text(left) if left is not None and left.type == "identifier" else None
        if parent.type == "pair" and parent.child_by_field_name("value") == value:
            key = parent.child_by_field_name("key")
            return self.text(key) if key is not None and key.type == "property_identifier" else None
        return None

    def class_name(self, node: Node) -> str | None:
        """The name of the class `node` is written in (a class expression: the name it is
        bound to)."""
        cur: Node | None = node.parent
        while cur is not None and cur.type not in _CLASSES:
            cur = cur.parent
        if cur is None:
            return None
        name = cur.child_by_field_name("name")
        if name is not None:
            return self.text(name)
        return self._bound_name(cur.parent, cur) if cur.parent is not None else None
