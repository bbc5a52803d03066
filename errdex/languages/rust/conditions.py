"""What leads to a Rust site: the enclosing function's qualified name, the impl that owns
it, and the condition (`if`, `else`, `let ... else`, `match` arm) that guards it."""

from __future__ import annotations

import re

from tree_sitter import Node

from errdex.languages.rust.ruleset import _normalize_path
from errdex.languages.rust.state import RustFile, _Context

_GUARD_STOP = frozenset(
    {
        "function_item",
        "impl_item",
        "trait_item",
        "mod_item",
        "source_file",
        "macro_definition",
        "const_item",
        "static_item",
    }
)
# Parents under which `Path::Variant` (no braces, no call) is a value being built.
# Patterns whose `identifier` children are names they bind (not a variant's path)
_BINDING_PARENTS = frozenset({"match_pattern", "slice_pattern", "tuple_pattern",
                              "tuple_struct_pattern", "reference_pattern", "or_pattern"})
_CATCH_ALL = re.compile(r"^(?:[\s(),&]|\.\.|\bref\b|\bmut\b|\b[a-z_][a-z0-9_]*\b)*$")


# Methods whose argument (or the closure passed as it) runs only when the receiver holds
# no value: the error built there is what `x.ok_or_else(|| anyhow!(..))?` returns when `x`
# is None, whatever `if` the statement sits in.
_FALLBACKS = {"ok_or": "{}.is_none()", "ok_or_else": "{}.is_none()", "map_err": "{}.is_err()"}


def fallback_test(file: RustFile, cur: Node, child: Node) -> str | None:
    """The receiver's failing test when `child` is the argument of a fallback method
    (`x.ok_or_else(..)`, `r.map_err(..)`) at `cur`, its argument list."""
    if cur.type != "arguments" or child.type not in ("closure_expression", "macro_invocation",
                                                     "call_expression"):  # fmt: skip
        return None
    call = cur.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or function.type != "field_expression":
        return None
    field, receiver = function.child_by_field_name("field"), function.child_by_field_name("value")
    test = _FALLBACKS.get(file.text(field)) if field is not None else None
    if not test or receiver is None:
        return None
    return test.format(re.sub(r"\s+(?=\.)", "", file.code(receiver)))  # a chain over lines


