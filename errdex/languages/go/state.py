"""One Go file being extracted: its source, its call rules, what was found so far, and
the text helpers every part of the extractor uses."""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.filestate import FileState
from errdex.languages.go import SPEC


class GoFile(FileState):
    """Everything about one file being extracted."""

    def __init__(self, path: str, source: bytes, rules: Sequence[Rule]) -> None:
        super().__init__(SPEC, path, source, rules)
        self.handled: set[int] = set()  # ids of calls already read as part of another
        self.returned: set[str] = set()  # names the file returns as they are (`return ErrX`)

    def function_of(self, node: Node) -> str | None:
        """`Type.Method` for a method (its receiver's type), `Name` for a function; a
        closure counts as the function it is written in."""
        cur: Node | None = node.parent
        while cur is not None:
            if cur.type == "function_declaration":
                name = cur.child_by_field_name("name")
                return self.text(name) if name is not None else None
            if cur.type == "method_declaration":
                name = cur.child_by_field_name("name")
                receiver = cur.child_by_field_name("receiver")
                owner = receiver_type(self.text(receiver)) if receiver is not None else None
                if name is None:
                    return None
                return f"{owner}.{self.text(name)}" if owner else self.text(name)
            cur = cur.parent
        return None


def receiver_type(text: str) -> str | None:
    """The type of a receiver as written: `(e *DimError)` -> `DimError`."""
    words = [w for w in text.split("[", 1)[0].replace("(", " ").replace(")", " ")
             .replace("*", " ").split() if w.isidentifier()]  # fmt: skip
    return words[-1] if words else None
