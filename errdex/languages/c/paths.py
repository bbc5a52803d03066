"""The whole path of conditions to a C or C++ site, as a tree (errdex.extract.structure):
every enclosing `if`/`else`, `switch` case (after the cases before it), `while`/`for`
with a condition, C++ `catch` clauses, and the earlier checks of the same function that
leave it before the site (`if (!p) { PyErr_NoMemory(); return NULL; }`, `if (n < 0)
throw ..`: an exit with an error; `if (n == 0) return 0;`: a normal return; a checking
macro such as `assert(n > 0)`: a check that fails). Also the site's guard string: the
innermost condition, as written (`!(c)` for `else`)."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.paths import BlockPaths, arm_step, bare, branch_step, check_exit, exit_if
from errdex.extract.paths import negation as _not
from errdex.extract.paths import test as _test
from errdex.extract.shared import rule_guard
from errdex.extract.structure import EARLY_EXIT, EARLY_RETURN, EXCEPT, LOOP, Condition, Step
from errdex.languages.c.state import EXITS, FUNCTIONS, SKIP, CFile

_LEAVES = frozenset({"return_statement", "break_statement", "continue_statement",
                     "goto_statement"})  # fmt: skip
# Calls in a branch that make its exit an error (`PyErr_SetString(..); return NULL;`).
_ERROR_CALL = ("PyErr_", "Py_FatalError", "fprintf", "perror", "err", "errx")


class Paths(CFile, BlockPaths):
    stops = FUNCTIONS | {"field_declaration_list", "translation_unit"}
    blocks = frozenset({"compound_statement", "case_statement"})
    skip = SKIP

    def _condition(self, of: Node) -> str | None:
        cond = of.child_by_field_name("condition")
        if cond is None:
            return None
        if cond.type == "condition_clause":  # C++: `if (auto x = f(); x > 0)`
            value = cond.child_by_field_name("value")
            return self.code(value) if value is not None else bare(self.code(cond))
        return bare(self.code(cond))

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        line = cur.start_point.row + 1
        if cur.type == "if_statement":
            step = branch_step(cur, child, self._condition(cur))
            return [step] if step is not None else []
        if cur.type == "else_clause":  # tree-sitter-c 0.24: `else` holds the branch
            return []
        if cur.type in ("while_statement", "for_statement") and (
                child == cur.child_by_field_name("body")):
            cond = self._condition(cur)
            return [Step(LOOP, _test(cond), line)] if cond else []
        if cur.type == "catch_clause":
            params = cur.child_by_field_name("parameters")
            caught = params.named_children[0] if params is not None and \
                params.named_child_count else None  # fmt: skip
            kind = caught.child_by_field_name("type") if caught is not None else None
            return [Step(EXCEPT, _test(self.code(kind) if kind is not None else "..."), line)]
        if cur.type == "case_statement" and cur.parent is not None and \
                cur.parent.parent is not None and cur.parent.parent.type == "switch_statement":
            step = self._case_step(cur.parent.parent, cur.parent, cur)
            return [step] if step is not None else []
        return []

    def _case_step(self, switch: Node, block: Node, case: Node) -> Step | None:
        """A case: `tag == v` after every case before it failed; `default`: none of the
        others matched."""
        tag = self._condition(switch) or ""
        cases = [c for c in block.named_children if c.type == "case_statement"]

        def value(of: Node) -> str | None:
            v = of.child_by_field_name("value")
            return self.code(v) if v is not None else None

        def test(text: str) -> Condition:
            return _test(f"{tag} == {text}" if tag else text)

        own = value(case)
        if own is None:
            parts = [_not(test(v)) for c in cases if c != case if (v := value(c))]
        else:
            before = [v for c in cases[: cases.index(case)] if (v := value(c))]
            parts = [*(_not(test(v)) for v in before), test(own)]
        return arm_step(parts, case)

    def _exit_check(self, statement: Node) -> Step | None:
        return check_exit(statement, "call_expression", self.check_condition) or exit_if(
            statement, self._condition, self._exit_kind)

    def _exit_kind(self, body: Node) -> str | None:
        """How a branch leaves the function: by a `throw`, an exit call, or a return
        after setting an error (EARLY_EXIT); a plain `return`, `break`, `continue` or
        `goto` (EARLY_RETURN: no error); or not at all."""
        statements = [c for c in body.named_children if c.type not in SKIP] \
            if body.type == "compound_statement" else [body]  # fmt: skip
        if not statements:
            return None
        last = statements[-1]
        if last.type == "throw_statement" or self._calls_exit(last):
            return EARLY_EXIT
        if last.type not in _LEAVES:
            return None
        errors = any(s.type == "expression_statement" and s.named_child_count
                     and s.named_children[0].type == "call_expression"
                     and self.call_name(s.named_children[0]).startswith(_ERROR_CALL)
                     for s in statements[:-1])  # fmt: skip
        return EARLY_EXIT if errors else EARLY_RETURN

    def _calls_exit(self, statement: Node) -> bool:
        if statement.type != "expression_statement" or not statement.named_child_count:
            return False
        call = statement.named_children[0]
        return call.type == "call_expression" and self.call_name(call) in EXITS

    def check_condition(self, call: Node) -> str | None:
        """The failing condition of a checking call (`assert(ok)` fails when `!(ok)`),
        from its rule's `guard_arg`/`guard_op`; None for a call that checks nothing."""
        name = self.call_name(call)
        rule = self.rule_for(name) if name else None
        args = self.arguments(call)
        if rule is None or not args or (rule.guard_arg is None and rule.guard_op is None):
            return None
        texts = [self.code(a) for a in args]
        if rule.guard_arg is not None and rule.guard_arg < len(args):
            texts[rule.guard_arg] = self.code(checked_part(args[rule.guard_arg]))
            text = texts[rule.guard_arg]
            if text.startswith("!") and text[1:].replace("_", "").replace(".", "").replace(
                    "->", "").isalnum():
                return text[1:]  # `assert(!closed)` fails when `closed`
        return rule_guard(rule, texts, self.spec.negated)


def checked_part(cond: Node) -> Node:
    """What an assertion checks, without the message it carries: `n > 0 && "msg"` ->
    `n > 0` (the string is always true)."""
    cur = cond
    while cur.type == "binary_expression":
        right = cur.child_by_field_name("right")
        left = cur.child_by_field_name("left")
        op = cur.child_by_field_name("operator")
        if right is None or left is None or op is None or op.type != "&&":
            break
        if right.type in ("string_literal", "concatenated_string"):
            cur = left
        elif left.type in ("string_literal", "concatenated_string"):
            cur = right
        else:
            break
    if cur.type == "parenthesized_expression" and cur.named_child_count == 1:
        return cur.named_children[0] if cur is not cond else cur
    return cur


__all__ = ["EARLY_EXIT", "EARLY_RETURN", "EXITS", "Paths", "checked_part"]