class Conditions(RustFile):
    # ---- context: function, guard --------------------------------------------------

    def context(self, node: Node) -> _Context:
        segments: list[str] = []
        guard: str | None = None
        guard_done = False
        owner: str | None = None
        skip = False
        child = node
        cur = node.parent
        while cur is not None:
            kind = cur.type
            if not guard_done:
                if kind in _GUARD_STOP:
                    guard_done = True
                else:
                    guard = self._guard_at(cur, child)
                    if guard is not None:
                        guard_done = True
            if kind == "function_item":
                name = cur.child_by_field_name("name")
                if name is not None:
                    segments.append(self.text(name))
            elif kind in ("impl_item", "trait_item") and segments:
                type_name = self._impl_name(cur)
                if type_name:
                    segments.append(type_name)
                if owner is None and kind == "impl_item":
                    owner = type_name
            elif kind == "impl_item" and owner is None:
                owner = self._impl_name(cur)
            elif kind == "macro_invocation" and child.type == "token_tree":
                macro = cur.child_by_field_name("macro")
                if macro is not None and self._last_segment(macro) in self.rules.macros:
                    skip = True
            child = cur
            cur = cur.parent
        function = "::".join(reversed(segments)) if segments else None
        return _Context(function=function, guard=guard, owner=owner, skip=skip)

    def _impl_name(self, item: Node) -> str | None:
        target = item.child_by_field_name("name" if item.type == "trait_item" else "type")
        while target is not None:
            if target.type in ("generic_type", "reference_type", "pointer_type"):
                target = target.child_by_field_name("type")
            elif target.type == "scoped_type_identifier":
                target = target.child_by_field_name("name")
            else:
                return _normalize_path(self.text(target))
        return None

    def _guard_at(self, cur: Node, child: Node) -> str | None:
        kind = cur.type
        if kind == "if_expression":
            cond = cur.child_by_field_name("condition")
            if cond is None:
                return None
            if child == cur.child_by_field_name("consequence"):
                return self._condition(cond, negate=False)
            if child == cur.child_by_field_name("alternative"):
                return self._condition(cond, negate=True)
            return None
        if kind == "else_clause":
            return None
        if kind == "let_declaration":
            alternative = cur.child_by_field_name("alternative")
            if alternative is not None and child == alternative:
                pattern = cur.child_by_field_name("pattern")
                value = cur.child_by_field_name("value")
                if pattern is not None and value is not None:
                    return f"!matches!({self.code(value)}, {self.code(pattern)})"
            return None
        if kind == "match_arm":
            if child != cur.child_by_field_name("value"):
                return None
            return self._arm_guard(cur)
        return fallback_test(self, cur, child)

    def _condition(self, cond: Node, negate: bool) -> str:
        if cond.type == "let_condition":
            pattern = cond.child_by_field_name("pattern")
            value = cond.child_by_field_name("value")
            if pattern is not None and value is not None:
                text = f"matches!({self.code(value)}, {self.code(pattern)})"
                return "!" + text if negate else text
        text = self.code(cond)
        return f"!({text})" if negate else text

    def _unbound(self, pattern: Node) -> str:
        """The pattern's code with the names it binds written `_` (`[b, m, k]` ->
        `[_, _, _]`, `Foo { a }` -> `Foo { a: _ }`): what it matches, not what it names."""
        edits: list[tuple[int, int, str]] = []

        def visit(node: Node) -> None:
            parent = node.parent
            binds = node.type == "identifier" and parent is not None and (
                parent.type in _BINDING_PARENTS and not (
                    parent.type == "tuple_struct_pattern" and node == parent.children[0])
            ) and self.code(node)[:1].islower()
            if node.type in ("ref_pattern", "mut_pattern") or binds:
                edits.append((node.start_byte, node.end_byte, "_"))
            elif node.type == "shorthand_field_identifier":
                edits.append((node.start_byte, node.end_byte, f"{self.code(node)}: _"))
            else:
                for child in node.children:
                    visit(child)

        visit(pattern)
        if not edits:
            return self.code(pattern)
        start, raw = pattern.start_byte, self.source[pattern.start_byte : pattern.end_byte]
        for begin, end, replacement in sorted(edits, reverse=True):
            raw = raw[: begin - start] + replacement.encode() + raw[end - start :]
        return re.sub(r"\s*\n\s*", " ", raw.decode(errors="replace")).strip()

    def _arm_guard(self, arm: Node) -> str | None:
        block = arm.parent
        match = block.parent if block is not None else None
        if match is None or match.type != "match_expression":
            return None
        value = match.child_by_field_name("value")
        pattern = arm.child_by_field_name("pattern")
        if value is None or pattern is None:
            return None
        subject = self.code(value)
        pattern_text = self.code(pattern)
        if _CATCH_ALL.match(pattern_text):
            # The catch-all arm: what leads here is "none of the arms above".
            others: list[Node] = []
            for other in block.named_children if block is not None else []:
                if other == arm:
                    break
                if other.type != "match_arm":
                    continue
                other_pattern = other.child_by_field_name("pattern")
                if other_pattern is None or other_pattern.child_by_field_name("condition"):
                    continue
                others.append(other_pattern)
            if len(others) > 1:  # arms binding other names cannot share one `|` pattern
                return f"!matches!({subject}, {' | '.join(map(self._unbound, others))})"
            if others:
                return f"!matches!({subject}, {self.code(others[0])})"
            return None
        return f"matches!({subject}, {pattern_text})"
