"""The whole path of conditions to a JavaScript site, as a tree
(errdex.extract.structure): every enclosing `if`/`else if`/`else`, ternary branch,
`switch` case (with the cases before it), `while`/`for` condition, and the earlier checks
of the same function that leave it before the site (`if (!x) throw ..`: an exit with an
error; `if (!x) return`: a normal return). Also the site's guard string: the innermost
condition, as written (`!(c)` for an `else`)."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.paths import BlockPaths, arm_step, branch_step, exit_if
from errdex.extract.paths import negation as _not
from errdex.extract.paths import test as _test
from errdex.extract.structure import EARLY_EXIT, EARLY_RETURN, LOOP, Condition, Step
from errdex.languages.javascript.state import ScriptFile

_SKIP = frozenset({"comment", "html_comment"})
_LOOPS = frozenset({"while_statement", "do_statement", "for_statement"})
_EXITS = frozenset({"process.exit", "process.abort"})


class Paths(ScriptFile, BlockPaths):
    stops = frozenset({"function_declaration", "generator_function_declaration",
                       "method_definition", "function_expression", "arrow_function",
                       "generator_function", "class_static_block"})  # fmt: skip
    blocks = frozenset({"statement_block", "switch_case", "switch_default", "program"})
    skip = _SKIP

    def condition(self, node: Node | None) -> str | None:
        """A condition as written, without the parentheses `if (..)` needs."""
        while node is not None and node.type == "parenthesized_expression" \
                and node.named_child_count == 1:  # fmt: skip
            node = node.named_children[0]
        return self.code(node) if node is not None else None

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        step = self._step_at(cur, child)
        return [step] if step is not None else []

    def _step_at(self, cur: Node, child: Node) -> Step | None:
        line = cur.start_point.row + 1
        if cur.type in ("if_statement", "ternary_expression"):
            return branch_step(cur, child, self.condition(cur.child_by_field_name("condition")))
        if cur.type in _LOOPS and child == cur.child_by_field_name("body"):
            cond = self.condition(cur.child_by_field_name("condition"))
            if cond is None or cond in ("", ";", "true"):
                return None
            return Step(LOOP, _test(cond.rstrip(";").strip()), line)
        if cur.type in ("switch_case", "switch_default") and child.type not in _SKIP \
                and cur.parent is not None and cur.parent.parent is not None:  # fmt: skip
            return self._case_step(cur.parent.parent, cur)
        return None

    def _case_step(self, switch: Node, case: Node) -> Step | None:
        """A case: `value === v` after every case before it failed; `default`: none of
        the others matched."""
        tag = self.condition(switch.child_by_field_name("value")) or ""
        body = switch.child_by_field_name("body")
        cases = [c for c in body.named_children if c.type == "switch_case"] if body else []

        def condition(of: Node) -> Condition | None:
            value = of.child_by_field_name("value")
            if value is None:
                return None
            return _test(f"{tag} === {self.code(value)}" if tag else self.code(value))

        parts: list[Condition] = []
        if case.type == "switch_default":
            parts = [_not(c) for c in map(condition, cases) if c is not None]
        else:
            for other in cases:
                if other == case:
                    break
                before = condition(other)
                if before is not None:
                    parts.append(_not(before))
            own = condition(case)
            if own is not None:
                parts.append(own)
        return arm_step(parts, case)

    def _exit_check(self, statement: Node) -> Step | None:
        return exit_if(statement, lambda s: self.condition(s.child_by_field_name("condition")),
                       self._exit_kind)

    def _exit_kind(self, body: Node) -> str | None:
        """How a branch leaves the function: with an error (EARLY_EXIT: a `throw`, a
        `return Promise.reject(..)`, `process.exit`), normally (EARLY_RETURN), or not."""
        last = body
        if body.type == "statement_block":
            statements = [c for c in body.named_children if c.type not in _SKIP]
            if not statements:
                return None
            last = statements[-1]
        if last.type == "throw_statement":
            return EARLY_EXIT
        if last.type == "return_statement":
            value = last.named_children[0] if last.named_child_count else None
            rejects = value is not None and self.text(value).startswith("Promise.reject(")
            return EARLY_EXIT if rejects else EARLY_RETURN
        if last.type == "expression_statement" and last.named_child_count:
            call = last.named_children[0]
            function = call.child_by_field_name("function")
            if call.type == "call_expression" and function is not None \
                    and self.text(function) in _EXITS:  # fmt: skip
                return EARLY_EXIT
        return None

