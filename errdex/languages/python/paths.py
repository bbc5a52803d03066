"""The whole path of conditions to a Python site, as a tree (errdex.extract.structure):
every enclosing `if`/`elif`/`else` (an `elif` or `else` after the branches before it
failed), `while`, `except`, `case`, and the earlier checks of the same function that
leave it before the site (`if c: raise ...`, `if c: return`, `assert c`).

The site's guard string (`conditions.Conditions.guard_of`) stays the innermost step, as
it was written before; this path is the structure analysis can read besides it.
"""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract import GUARD_CHARS, cut
from errdex.extract.paths import EarlierExits, steps_to
from errdex.extract.paths import negation as _not
from errdex.extract.paths import test as _test
from errdex.extract.structure import (
    ALL,
    ARM,
    EARLY_EXIT,
    EARLY_RETURN,
    ELSE,
    EXCEPT,
    IF,
    LOOP,
    MATCHES,
    MAX_STEPS,
    RAISED,
    RULE,
    Condition,
    SitePath,
    Step,
)
from errdex.languages.python.conditions import Conditions
from errdex.languages.python.lazy import OWN_SCOPES, holds_own
from errdex.languages.python.strings import _NOT_CODE, _compact

_STOP = OWN_SCOPES  # a path is walked up to the function (or lambda, class) it is in
_EXITS = frozenset({"raise_statement", "return_statement"})
_BLOCKS = frozenset({"block", "module"})
MAX_NESTED_RETURNS = 4  # returns inside one earlier `if` said as ways out; more: none said


def _leaves(block: Node | None) -> str | None:
    """How a block always leaves the function: it ends in a `raise` (EARLY_EXIT), a
    `return` (EARLY_RETURN), or an `if`/`elif`/`else` whose every branch leaves (EARLY_RETURN
    when one returns); None when it can go on after its last statement."""
    code = [c for c in block.named_children if c.type not in _NOT_CODE] if block else []
    last = code[-1] if code else None
    if last is None or last.type in _EXITS:
        return None if last is None else \
            EARLY_RETURN if last.type == "return_statement" else EARLY_EXIT  # fmt: skip
    branches = [c for c in last.named_children if c.type in ("elif_clause", "else_clause")]
    if last.type != "if_statement" or not branches or branches[-1].type != "else_clause":
        return None
    kinds = [_leaves(last.child_by_field_name("consequence")),
             *(_leaves(b.child_by_field_name("consequence" if b.type == "elif_clause" else "body"))
               for b in branches)]  # fmt: skip
    if None in kinds:
        return None
    return EARLY_RETURN if EARLY_RETURN in kinds else EARLY_EXIT


