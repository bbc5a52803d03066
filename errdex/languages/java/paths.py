"""The whole path of conditions to a Java site, as a tree (errdex.extract.structure):
every enclosing `if`/`else if`/`else`, `switch` case (old `case 1:` groups and new `case
1, 2 ->` rules, each after the cases before it), `while`/`for` with a condition, `catch`
clauses, and the earlier checks of the same method that leave it before the site (`if
(x == null) throw ..`: an exit with an error; `if (xs.length == 0) return xs;`: a normal
return; `Objects.requireNonNull(x, ..)`/`checkArgument(ok, ..)`: a check that throws).
Also the site's guard string: the innermost condition, as written (`!(c)` for `else`)."""

from __future__ import annotations

import re

from tree_sitter import Node

from errdex.extract.paths import BlockPaths, arm_step, bare, branch_step, check_exit, exit_if
from errdex.extract.paths import negation as _not
from errdex.extract.paths import test as _test
from errdex.extract.shared import rule_guard
from errdex.extract.structure import EARLY_EXIT, EARLY_RETURN, EXCEPT, LOOP, Condition, Step
from errdex.languages.java import SPEC
from errdex.languages.java.state import METHODS, NULL_CHECKS, JavaFile

_SKIP = frozenset({"line_comment", "block_comment"})
_NEGATED_NAME = re.compile(r"!\s*[A-Za-z_][\w.]*(?:\(\))?")
_GROUPS = frozenset({"switch_block_statement_group", "switch_rule"})


class Paths(JavaFile, BlockPaths):
    stops = METHODS | {"lambda_expression", "static_initializer", "class_body"}
    blocks = frozenset({"block", "constructor_body", "switch_block_statement_group"})
    skip = _SKIP

    def _condition(self, of: Node) -> str | None:
        cond = of.child_by_field_name("condition")
        return bare(self.code(cond)) if cond is not None else None

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        line = cur.start_point.row + 1
        if cur.type == "if_statement":
            step = branch_step(cur, child, self._condition(cur))
            return [step] if step is not None else []
        if cur.type in ("while_statement", "for_statement") and (
                child == cur.child_by_field_name("body")):
            cond = self._condition(cur)
            return [Step(LOOP, _test(cond), line)] if cond else []
        if cur.type == "catch_clause":
            caught = next((c for c in cur.named_children if c.type == "catch_formal_parameter"),
                          None)  # fmt: skip
            types = [self.code(t) for t in caught.named_children
                     if t.type == "catch_type"] if caught is not None else []  # fmt: skip
            return [Step(EXCEPT, _test(types[0] if types else "Exception"), line)]
        if cur.type in _GROUPS and cur.parent is not None and cur.parent.parent is not None:
            step = self._case_step(cur.parent.parent, cur.parent, cur)
            return [step] if step is not None else []
        return []

    def _labels(self, group: Node) -> list[Node]:
        return [c for c in group.named_children if c.type == "switch_label"]

    def _case_step(self, switch: Node, block: Node, group: Node) -> Step | None:
        """A case: its values (`tag == v`) after every case before it failed; `default`:
        none of the others matched. Old-style groups that fall through share the code of
        the labels before them (`case 1: case 2: return xs;`)."""
        tag_node = switch.child_by_field_name("condition")
        tag = bare(self.code(tag_node)) if tag_node is not None else ""
        groups = [g for g in block.named_children if g.type in _GROUPS]

        def values(of: Node) -> list[str] | None:  # None: the default
            found: list[str] = []
            for label in self._labels(of):
                named = [c for c in label.named_children if c.type not in _SKIP]
                if not named:
                    return None
                found.extend(self.code(v) for v in named)
            return found

        def test(texts: list[str]) -> Condition:
            return _test(" || ".join(f"{tag} == {t}" if tag else t for t in texts))

        at = groups.index(group) if group in groups else -1
        if at < 0:
            return None
        own = values(group)
        start = at  # the labels that fall into this group's code
        while start > 0 and not self._has_code(groups[start - 1]):
            start -= 1
        if own is not None:
            for earlier in groups[start:at]:
                more = values(earlier)
                if more is None:
                    own = None
                    break
                own = more + own
        others = [v for g in groups if g not in groups[start : at + 1]
                  if (v := values(g)) is not None]  # fmt: skip
        if own is None:
            parts = [_not(test(v)) for v in others if v]
        else:
            before = [v for g in groups[:start] if (v := values(g))]
            parts = [*(_not(test(v)) for v in before), test(own)] if own else []
        return arm_step(parts, group)

    def _has_code(self, group: Node) -> bool:
        return any(c.type != "switch_label" and c.type not in _SKIP for c in group.named_children)

    def _exit_check(self, statement: Node) -> Step | None:
        return check_exit(statement, "method_invocation", self.check_condition) or exit_if(
            statement, self._condition, _exit_kind)

    def check_condition(self, call: Node) -> str | None:
        """The failing condition of a checking call (`checkArgument(ok, ..)` fails when
        `!(ok)`), from its rule's `guard_arg`; None for a call that checks nothing."""
        name = self.call_name(call)
        rule = self.rule_for(name) if name else None
        args = self.arguments(call)
        if rule is None or not args:
            return None
        if name.rsplit(".", 1)[-1] in NULL_CHECKS:
            return f"{self.code(args[0])} == null"
        texts = [self.code(a) for a in args]
        at = rule.guard_arg
        if at is not None and at < len(texts) and _NEGATED_NAME.fullmatch(texts[at]):
            return texts[at][1:]  # `checkState(!closed, ..)` fails when `closed`
        return rule_guard(rule, texts, SPEC.negated)

    def call_name(self, call: Node) -> str:
        """`Objects.requireNonNull` as written (whitespace dropped), `checkState` alone."""
        name = call.child_by_field_name("name")
        obj = call.child_by_field_name("object")
        if name is None:
            return ""
        written = self.text(name)
        return f"{''.join(self.text(obj).split())}.{written}" if obj is not None else written



def _exit_kind(body: Node) -> str | None:
    """How a branch leaves the method: by a `throw` (EARLY_EXIT), a `return`, `break` or
    `continue` (EARLY_RETURN: no error), or not at all."""
    statements = [c for c in body.named_children if c.type not in _SKIP] \
        if body.type == "block" else [body]  # fmt: skip
    if not statements:
        return None
    last = statements[-1].type
    if last == "throw_statement":
        return EARLY_EXIT
    if last in ("return_statement", "break_statement", "continue_statement"):
        return EARLY_RETURN
    return None

