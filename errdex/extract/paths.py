"""What the extractors share to build condition paths: the earlier checks of a block,
each statement looked at once per file however many sites follow it (a file of 6,000
raises in one block must not cost 6,000 x 200 looks)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract import GUARD_CHARS, cut
from errdex.extract.filestate import FileState
from errdex.extract.structure import (
    ALL,
    ARM,
    EARLY_EXIT,
    EARLY_RETURN,
    ELSE,
    IF,
    MAX_STEPS,
    NOT,
    RULE,
    TEST,
    Condition,
    SitePath,
    Step,
)

if TYPE_CHECKING:
    pass


def test(text: str) -> Condition:
    """A condition that is true here, as written (bounded)."""
    return Condition(TEST, cut(text, GUARD_CHARS))


def negation(condition: Condition) -> Condition:
    return Condition(NOT, parts=(condition,))


def written(condition: Condition, negated: str, conjunction: str, disjunction: str) -> str:
    """A condition as code in the language's syntax (`negated` a template, `!({})`): the
    site's guard string. A part that holds `disjunction` is parenthesized when joined."""
    if condition.kind == TEST:
        return condition.text
    if condition.kind == NOT and condition.parts:
        return negated.format(written(condition.parts[0], negated, conjunction, disjunction))
    if condition.kind == ALL:
        parts = [written(p, negated, conjunction, disjunction) for p in condition.parts]
        return conjunction.join(f"({w})" if disjunction in w and not w.startswith(
            negated.split("{", 1)[0]) else w for w in parts)  # fmt: skip
    return condition.text


def bare(text: str) -> str:
    """A condition without the parentheses a C-like grammar writes around it."""
    return text[1:-1].strip() if text.startswith("(") and text.endswith(")") else text


def branch_step(branch: Node, child: Node, condition: str | None) -> Step | None:
    """The step an `if` (or a ternary) with `condition` adds for the branch `child` it
    holds: the condition in its `consequence`, its negation in its `alternative`."""
    if condition is None:
        return None
    line = branch.start_point.row + 1
    if child == branch.child_by_field_name("consequence"):
        return Step(IF, test(condition), line)
    if child == branch.child_by_field_name("alternative"):
        return Step(ELSE, negation(test(condition)), line)
    return None


def arm_step(parts: Sequence[Condition], case: Node) -> Step | None:
    """The step of a `switch` case whose conditions are `parts` (the cases before it
    failed, then its own values): all of them, or None when there are none."""
    if not parts:
        return None
    cond = parts[0] if len(parts) == 1 else Condition(ALL, parts=tuple(parts))
    return Step(ARM, cond, case.start_point.row + 1)


def check_exit(statement: Node, call_type: str,
               check: Callable[[Node], str | None]) -> Step | None:
    """For a statement that is a checking call (`assert(n > 0);`, `checkArgument(ok,
    ..);`: `check` gives its failing condition, or None), the step it adds to a later
    site's path: that the condition did not hold."""
    if statement.type != "expression_statement" or not statement.named_child_count:
        return None
    call = statement.named_children[0]
    own = check(call) if call.type == call_type else None
    return Step(EARLY_EXIT, negation(test(own)), statement.start_point.row + 1) if own else None


def keep_path(paths: list[SitePath], node: Node, steps: Sequence[Step]) -> Condition | None:
    """Keep the path to the site (or construction) at `node` in `paths`, and return its
    guard's condition: the innermost step that is a branch, not an earlier exit."""
    paths.append(SitePath(node.start_point.row + 1, node.end_point.row + 1,
                          tuple(steps[-MAX_STEPS:])))
    branch = next((s for s in reversed(steps) if s.kind not in (EARLY_EXIT, EARLY_RETURN)),
                  None)  # fmt: skip
    return branch.condition if branch is not None else None


def exit_if(statement: Node, condition: Callable[[Node], str | None],
            exit_kind: Callable[[Node], str | None]) -> Step | None:
    """For an `if` with no other branch whose body leaves the function (`exit_kind` of
    the body: EARLY_EXIT, EARLY_RETURN or None), the step its condition adds to a later
    site's path: that the condition did not hold. None for any other statement."""
    if statement.type != "if_statement" or statement.child_by_field_name("alternative"):
        return None
    cond = condition(statement)
    body = statement.child_by_field_name("consequence")
    if cond is None or body is None:
        return None
    kind = exit_kind(body)
    return Step(kind, negation(test(cond)), statement.start_point.row + 1) if kind else None


MAX_EARLIER = 100  # earlier statements of one block looked at for checks that exit


