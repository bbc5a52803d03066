"""What leads to a Python site: its qualified function (`module.Class.method`) and the
condition that guards it (`if`/`elif`/`else`, `except`, `case`)."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.code import code_text
from errdex.languages.python import SPEC
from errdex.languages.python.state import _MARKER, PythonFile
from errdex.languages.python.strings import _compact


class Conditions(PythonFile):
    def function_of(self, node: Node) -> str | None:
        names: list[str] = []
        parent = node.parent
        while parent is not None:
            if parent.type in ("function_definition", "class_definition"):
                name = parent.child_by_field_name("name")
                if name is not None:
                    names.append(self.text(name))
            parent = parent.parent
        parts = ([self.module] if self.module else []) + names[::-1]
        return ".".join(parts) or None

    def guard_of(self, node: Node) -> str | None:
        child = node
        parent = node.parent
        while parent is not None:
            kind = parent.type
            if kind in ("function_definition", "lambda", "class_definition"):
                return None
            if kind in ("if_statement", "elif_clause"):
                if child == parent.child_by_field_name("consequence"):
                    return self._condition(parent)
            elif kind == "else_clause":
                owner = parent.parent
                if owner is None:
                    return None
                if owner.type == "if_statement":
                    condition: str | None = self._condition(owner)
                    for sibling in owner.children:
                        if sibling == parent:
                            break
                        if sibling.type == "elif_clause":
                            condition = self._condition(sibling)
                    return f"not ({condition})" if condition else None
                if owner.type in ("for_statement", "while_statement"):
                    return None
            elif kind == "while_statement":
                if child == parent.child_by_field_name("body"):
                    return None
            elif kind == "except_clause":
                return self._except_text(parent)
            elif kind == "case_clause":
                return self._case_text(parent)
            child = parent
            parent = parent.parent
        return None

    def _condition(self, node: Node) -> str | None:
        condition = node.child_by_field_name("condition")
        return _compact(self.code(condition)) if condition is not None else None

    def _except_text(self, clause: Node) -> str:
        head = "except"
        for c in clause.children:
            if c.type == "*":
                head = "except*"
            elif c.is_named and c.type not in ("block", "comment", "line_continuation"):
                value = c
                if c.type == "as_pattern" and c.named_children:
                    value = c.named_children[0]
                return f"{head} {_compact(self.code(value))}"
        return head

    def _case_text(self, clause: Node) -> str:
        body = clause.child_by_field_name("consequence")
        end = body.start_byte if body is not None else clause.end_byte
        head = code_text(self.source, clause.start_byte, end, clause, SPEC.comment_nodes,
                         _MARKER).strip()  # fmt: skip
        head = head.removesuffix(":").strip()
        head = head.removeprefix("case").strip()
        match = clause.parent.parent if clause.parent is not None else None
        subject = match.child_by_field_name("subject") if match is not None else None
        subject_text = _compact(self.text(subject)) if subject is not None else "?"
        return f"match {subject_text}: case {_compact(head)}"
