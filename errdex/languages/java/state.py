"""One Java file being extracted: its source, its call rules, what was found so far, and
the text helpers every part of the extractor uses."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.filestate import FileState
from errdex.languages.java import SPEC

# Blocks that own methods: a method is `Owner.name`, the innermost owner.
OWNERS = frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                    "record_declaration"})  # fmt: skip
METHODS = frozenset({"method_declaration", "constructor_declaration",
                     "compact_constructor_declaration"})  # fmt: skip

# Checks that fail on a null first argument (`Objects.requireNonNull(x, "..")`).
NULL_CHECKS = frozenset({"requireNonNull", "checkNotNull", "notNull"})


class JavaFile(FileState):
    """Everything about one file being extracted."""

    def __init__(self, path: str, source: bytes, rules: Sequence[Rule]) -> None:
        super().__init__(SPEC, path, source, rules)
        self.local_classes: set[str] = set()  # exception classes this file declares
        self.helpers: set[str] = set()  # methods of this file that build an exception

    def rule_for(self, name: str) -> Rule | None:
        """The rule of a called name as written: the whole name, else its last two
        segments (`com.google.common.base.Preconditions.checkArgument`)."""
        rule = self.rules.get(name)
        if rule is None and name.count(".") > 1:
            rule = self.rules.get(".".join(name.rsplit(".", 2)[-2:]))
        return rule

    def function_of(self, node: Node) -> str | None:
        """`Owner.method` (a constructor is `Owner.Owner`), the innermost class, interface,
        enum or record being the owner; a lambda counts as the method it is written in."""
        cur: Node | None = node.parent
        while cur is not None:
            if cur.type in METHODS:
                name = cur.child_by_field_name("name")
                owner = self.owner_of(cur)
                if name is None:
                    return None
                return f"{owner}.{self.text(name)}" if owner else self.text(name)
            cur = cur.parent
        return None

    def owner_of(self, node: Node) -> str | None:
        cur = node.parent
        while cur is not None:
            if cur.type in OWNERS:
                name = cur.child_by_field_name("name")
                return self.text(name) if name is not None else None
            cur = cur.parent
        return None


def type_name(text: str) -> str:
    """A type as written, without generics or annotations: `Foo.Bar<T>` -> `Foo.Bar`."""
    return re.sub(r"\s+", "", re.sub(r"@\w+(?:\([^)]*\))?", "", text.split("<", 1)[0]))
