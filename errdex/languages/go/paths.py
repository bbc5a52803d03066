"""The whole path of conditions to a Go site, as a tree (errdex.extract.structure): every
enclosing `if`/`else if`/`else`, `switch` case (with the cases before it), `for` with a
condition, and the earlier checks of the same function that leave it before the site
(`if err != nil { return nil, err }`: an exit with an error; `if n == 0 { return nil,
nil }`: a normal return). Also the site's guard string: the innermost condition, as
written (`!(c)` for an `else`)."""

from __future__ import annotations

from tree_sitter import Node

from errdex.extract.paths import BlockPaths, arm_step, branch_step, exit_if
from errdex.extract.paths import negation as _not
from errdex.extract.paths import test as _test
from errdex.extract.structure import EARLY_EXIT, EARLY_RETURN, LOOP, Condition, Step
from errdex.languages.go.state import GoFile

_CASES = frozenset({"expression_case", "default_case", "type_case"})
_SWITCHES = frozenset({"expression_switch_statement", "type_switch_statement"})
_SKIP = frozenset({"comment"})


class Paths(GoFile, BlockPaths):
    stops = frozenset({"function_declaration", "method_declaration", "func_literal"})
    blocks = frozenset({"statement_list"})
    skip = _SKIP

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        step = self._step_at(cur, child)
        return [step] if step is not None else []

    def _step_at(self, cur: Node, child: Node) -> Step | None:
        line = cur.start_point.row + 1
        if cur.type == "if_statement":
            return branch_step(cur, child, self._condition(cur))
        if cur.type == "for_statement" and child == cur.child_by_field_name("body"):
            cond = next((c for c in cur.named_children if c.type not in ("block", "comment")
                         and c.type != "range_clause" and c.type != "for_clause"), None)
            return Step(LOOP, _test(self.code(cond)), line) if cond is not None else None
        if cur.type in _CASES and cur.parent is not None and cur.parent.type in _SWITCHES:
            return self._case_step(cur.parent, cur)
        return None

    def _case_step(self, switch: Node, case: Node) -> Step | None:
        """A case: its values (`tag == v`, or a tagless case's conditions) after every
        case before it failed; `default`: none of the others matched."""
        tag_node = switch.child_by_field_name("value")
        tag = self.code(tag_node) if tag_node is not None else ""

        def condition(of: Node) -> Condition | None:
            values = of.child_by_field_name("value")
            if values is None:
                return None
            texts = [self.code(v) for v in values.named_children if v.type not in _SKIP]
            if not texts:
                return None
            tests = [f"{tag} == {t}" if tag else t for t in texts]
            return _test(" || ".join(tests))

        parts: list[Condition] = []
        for other in switch.named_children:
            if other.type not in _CASES:
                continue
            if other == case:
                break
            before = condition(other)
            if before is not None:
                parts.append(_not(before))
        own = condition(case) if case.type != "default_case" else None
        if case.type == "default_case":
            others = [condition(o) for o in switch.named_children
                      if o.type in _CASES and o.type != "default_case"]  # fmt: skip
            parts = [_not(c) for c in others if c is not None]
        elif own is not None:
            parts.append(own)
        return arm_step(parts, case)

    def _condition(self, of: Node) -> str | None:
        cond = of.child_by_field_name("condition")
        return self.code(cond) if cond is not None else None

    def _exit_check(self, statement: Node) -> Step | None:
        return exit_if(statement, self._condition, self._exit_kind)

    def _exit_kind(self, body: Node) -> str | None:
        """How a block leaves the function: with an error (EARLY_EXIT: a `return` whose
        last value is not `nil`, a `panic`), normally (EARLY_RETURN), or not at all."""
        statements = [c for c in body.named_children if c.type not in _SKIP]
        if len(statements) == 1 and statements[0].type == "statement_list":
            statements = [c for c in statements[0].named_children if c.type not in _SKIP]
        if not statements:
            return None
        last = statements[-1]
        if last.type == "return_statement":
            values = last.named_children[0] if last.named_child_count else None
            items = values.named_children if values is not None else []
            if not items or items[-1].type == "nil":
                return EARLY_RETURN
            return EARLY_EXIT
        if last.type == "expression_statement" and last.named_child_count:
            call = last.named_children[0]
            function = call.child_by_field_name("function")
            if call.type == "call_expression" and function is not None \
                    and self.text(function) in ("panic", "log.Fatal", "log.Fatalf", "os.Exit"):
                return EARLY_EXIT
        return None

