"""A Python message expression reduced to literal text and holes: string literals,
f-strings, `%` and `.format` formatting, concatenation, `" ".join` of a list,
`str()`/`repr()`/gettext/ngettext, and a local name resolved to the value assigned
before the site."""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.formats import braces, printf
from errdex.extract.templates import Hole, Piece
from errdex.languages.python.scopes import Scopes
from errdex.languages.python.state import _Args
from errdex.languages.python.strings import _compact, _decode_escapes, _has_literal, _named

_MAX_DEPTH = 12
_MESSAGE_KEYWORDS = ("msg", "message")
_GETTEXT = frozenset({"_", "gettext", "ugettext", "gettext_lazy", "ugettext_lazy", "N_"})
_NGETTEXT = frozenset({"ngettext", "ungettext", "ngettext_lazy"})


class Messages(Scopes):
    def resolve_name(self, ident: Node, depth: int) -> tuple[list[Piece], str] | None:
        """The pieces of the value a local variable holds at `ident`, and the source
        text it was built from; None when it has no assignment before."""
        name = self.text(ident)
        assignment = self._assignment_before(name, ident)
        if assignment is None:
            return None
        right = assignment.child_by_field_name("right")
        while right is not None and right.type == "assignment":
            right = right.child_by_field_name("right")
        if right is None:
            return None
        if assignment.type == "augmented_assignment":
            operator = assignment.child_by_field_name("operator")
            if operator is None or self.text(operator) != "+=":
                return None
            left = assignment.child_by_field_name("left")
            earlier = (
                self.resolve_name(left, depth + 1)
                if left is not None and depth < _MAX_DEPTH
                else None
            )
            start: list[Piece] = earlier[0] if earlier else [Hole(name)]
            start_text = earlier[1] if earlier else name
            return (
                start + self.pieces(right, depth + 1),
                f"{start_text} + {_compact(self.text(right))}",
            )
        return self.pieces(right, depth + 1), _compact(self.text(right))

    # --- message pieces -----------------------------------------------------------

    def pieces(
        self, node: Node, depth: int = 0, attrs: dict[str, Node] | None = None
    ) -> list[Piece]:
        """The message an expression builds, as literal text and holes."""
        if depth > _MAX_DEPTH:
            return [Hole(_compact(self.text(node)))]
        kind = node.type
        if kind == "string":
            return self.string_pieces(node)
        if kind == "concatenated_string":
            out: list[Piece] = []
            for child in node.named_children:
                if child.type == "string":
                    out.extend(self.string_pieces(child))
            return out
        if kind == "parenthesized_expression":
            inner = _named(node)
            if len(inner) == 1:
                return self.pieces(inner[0], depth + 1, attrs)
        elif kind == "binary_operator":
            result = self._binary(node, depth, attrs)
            if result is not None:
                return result
        elif kind == "call":
            result = self._call_pieces(node, depth, attrs)
            if result is not None:
                return result
        elif kind == "identifier":
            resolved = self.resolve_name(node, depth)
            if resolved is not None and _has_literal(resolved[0]):
                return resolved[0]
        elif kind == "attribute" and attrs is not None:
            obj = node.child_by_field_name("object")
            attr = node.child_by_field_name("attribute")
            if obj is not None and attr is not None and self.text(obj) == "self":
                value = attrs.get(self.text(attr))
                if value is not None:
                    scope, self.scope = self.scope, self.init_scope
                    try:
                        inner_pieces = self.pieces(value, depth + 1)
                    finally:
                        self.scope = scope
                    if _has_literal(inner_pieces) or len(inner_pieces) == 1:
                        return inner_pieces
        return [Hole(_compact(self.text(node)))]

    def _binary(self, node: Node, depth: int, attrs: dict[str, Node] | None) -> list[Piece] | None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return None
        op = self.text(operator)
        if op == "+":
            # `"a" + b + "c" + ...` nests to the left: walk it as a flat list.
            operands = [right]
            while left.type == "binary_operator":
                inner_op = left.child_by_field_name("operator")
                inner_left = left.child_by_field_name("left")
                inner_right = left.child_by_field_name("right")
                if inner_op is None or inner_left is None or inner_right is None:
                    break
                if self.text(inner_op) != "+":
                    break
                operands.append(inner_right)
                left = inner_left
            operands.append(left)
            out: list[Piece] = []
            for operand in reversed(operands):
                out.extend(self.pieces(operand, depth + 1, attrs))
            return out
        if op == "%":
            fmt = self.pieces(left, depth + 1, attrs)
            if fmt and all(isinstance(p, str) for p in fmt):
                return self._percent("".join(p for p in fmt if isinstance(p, str)), right)
        return None

    def _call_pieces(
        self, node: Node, depth: int, attrs: dict[str, Node] | None
    ) -> list[Piece] | None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or arguments.type != "argument_list":
            return None
        args = self.arguments(arguments)
        if function.type == "attribute":
            method = function.child_by_field_name("attribute")
            obj = function.child_by_field_name("object")
            if method is None or obj is None:
                return None
            name = self.text(method)
            if name == "join":
                return self._joined(obj, args.positional, depth)
            if name in ("format", "format_map"):
                fmt = self.pieces(obj, depth + 1, attrs)
                if not fmt or not all(isinstance(p, str) for p in fmt):
                    return None
                text = "".join(p for p in fmt if isinstance(p, str))
                if name == "format_map":
                    mapping = args.positional[0] if args.positional else None
                    return self._brace_format(text, _Args([], {}, True), mapping)
                return self._brace_format(text, args, None)
            return None
        if function.type == "identifier" and self.text(function) in _NGETTEXT and args.positional:
            return self.pieces(args.positional[0], depth + 1, attrs)  # the singular text
        if function.type != "identifier" or args.keywords or len(args.positional) != 1:
            return None
        name = self.text(function)
        only = args.positional[0]
        if name in _GETTEXT:
            return self.pieces(only, depth + 1, attrs)
        if name == "str":
            inner = self.pieces(only, depth + 1, attrs)
            if _has_literal(inner):
                return inner
            return [Hole(_compact(self.text(only)))]
        if name == "repr":
            return [Hole(_compact(self.text(only)), "!r")]
        return None

    def _joined(self, separator: Node, items: Sequence[Node], depth: int) -> list[Piece] | None:
        """`" ".join(parts)` of a list literal written just above (`parts = [f"..."]`,
        maybe appended to later): the list's texts joined; None when it isn't that."""
        if separator.type != "string" or len(items) != 1:
            return None
        target = items[0]
        if target.type == "identifier":
            assignment = self._assignment_before(self.text(target), target)
            right = assignment.child_by_field_name("right") if assignment is not None else None
            if right is None or assignment is None or assignment.type != "assignment":
                return None
            target = right
        if target.type != "list":
            return None
        sep = self.pieces(separator, depth + 1)
        out: list[Piece] = []
        for i, item in enumerate(target.named_children):
            if i:
                out.extend(sep)
            out.extend(self.pieces(item, depth + 1))
        return out or None

    def arguments(self, argument_list: Node) -> _Args:
        positional: list[Node] = []
        keywords: dict[str, Node] = {}
        splat = False
        for child in _named(argument_list):
            kind = child.type
            if kind == "keyword_argument":
                key = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if key is not None and value is not None:
                    keywords[self.text(key)] = value
            elif kind in ("list_splat", "dictionary_splat"):
                splat = True
            else:
                positional.append(child)
        return _Args(positional, keywords, splat)

    def string_pieces(self, node: Node) -> list[Piece]:
        children = node.children
        if not children or children[0].type != "string_start":
            return [Hole(_compact(self.text(node)))]
        head = children[0]
        prefix = self.text(head).rstrip("'\"").lower()
        raw = "r" in prefix
        is_bytes = "b" in prefix
        formatted = "f" in prefix or "t" in prefix
        end = children[-1].start_byte if children[-1].type == "string_end" else node.end_byte
        out: list[Piece] = []
        position = head.end_byte
        for child in children[1:]:
            if child.type == "interpolation":
                if child.start_byte > position:
                    out.append(self._literal(position, child.start_byte, raw, is_bytes, formatted))
                out.extend(self._interpolation(child))
                position = child.end_byte
        if end > position:
            out.append(self._literal(position, end, raw, is_bytes, formatted))
        return out

    def _literal(self, start: int, end: int, raw: bool, is_bytes: bool, formatted: bool) -> str:
        text = self.between(start, end)
        if formatted:
            text = text.replace("{{", "{").replace("}}", "}")
        if not raw:
            text = _decode_escapes(text, is_bytes)
        return text

    def _interpolation(self, node: Node) -> list[Piece]:
        expression = node.child_by_field_name("expression")
        if expression is None:
            return [Hole(_compact(self.text(node)[1:-1]))]
        after = expression.end_byte
        equals: Node | None = None
        for child in node.children:
            if child.type == "=" and child.start_byte >= expression.end_byte:
                equals = child
                break
        out: list[Piece] = []
        if equals is not None:
            after = equals.end_byte
            while after < node.end_byte - 1 and self.source[after : after + 1] in (b" ", b"\t"):
                after += 1
            out.append(self.between(node.start_byte + 1, after))
        spec = self.between(after, node.end_byte - 1).strip()
        if equals is not None and not spec:
            spec = "!r"
        out.append(Hole(_compact(self.text(expression)), spec))
        return out

    def _percent(self, fmt: str, right: Node) -> list[Piece]:
        while right.type == "parenthesized_expression" and len(right.named_children) == 1:
            right = right.named_children[0]
        values: list[Node] | None = None
        mapping: dict[str, str] = {}
        if right.type == "tuple":
            values = _named(right)
        elif right.type == "dictionary":
            for pair in right.named_children:
                key = pair.child_by_field_name("key")
                value = pair.child_by_field_name("value")
                if pair.type == "pair" and key is not None and value is not None:
                    key_pieces = self.pieces(key)
                    if all(isinstance(p, str) for p in key_pieces):
                        name = "".join(p for p in key_pieces if isinstance(p, str))
                        mapping[name] = _compact(self.text(value))
        right_text = _compact(self.text(right))
        out: list[Piece] = []
        index = 0
        single = values is None and right.type != "dictionary"

        def take() -> str:
            nonlocal index
            i = index
            index += 1
            if values is not None:
                return _compact(self.text(values[i])) if i < len(values) else ""
            return right_text if single else f"{right_text}[{i}]"

        pieces = printf.split(fmt)
        if single and printf.count_fields(pieces) > 1:
            single = False
        for piece in pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            for _ in range(piece.stars):
                take()
            if piece.name is not None:
                expression = mapping.get(piece.name, f"{right_text}[{piece.name!r}]")
                out.append(Hole(expression, piece.written, piece.name))
            else:
                out.append(Hole(take(), piece.written))
        return out

    def _brace_format(self, fmt: str, args: _Args, mapping: Node | None) -> list[Piece]:
        parsed = braces.split_strict(fmt)
        if parsed is None:
            return [fmt]
        out: list[Piece] = []
        auto = 0
        mapping_text = _compact(self.text(mapping)) if mapping is not None else None
        for piece in parsed:
            if isinstance(piece, str):
                out.append(piece)
                continue
            first, rest = piece.arg, piece.path
            name: str | None = None
            if first == "":
                index: int | None = auto
                auto += 1
            elif first.isdigit():
                index = int(first)
            else:
                index = None
                name = first
            if index is not None:
                base = (
                    _compact(self.text(args.positional[index]))
                    if index < len(args.positional)
                    else ""
                )
            elif name in args.keywords:
                base = _compact(self.text(args.keywords[name]))
            elif mapping_text is not None:
                base = f"{mapping_text}[{name!r}]"
            else:
                base = name or ""
            expression = base + rest if base else ""
            out.append(Hole(expression, piece.spec, name))
        return out

    def logged(self, fmt: Node, values: Sequence[Node]) -> tuple[list[Piece], str] | None:
        """A logging call's message: its format string filled, `%` style, by the
        arguments after it (`log.warning("retry %s after %r", url, err)`)."""
        parts = self.string_pieces(fmt)
        if any(not isinstance(p, str) for p in parts):
            return None  # an f-string: its own holes, read as any message
        text = "".join(p for p in parts if isinstance(p, str))
        out: list[Piece] = []
        index = 0
        for piece in printf.split(text):
            if isinstance(piece, str):
                out.append(piece)
                continue
            index += piece.stars
            value = values[index] if index < len(values) else None
            index += 1
            out.append(Hole(_compact(self.text(value)) if value is not None else "",
                            piece.written, piece.name))
        return out, _compact(self.text(fmt))

    def message_of(self, args: _Args, message_arg: int = 0) -> tuple[list[Piece], str] | None:
        """The message pieces of a call's arguments, and its source text."""
        node: Node | None = None
        for key in _MESSAGE_KEYWORDS:
            if key in args.keywords:
                node = args.keywords[key]
                break
        if node is None and message_arg < len(args.positional):
            node = args.positional[message_arg]
        if node is None:
            return None
        result = self.expression_message(node)
        if not _has_literal(result[0]) and node.type not in ("string", "concatenated_string"):
            # e.g. `OSError(errno.ENOENT, "No such file")`: a later literal argument
            for other in args.positional[message_arg + 1 :]:
                if other.type in ("string", "concatenated_string", "binary_operator", "call"):
                    candidate = self.expression_message(other)
                    if _has_literal(candidate[0]):
                        return candidate
        return result

    def expression_message(self, node: Node) -> tuple[list[Piece], str]:
        if node.type == "identifier":
            resolved = self.resolve_name(node, 0)
            if resolved is not None and _has_literal(resolved[0]):
                return resolved
        return self.pieces(node), _compact(self.text(node))
