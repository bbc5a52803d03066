"""A Python file's scopes: which function (or class body, or module) a node is in, the
assignments to each local name, the one in force at a node, and a function's parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tree_sitter import Node

from errdex.languages.python.state import PythonFile

_SCOPES = frozenset({"function_definition", "class_definition", "module"})
_CLAUSES = frozenset({"if_statement", "elif_clause", "else_clause"})
MAX_CHOICES = 8  # alternative messages read for one site
T = TypeVar("T")


class Scopes(PythonFile):
    def _scope_of(self, node: Node) -> Node | None:
        parent = node.parent
        while parent is not None and parent.type not in _SCOPES:
            parent = parent.parent
        return parent

    def _assignments_in(self, scope: Node) -> dict[str, list[Node]]:
        found = self._assignments.get(scope.id)
        if found is not None:
            return found
        table: dict[str, list[Node]] = {}
        body = scope.child_by_field_name("body") if scope.type != "module" else scope
        stack = list(reversed(body.children)) if body is not None else []
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("function_definition", "class_definition", "lambda"):
                continue
            if kind in ("assignment", "augmented_assignment"):
                left = node.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    table.setdefault(self.text(left), []).append(node)
            stack.extend(reversed(node.children))
        for nodes in table.values():
            nodes.sort(key=lambda n: n.start_byte)
        self._assignments[scope.id] = table
        return table

    def _assignment_before(self, name: str, at: Node) -> Node | None:
        best = self._last_assignment_before(name, at)
        if best is None:
            return None
        forced = self.forced.get(best.id)
        if forced is not None:
            return forced
        if self.branch_points is not None and best.id not in self.branch_points:
            branches = self._branch_assignments(name, best, at)
            if len(branches) > 1:
                self.branch_points[best.id] = branches
        return best

    def choices(self, read: Callable[[], T]) -> list[T]:
        """What `read` gives for each alternative of the first name it resolves that is
        assigned in several branches of one `if` (the branch in force last first), or its
        one result; at most MAX_CHOICES."""
        self.branch_points, self.forced = {}, {}
        try:
            results = [read()]
            points = self.branch_points
            self.branch_points = None
            for best, assignments in list(points.items())[:1]:
                for assignment in assignments[:-1][: MAX_CHOICES - 1]:
                    self.forced = {best: assignment}
                    results.append(read())
        finally:
            self.branch_points, self.forced = None, {}
        return results

    def _branch_assignments(self, name: str, best: Node, at: Node) -> list[Node]:
        """The last assignment to `name` in each branch of the innermost `if` whose branch
        holds `best`, in source order, where two branches or more assign it."""
        block = best.parent
        while block is not None and block.type not in _SCOPES:
            clause = block.parent
            if block.type == "block" and clause is not None and clause.type in _CLAUSES:
                statement = clause if clause.type == "if_statement" else clause.parent
                if statement is None:
                    return []
                bodies = [statement.child_by_field_name("consequence")]
                for alternative in statement.children_by_field_name("alternative"):
                    bodies.append(alternative.child_by_field_name("consequence")
                                  or alternative.child_by_field_name("body"))
                scope = self.scope if self.scope is not None else self._scope_of(at)
                assigned = self._assignments_in(scope).get(name, []) if scope else []
                picks: list[Node] = []
                for body in bodies:
                    inside = [a for a in assigned if body is not None
                              and body.start_byte <= a.start_byte and a.end_byte <= body.end_byte
                              and a.end_byte <= at.start_byte and a.type == "assignment"]
                    if inside:
                        picks.append(inside[-1])
                return picks
            block = clause
        return []

    def _last_assignment_before(self, name: str, at: Node) -> Node | None:
        scope = self.scope if self.scope is not None else self._scope_of(at)
        if scope is None:
            return None
        best: Node | None = None
        local = self._assignments_in(scope).get(name)
        if local is None and scope.type == "function_definition":
            # A module-level constant (`_MSG = "..."`), unless a parameter shadows it.
            if name in self._parameter_names(scope):
                return None
            module = scope
            while module.parent is not None:
                module = module.parent
            found = self._assignments_in(module).get(name)
            return found[-1] if found else None
        for node in local or ():
            if node.end_byte <= at.start_byte:
                best = node
            else:
                break
        return best

    def _parameter_names(self, function: Node, splats: bool = True) -> tuple[str, ...]:
        parameters = function.child_by_field_name("parameters")
        if parameters is None:
            return ()
        names: list[str] = []
        for param in parameters.named_children:
            kind = param.type
            ident: Node | None = None
            if kind == "identifier":
                ident = param
            elif kind == "typed_parameter" or (
                splats and kind in ("list_splat_pattern", "dictionary_splat_pattern")
            ):
                ident = next((c for c in param.named_children if c.type == "identifier"), None)
            elif kind in ("default_parameter", "typed_default_parameter"):
                ident = param.child_by_field_name("name")
            if ident is not None:
                names.append(self.text(ident))
        return tuple(names)

    def _walk_body(self, function: Node) -> list[Node]:
        """The nodes of a function's body, without nested functions and classes."""
        out: list[Node] = []
        body = function.child_by_field_name("body")
        stack = list(reversed(body.children)) if body is not None else []
        while stack:
            node = stack.pop()
            if node.type in ("function_definition", "class_definition", "lambda"):
                continue
            out.append(node)
            stack.extend(reversed(node.children))
        return out
