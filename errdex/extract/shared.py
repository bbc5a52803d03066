"""What every extractor does the same way, written once: which call rule names a callee,
the guard a rule's own arguments make (`assert_eq!(a, b)` -> `a != b`), whether a bound
expression is a literal, and a function's qualified name.

The language's words (how `not` is written, the path separator) come from its spec or
its extractor's arguments; nothing here names a language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from errdex.extract import Rule

# The comparison that fails when `a OP b` holds: the guard of `assert_eq!(a, b)` is `a != b`.
NEGATED_OPS = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def rule_guard(rule: Rule, arguments: Sequence[str], negated: str) -> str | None:
    """The condition under which `rule`'s call fails, from its arguments' source text:
    `a != b` for a `guard_op = "=="` rule, else `negated` (`!({})`, `not ({})`) of its
    `guard_arg`. None when the rule checks nothing (the site's own guard then counts)."""
    if rule.guard_op is not None and len(arguments) >= 2:
        left, right = arguments[0], arguments[1]
        op = NEGATED_OPS.get(rule.guard_op)
        return f"{left} {op} {right}" if op else negated.format(f"{left} {rule.guard_op} {right}")
    if rule.guard_arg is not None and rule.guard_arg < len(arguments):
        return negated.format(arguments[rule.guard_arg])
    return None


def find_call_rule(
    callee: str, rules: Iterable[tuple[str, Rule]], separator: str, *,
    bare_rule_matches_path: bool, short_callee: bool,
) -> Rule | None:  # fmt: skip
    """The first rule (given as (normalized name, rule)) that names `callee`: the same
    path, or a path ending in the rule's (`crate::Error::msg` for `Error::msg`; a bare rule
    name only with `bare_rule_matches_path`); with `short_callee`, also a callee that is
    the rule's last segments (`warn(...)` after `from warnings import warn`)."""
    for name, rule in rules:
        if callee == name:
            return rule
        if (bare_rule_matches_path or separator in name) and callee.endswith(separator + name):
            return rule
        if short_callee and name.endswith(separator + callee):
            return rule
    return None


def is_literal(expression: str, quotes: str = "\"'") -> bool:
    """Whether `expression` is a string literal (quoted by one of `quotes`) or a number."""
    text = expression.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in quotes:
        return True
    return bool(text) and text.replace("_", "").replace(".", "", 1).lstrip("-").isdigit()


def qualified_name(segments: Sequence[str], separator: str) -> str | None:
    """`Owner::method`, `module.Class.method`: the segments outermost first, or None."""
    return separator.join(segments) if segments else None
