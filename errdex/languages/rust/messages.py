"""A Rust message argument reduced to its text: token-tree and call arguments, `format!`,
`concat!`, `.into()` and friends, down to a literal, a format string and its arguments,
or an expression whose text is only known at run time."""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece
from errdex.languages.rust.literals import _char_value, literal_value, parse_format
from errdex.languages.rust.ruleset import _normalize_path
from errdex.languages.rust.state import _COMMENTS, RustFile, _Msg

# `x.into()` and friends around a message don't change its text.
_TEXT_METHODS = frozenset({"into", "to_string", "to_owned", "as_str", "as_ref", "bt"})
_TEXT_FUNCTIONS = frozenset({"String::from", "Into::into", "ToString::to_string", "From::from"})
_FORMAT_MACROS = frozenset({"format", "format_args"})


class Messages(RustFile):
    # ---- arguments -----------------------------------------------------------------

    def tt_args(self, tree: Node) -> list[list[Node]]:
        """The top-level comma-separated arguments of a token tree."""
        children = tree.children
        if len(children) >= 2 and children[0].type in ("(", "[", "{"):
            children = children[1:-1] if children[-1].type in (")", "]", "}") else children[1:]
        args: list[list[Node]] = [[]]
        generics = 0  # inside a turbofish `::<A, B>`, whose commas don't split
        prev = ""
        for child in children:
            kind = child.type
            if kind == "," and generics == 0:
                args.append([])
                prev = kind
                continue
            if kind in _COMMENTS:
                continue
            if kind == "<" and (generics or prev == "::"):
                generics += 1
            elif generics and kind in (">", ">>"):
                generics = max(0, generics - len(kind))
            args[-1].append(child)
            prev = kind
        if not args[-1]:
            args.pop()
        return args

    def call_args(self, arguments: Node) -> list[list[Node]]:
        return [
            [child]
            for child in arguments.named_children
            if child.type not in _COMMENTS and child.type != "attribute_item"
        ]

    def reduce(self, nodes: Sequence[Node]) -> _Msg:
        source = self.span(nodes)
        nodes = list(nodes)
        while True:
            if len(nodes) == 1:
                return self._reduce_node(nodes[0], source)
            if not nodes:
                return _Msg("expr", source, source=source)
            # `&x`, `&mut x`
            if nodes[0].type == "&":
                nodes = nodes[1:]
                if nodes and nodes[0].type == "mut":
                    nodes = nodes[1:]
                continue
            # `x.into()`, `x.to_string()`
            if (
                len(nodes) >= 4
                and nodes[-3].type == "."
                and nodes[-2].type == "identifier"
                and self.text(nodes[-2]) in _TEXT_METHODS
                and nodes[-1].type == "token_tree"
                and nodes[-1].named_child_count == 0
                and len(nodes[-1].children) == 2
            ):
                nodes = nodes[:-3]
                continue
            # `name!(...)`, `std::name!(...)`
            if (
                nodes[-1].type == "token_tree"
                and nodes[-2].type == "!"
                and nodes[-3].type == "identifier"
                and all(n.type in ("identifier", "::") for n in nodes[:-2])
            ):
                return _Msg("macro", self.text(nodes[-3]), nodes[-1], source)
            # `String::from(x)`
            if (
                nodes[-1].type == "token_tree"
                and all(n.type in ("identifier", "::") for n in nodes[:-1])
                and _normalize_path(self.span(nodes[:-1])) in _TEXT_FUNCTIONS
            ):
                inner = self.tt_args(nodes[-1])
                if len(inner) == 1:
                    nodes = inner[0]
                    continue
            return _Msg("expr", source, source=source)

    def _reduce_node(self, node: Node, source: str) -> _Msg:
        while True:
            kind = node.type
            if kind in ("string_literal", "raw_string_literal"):
                value = literal_value(self.text(node))
                if value is None:
                    return _Msg("expr", source, source=source)
                return _Msg("lit", value, source=source)
            if kind == "macro_invocation":
                macro = node.child_by_field_name("macro")
                tree = next((c for c in node.children if c.type == "token_tree"), None)
                if macro is None or tree is None:
                    return _Msg("expr", source, source=source)
                return _Msg("macro", self._last_segment(macro), tree, source)
            if kind in ("reference_expression", "parenthesized_expression"):
                inner = node.child_by_field_name("value")
                if inner is None:
                    inner = next(iter(node.named_children), None)
                if inner is None:
                    break
                node = inner
                continue
            if kind == "closure_expression":
                body = node.child_by_field_name("body")
                if body is None:
                    break
                node = body
                continue
            if kind == "block":
                tail = [c for c in node.named_children if c.type not in _COMMENTS]
                if not tail or tail[-1].type in ("expression_statement", "let_declaration"):
                    break
                node = tail[-1]
                continue
            if kind == "call_expression":
                function = node.child_by_field_name("function")
                arguments = node.child_by_field_name("arguments")
                if function is None or arguments is None:
                    break
                args = self.call_args(arguments)
                if function.type == "field_expression" and not args:
                    field_node = function.child_by_field_name("field")
                    receiver = function.child_by_field_name("value")
                    if (
                        field_node is not None
                        and receiver is not None
                        and self.text(field_node) in _TEXT_METHODS
                    ):
                        node = receiver
                        continue
                if (
                    function.type == "scoped_identifier"
                    and len(args) == 1
                    and _normalize_path(self.text(function)) in _TEXT_FUNCTIONS
                ):
                    node = args[0][0]
                    continue
            break
        return _Msg("expr", self.text(node) if node.type != "block" else source, source=source)

    def format_args(self, args: Sequence[Sequence[Node]]) -> tuple[list[str], dict[str, str]]:
        positional: list[str] = []
        named: dict[str, str] = {}
        for arg in args:
            if len(arg) >= 3 and arg[0].type == "identifier" and arg[1].type == "=":
                named[self.text(arg[0])] = self.span_line(arg[2:])
            else:
                positional.append(self.span_line(arg))
        return positional, named

    def concat(self, tree: Node) -> str | None:
        parts: list[str] = []
        for arg in self.tt_args(tree):
            msg = self.reduce(arg)
            if msg.kind == "lit":
                parts.append(msg.text)
            elif msg.kind == "macro" and msg.text == "concat" and msg.tree is not None:
                inner = self.concat(msg.tree)
                if inner is None:
                    return None
                parts.append(inner)
            elif msg.kind == "macro" and msg.text == "stringify" and msg.tree is not None:
                parts.append(self.text(msg.tree)[1:-1].strip())
            elif len(arg) == 1 and arg[0].type == "char_literal":
                value = _char_value(self.text(arg[0]))
                if value is None:
                    return None
                parts.append(value)
            elif len(arg) == 1 and arg[0].type in (
                "integer_literal",
                "float_literal",
                "boolean_literal",
            ):
                parts.append(self.text(arg[0]))
            elif len(arg) == 2 and arg[0].type == "-" and arg[1].type.endswith("_literal"):
                parts.append("-" + self.text(arg[1]))
            else:
                return None
        return "".join(parts)

    def message(
        self, msg: _Msg, fmt_args: Sequence[Sequence[Node]], is_format: bool
    ) -> tuple[str, list[Piece]] | None:
        """The text and pieces of a message argument; None if it is not text at all."""
        if msg.kind == "lit":
            if is_format:
                positional, named = self.format_args(fmt_args)
                return msg.text, parse_format(msg.text, positional, named)
            return msg.text, [msg.text]
        if msg.kind == "macro" and msg.tree is not None:
            if msg.text in _FORMAT_MACROS:
                inner = self.tt_args(msg.tree)
                if not inner:
                    return "", []
                return self.message(self.reduce(inner[0]), inner[1:], True)
            if msg.text == "concat":
                text = self.concat(msg.tree)
                if text is not None:
                    return self.message(_Msg("lit", text, source=msg.source), fmt_args, is_format)
        return None

    def pieces_or_hole(
        self, msg: _Msg, fmt_args: Sequence[Sequence[Node]], is_format: bool
    ) -> tuple[str, list[Piece]]:
        result = self.message(msg, fmt_args, is_format)
        if result is not None:
            return result
        return msg.source, [Hole(expression=msg.source.strip())]