class Paths(Conditions):
    earlier: EarlierExits | None = None  # made on first use, one per file

    def record_path(self, node: Node, own: str | None = None) -> None:
        """Keep the path to the site (or construction) at `node`; `own` is the failing
        condition of the rule itself (`not (c)` for `assert c`), the last step."""
        line, end_line = node.start_point[0] + 1, node.end_point[0] + 1
        steps = self.steps_to(node)
        if own:
            steps.append(Step(RULE, _test(own), line))
        self.paths.append(SitePath(line, end_line, tuple(steps[-MAX_STEPS:])))

    def steps_to(self, node: Node) -> list[Step]:
        """The conditions that lead to `node`, outermost first."""
        return steps_to(node, _STOP, _BLOCKS, self._earlier_exits, self._steps_at)

    def _tree(self, node: Node) -> Condition | None:
        condition = node.child_by_field_name("condition")
        return _test(_compact(self.code(condition))) if condition is not None else None

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        kind, line = cur.type, cur.start_point[0] + 1
        if kind in ("if_statement", "elif_clause", "while_statement"):
            body = cur.child_by_field_name("body" if kind == "while_statement" else "consequence")
            tree = self._tree(cur)
            if child != body or tree is None:
                return []
            return [*self._branches_before(cur), Step(LOOP if kind == "while_statement" else IF,
                                                      tree, line)]  # fmt: skip
        if kind == "else_clause":
            owner = cur.parent
            if owner is None or owner.type != "if_statement":
                return []
            return self._branches_before(cur)
        if kind == "except_clause":
            caught = self._except_text(cur).removeprefix("except*").removeprefix("except")
            caught = caught.strip() or "BaseException"
            tried = self._tried(cur)
            condition = Condition(RAISED, cut(caught, GUARD_CHARS), tried) if tried else \
                _test(caught)  # fmt: skip
            return [Step(EXCEPT, condition, line)]
        if kind == "case_clause":
            return [Step(ARM, Condition(MATCHES, cut(self._case_text(cur), GUARD_CHARS)), line)]
        return []

    def _tried(self, clause: Node) -> str | None:
        """The one statement of the `try` that `clause` handles, as code: what raised when
        the handler runs (`testMethod = getattr(self, methodName)`); None for more."""
        statement = clause.parent
        body = statement.child_by_field_name("body") if statement is not None else None
        code = [c for c in body.named_children if c.type not in _NOT_CODE] if body else []
        if len(code) != 1 or code[0].type != "expression_statement":
            return None
        text = _compact(self.code(code[0]))
        return text if len(text) <= GUARD_CHARS else None

    def _branches_before(self, clause: Node) -> list[Step]:
        """For an `elif` or `else`: the `if` and every `elif` before it, each failed."""
        owner = clause.parent
        if clause.type == "if_statement" or owner is None or owner.type != "if_statement":
            return []
        steps: list[Step] = []
        for branch in [owner, *owner.children]:
            if branch == clause:
                break
            if branch is owner or branch.type == "elif_clause":
                tree = self._tree(branch)
                if tree is not None:
                    steps.append(Step(ELSE, _not(tree), branch.start_point[0] + 1))
        return steps

    def _earlier_exits(self, block: Node, child: Node) -> list[Step]:
        """The checks written before `child` in `block` that leave the function unless
        they hold, in source order."""
        if self.earlier is None:
            self.earlier = EarlierExits(self._exit_check, _NOT_CODE)
        return self.earlier.before(block, child)

    def _exit_check(self, statement: Node) -> Step | tuple[Step, ...] | None:
        line = statement.start_point[0] + 1
        if statement.type == "assert_statement" and statement.named_children:
            return Step(EARLY_EXIT, _test(_compact(self.code(statement.named_children[0]))), line)
        if statement.type == "try_statement":
            return self._tried_return(statement)
        if statement.type != "if_statement":
            return None
        kind = self._exit_kind(statement)
        if kind is not None:
            tree = self._tree(statement)
            return Step(kind, _not(tree), line) if tree is not None else None
        found: list[Step] = []
        if not self._returns_in_if(statement, (), found) or len(found) > MAX_NESTED_RETURNS:
            return None
        return tuple(found) or None

    def _returns_in_if(self, statement: Node, conditions: tuple[Condition, ...],
                       found: list[Step]) -> bool:  # fmt: skip
        """The `return`s inside the branches of an `if` (nested `if`s and `with`s too),
        each as the step a later site's path gets from it: not all of the conditions that
        lead to it held (`isinstance(state, tuple)`, then `len(state) == 6`). False when
        a return sits where its conditions cannot be said: in a loop, a `try`, a `match`."""
        failed: list[Condition] = []
        for branch in [statement, *statement.named_children]:
            if branch is not statement and branch.type not in ("elif_clause", "else_clause"):
                continue
            tree = self._tree(branch) if branch.type != "else_clause" else None
            if branch.type != "else_clause" and tree is None:
                return False
            body = branch.child_by_field_name("consequence" if tree is not None else "body")
            own = (*conditions, *failed, *((tree,) if tree is not None else ()))
            if body is None or not self._returns_in(body, own, found):
                return False
            if tree is not None:
                failed.append(_not(tree))
        return True

    def _returns_in(self, block: Node, conditions: tuple[Condition, ...],
                    found: list[Step]) -> bool:  # fmt: skip
        for statement in block.named_children:
            if statement.type == "return_statement":
                held = conditions[0] if len(conditions) == 1 else Condition(ALL, parts=conditions)
                found.append(Step(EARLY_RETURN, _not(held), statement.start_point[0] + 1))
                return True  # what follows a return in its block never runs
            if statement.type == "if_statement":
                if not self._returns_in_if(statement, conditions, found):
                    return False
            elif statement.type == "with_statement":
                body = statement.child_by_field_name("body")
                if body is not None and not self._returns_in(body, conditions, found):
                    return False
            elif statement.type not in _STOP and holds_own(statement, "return_statement"):
                return False
        return True

    def _exit_kind(self, statement: Node) -> str | None:
        """For an `if` with no other branch whose body always leaves the function: only by
        raising (EARLY_EXIT) or by a return too (EARLY_RETURN); None for any other `if`."""
        if statement.child_by_field_name("alternative") is not None:
            return None
        return _leaves(statement.child_by_field_name("consequence"))

    def _tried_return(self, statement: Node) -> Step | None:
        """`try: return X(a)` whose every handler only passes (`except E: pass`): the
        function returns there unless `X(a)` raised one of the caught errors, a way out
        as an `if c: return` is (ipaddress's `ip_interface` tries IPv4, then IPv6)."""
        body = statement.child_by_field_name("body")
        code = [c for c in body.named_children if c.type not in _NOT_CODE] if body else []
        if not code or code[-1].type != "return_statement" or not code[-1].named_children:
            return None
        caught = []
        for clause in statement.named_children:
            if clause.type in ("else_clause", "finally_clause"):
                return None
            if clause.type != "except_clause":
                continue
            block = next((c for c in clause.named_children if c.type == "block"), None)
            handled = [c for c in block.named_children if c.type not in _NOT_CODE] if block \
                else []  # fmt: skip
            if any(c.type != "pass_statement" for c in handled):
                return None
            caught.append(self._except_text(clause).removeprefix("except").strip())
        if not caught:
            return None
        returned = _compact(self.code(code[-1].named_children[0]))
        raised = cut(", ".join(c or "an exception" for c in caught), GUARD_CHARS)
        return Step(EARLY_RETURN, Condition(RAISED, raised, cut(returned, GUARD_CHARS)),
                    statement.start_point[0] + 1)
