"""The whole path of conditions to a Rust site, as a tree (errdex.extract.structure):
every enclosing `if`/`else if`/`else`, `match` arm (with the arms before it), `let ...
else`, `while`, and the earlier checks of the same function that return before the site
(`if c { return Err(..) }`, `if c { bail!(..) }`, `ensure!(c, ..)`, `let x = f()?;`).

The site's guard string (`conditions.Conditions.context`) stays the innermost step, as
it was written before; this path is the structure analysis can read besides it.
"""

from __future__ import annotations

import re

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
    IF,
    LET_ELSE,
    LOOP,
    MATCHES,
    MAX_STEPS,
    RULE,
    TRY,
    Condition,
    SitePath,
    Step,
)
from errdex.languages.rust.conditions import _CATCH_ALL, _GUARD_STOP, fallback_test
from errdex.languages.rust.messages import Messages
from errdex.languages.rust.state import _COMMENTS

_EXITS = frozenset({"return_expression"})
_BLOCKS = frozenset({"block"})


def _matches(subject: str, pattern: str) -> Condition:
    return Condition(MATCHES, cut(pattern, GUARD_CHARS), cut(subject, GUARD_CHARS))


class Paths(Messages):
    earlier: EarlierExits | None = None  # made on first use, one per file
    ancestor_steps: dict[tuple[int, int], Step | None] | None = None  # (ancestor, child) ids
    arms_failed: dict[int, tuple[dict[int, int], list[tuple[str, Condition]]]] | None = None

    def record_path(self, node: Node, line: int, end_line: int, own: str | None = None) -> None:
        """Keep the path to the site (or construction) at `node` spanning `line` to
        `end_line`; `own` is the failing condition of the rule itself (`!(c)` for
        `assert!(c)`), the last step."""
        path = self.path_of(node)
        steps = path.steps + ((Step(RULE, _test(own), line),) if own else ())
        self.paths.append(SitePath(line, end_line, steps[-MAX_STEPS:]))

    def path_of(self, node: Node) -> SitePath:
        """The conditions that lead to `node`, outermost first."""
        steps = steps_to(node, _GUARD_STOP, _BLOCKS, self._earlier_exits, self._steps_at)
        return SitePath(node.start_point.row + 1, node.end_point.row + 1,
                        tuple(steps[-MAX_STEPS:]))  # fmt: skip

    def _condition_tree(self, cond: Node) -> Condition:
        if cond.type == "let_condition":
            pattern = cond.child_by_field_name("pattern")
            value = cond.child_by_field_name("value")
            if pattern is not None and value is not None:
                return _matches(self.code(value), self.code(pattern))
        return _test(self.code(cond))

    def _steps_at(self, cur: Node, child: Node) -> list[Step]:
        """The step `cur` adds for the `child` it holds, read once per file: the sites
        of one function share their ancestors (and a match's arms re-read every arm
        before theirs)."""
        if self.ancestor_steps is None:
            self.ancestor_steps = {}
        key = (cur.id, child.id)
        if key in self.ancestor_steps:
            step = self.ancestor_steps[key]
        else:
            step = self.ancestor_steps[key] = self._step_at(cur, child)
        return [step] if step is not None else []

    def _step_at(self, cur: Node, child: Node) -> Step | None:
        kind, line = cur.type, cur.start_point.row + 1
        if kind in ("if_expression", "while_expression"):
            cond = cur.child_by_field_name("condition")
            if cond is None:
                return None
            if child == cur.child_by_field_name("consequence" if kind == "if_expression"
                                                else "body"):  # fmt: skip
                return Step(IF if kind == "if_expression" else LOOP,
                            self._condition_tree(cond), line)  # fmt: skip
            if child == cur.child_by_field_name("alternative"):
                return Step(ELSE, _not(self._condition_tree(cond)), line)
            return None
        if kind == "let_declaration" and child == cur.child_by_field_name("alternative"):
            pattern = cur.child_by_field_name("pattern")
            value = cur.child_by_field_name("value")
            if pattern is not None and value is not None:
                return Step(LET_ELSE, _not(_matches(self.code(value), self.code(pattern))), line)
            return None
        if kind == "match_arm" and child == cur.child_by_field_name("value"):
            return self._arm_step(cur)
        fallback = fallback_test(self, cur, child)
        return Step(IF, _test(fallback), line) if fallback is not None else None

    def _arm_step(self, arm: Node) -> Step | None:
        """The arm's pattern, after every unguarded arm before it failed to match."""
        block = arm.parent
        match = block.parent if block is not None else None
        if block is None or match is None or match.type != "match_expression":
            return None
        value = match.child_by_field_name("value")
        pattern = arm.child_by_field_name("pattern")
        if value is None or pattern is None:
            return None
        subject = self.code(value)
        parts = self._failed_before(block, subject, arm)
        own = self.code(pattern)
        if not _CATCH_ALL.match(own):
            parts.append(_matches(subject, own))
        if not parts:
            return None
        condition = parts[0] if len(parts) == 1 else Condition(ALL, parts=tuple(parts))
        return Step(ARM, condition, arm.start_point.row + 1)

    def _failed_before(self, block: Node, subject: str, arm: Node) -> list[Condition]:
        """That every unguarded arm before `arm` of the match `block` did not match
        `subject`: the arms are read once per match, not once per arm for each arm."""
        if self.arms_failed is None:
            self.arms_failed = {}
        found = self.arms_failed.get(block.id)
        if found is None:
            before: dict[int, int] = {}  # arm id -> how many of `failed` come before it
            failed: list[tuple[str, Condition]] = []  # (the arm's `cfg`, its failure)
            for other in block.named_children:
                before[other.id] = len(failed)
                other_pattern = other.child_by_field_name("pattern")
                if other.type != "match_arm" or other_pattern is None:
                    continue
                if other_pattern.child_by_field_name("condition") is None:
                    failed.append((self._cfg(other),
                                   _not(_matches(subject, self.code(other_pattern)))))
            found = self.arms_failed[block.id] = (before, failed)
        before, failed = found
        # An arm under the opposite `cfg` (`#[cfg(feature = "cuda")]` before this
        # `#[cfg(not(feature = "cuda"))]` arm) is not in the build this arm is in.
        own = self._cfg(arm)
        return [cond for cfg, cond in failed[: before.get(arm.id, len(failed))]
                if not (own and cfg and (own == f"not({cfg})" or cfg == f"not({own})"))]

    def _cfg(self, arm: Node) -> str:
        """The condition of the arm's `#[cfg(..)]` attribute, spaces dropped; "" for none."""
        for child in arm.children:
            if child.type == "attribute_item":
                found = re.fullmatch(r"#\[\s*cfg\s*\((.*)\)\s*\]", self.code(child), re.DOTALL)
                if found:
                    return re.sub(r"\s+", "", found.group(1))
        return ""

    def _earlier_exits(self, block: Node, child: Node) -> list[Step]:
        """The checks written before `child` in `block` that leave the function unless
        they hold, in source order."""
        if self.earlier is None:
            self.earlier = EarlierExits(self._exit_check, _COMMENTS)
        return self.earlier.before(block, child)

    def _exit_check(self, statement: Node) -> Step | None:
        node = statement
        if node.type == "expression_statement" and node.named_child_count:
            node = node.named_children[0]
        line = node.start_point.row + 1
        if node.type == "if_expression" and node.child_by_field_name("alternative") is None:
            cond, body = node.child_by_field_name("condition"), node.child_by_field_name(
                "consequence")
            kind = self._exit_kind(body) if cond is not None and body is not None else None
            if cond is not None and kind is not None:
                return Step(kind, _not(self._condition_tree(cond)), line)
            return None
        if node.type == "macro_invocation":
            macro = node.child_by_field_name("macro")
            rule = self.rules.macros.get(self._last_segment(macro)) if macro else None
            tree = next((c for c in node.children if c.type == "token_tree"), None)
            if rule is None or rule.guard_arg is None or tree is None:
                return None
            args = self.tt_args(tree)
            if rule.guard_arg < len(args):
                return Step(EARLY_EXIT, _test(self.span_code(args[rule.guard_arg])), line)
            return None
        if node.type == "let_declaration":
            value = node.child_by_field_name("value")
            pattern = node.child_by_field_name("pattern")
            if value is None:
                return None
            if node.child_by_field_name("alternative") is not None and pattern is not None:
                return Step(EARLY_EXIT, _matches(self.code(value), self.code(pattern)), line)
            node = value
        if node.type == "try_expression" and node.named_child_count:
            return Step(TRY, _test(self.code(node.named_children[0])), line)
        return None

    def _exit_kind(self, body: Node) -> str | None:
        """How a block leaves the function, if it ends by leaving: with an error
        (EARLY_EXIT: `return Err(..)`, a rule macro that fails such as `bail!`) or
        normally (EARLY_RETURN: any other `return`); None when it does not leave."""
        statements = [c for c in body.named_children if c.type not in _COMMENTS]
        if not statements:
            return None
        last = statements[-1]
        if last.type == "expression_statement" and last.named_child_count:
            last = last.named_children[0]
        if last.type in _EXITS:
            value = last.named_children[0] if last.named_child_count else None
            function = value.child_by_field_name("function") if value is not None else None
            failed = function is not None and self.code(function) == "Err"
            return EARLY_EXIT if failed else EARLY_RETURN
        if last.type == "macro_invocation":
            macro = last.child_by_field_name("macro")
            rule = self.rules.macros.get(self._last_segment(macro)) if macro else None
            if rule is not None and rule.guard_arg is None and rule.guard_op is None:
                return EARLY_EXIT
        return None