class EarlierExits:
    """The steps that earlier statements of a block add to a site's path (`check` turns
    one statement into its step, its steps in source order (an `if` that returns in two of
    its branches), or None), with every statement checked at most once."""

    def __init__(self, check: Callable[[Node], Step | tuple[Step, ...] | None],
                 skip: frozenset[str]) -> None:  # fmt: skip
        self._check = check
        self._skip = skip
        self._blocks: dict[int, tuple[dict[int, int], list[Node]]] = {}  # id -> statements
        self._steps: dict[int, tuple[Step, ...]] = {}  # statement id -> its steps, once looked at
        self._before: dict[tuple[int, int], list[Step]] = {}  # (block, child) ids -> steps

    def before(self, block: Node, child: Node) -> list[Step]:
        """The steps of the statements before `child` in `block`, in source order (the
        nearest MAX_STEPS of the last MAX_EARLIER statements). A new list each call,
        found once per (block, child): the sites below one statement share it."""
        key = (block.id, child.id)
        found = self._before.get(key)
        if found is None:
            found = self._before[key] = self._find(block, child)
        return list(found)

    def _find(self, block: Node, child: Node) -> list[Step]:
        entry = self._blocks.get(block.id)
        if entry is None:
            statements = [c for c in block.named_children if c.type not in self._skip]
            entry = ({c.id: i for i, c in enumerate(statements)}, statements)
            self._blocks[block.id] = entry
        index_of, statements = entry
        at = index_of.get(child.id)
        if at is None:
            return []
        found: list[Step] = []
        for i in range(at - 1, max(at - MAX_EARLIER, 0) - 1, -1):
            statement = statements[i]
            steps = self._steps.get(statement.id)
            if steps is None:
                checked = self._check(statement)
                steps = self._steps[statement.id] = \
                    (checked,) if isinstance(checked, Step) else checked or ()  # fmt: skip
            found.extend(reversed(steps))
            if len(found) >= MAX_STEPS:
                break
        del found[MAX_STEPS:]
        found.reverse()
        return found


def steps_to(
    node: Node, stops: frozenset[str], blocks: frozenset[str],
    earlier: Callable[[Node, Node], list[Step]],
    steps_at: Callable[[Node, Node], Iterable[Step]],
) -> list[Step]:  # fmt: skip
    """The conditions that lead to `node`, outermost first, walking up to the first
    ancestor of a `stops` type: at each ancestor, the earlier exits of a `blocks`-type
    statement list (`earlier(block, child)`), then the ancestor's own steps for the child
    it holds (`steps_at(ancestor, child)`: an `if` branch, a `match` arm, ...)."""
    groups: list[list[Step]] = []
    child, cur = node, node.parent
    while cur is not None and cur.type not in stops:
        group = earlier(cur, child) if cur.type in blocks else []
        group.extend(steps_at(cur, child))
        if group:
            groups.append(group)
        child, cur = cur, cur.parent
    return [step for group in reversed(groups) for step in group]


class BlockPaths(FileState):
    """The path walk of a C-like language's file state (a base of it): `stops` end the
    walk up from a site, `blocks` are the statement lists whose earlier statements may
    exit (`skip`: the comment nodes among them). A language gives its own steps at an
    ancestor (`_steps_at`) and the step an earlier statement adds (`_exit_check`)."""

    stops: frozenset[str]
    blocks: frozenset[str]
    skip: frozenset[str]
    earlier: EarlierExits | None = None

    def record_path(self, node: Node, own: str | None = None) -> str | None:
        """Keep the path to the site (or construction) at `node`, walked once, and
        return its guard: `own` (a check's failing condition, its last step), else the
        innermost condition that leads there, as written."""
        steps = list(self.path_of(node))
        if own:
            steps.append(Step(RULE, test(own), node.start_point.row + 1))
        condition = keep_path(self.paths, node, steps)
        return self.written(condition) if condition is not None else None

    def written(self, condition: Condition) -> str:
        """A condition as code: the guard string of the site."""
        return written(condition, self.spec.negated, self.spec.conjunction, "||")

    def path_of(self, node: Node) -> tuple[Step, ...]:
        return tuple(steps_to(node, self.stops, self.blocks, self._earlier, self._steps_at))

    def _earlier(self, block: Node, child: Node) -> list[Step]:
        if self.earlier is None:
            self.earlier = EarlierExits(self._exit_check, self.skip)
        return self.earlier.before(block, child)

    def _steps_at(self, cur: Node, child: Node) -> Iterable[Step]:
        """The steps `cur` adds for the `child` it holds on the way to a site."""
        raise NotImplementedError

    def _exit_check(self, statement: Node) -> Step | None:
        """The step an earlier statement of a block adds to a later site's path."""
        raise NotImplementedError
