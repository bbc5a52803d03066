"""The Python extractor: `raise`, `assert`, warnings and rule-listed calls, with their
message templates, and the exception classes that build their own message.

Parsing is done with tree-sitter-python (never `ast`: the indexed code may target
another Python version), once per file. Nothing from the indexed tree is imported or run.
"""

from __future__ import annotations

import builtins
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor

from errdex.extract import PARSE_SECONDS, Rule, SourceLines, check_depth, parse_within
from errdex.extract.formats import braces, printf
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages.python import SPEC, messages, tables
from errdex.models import (
    Construction,
    FileExtraction,
    Language,
    MessageDefinition,
    Site,
    SiteKind,
    Template,
)

_TS_LANGUAGE = TSLanguage(SPEC.grammar())
_PARSER = Parser(_TS_LANGUAGE)
_QUERY = Query(_TS_LANGUAGE, SPEC.queries()["sites"])

_MAX_DEPTH = 12

_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
# Names that look like exception classes (for constructions outside `raise`).
_EXCEPTION_NAME = re.compile(r"(Error|Exception|Warning|Exit|Interrupt|Failure|Fault)$")
_MESSAGE_KEYWORDS = ("msg", "message")
_GETTEXT = frozenset({"_", "gettext", "ugettext", "gettext_lazy", "ugettext_lazy", "N_"})
_NGETTEXT = frozenset({"ngettext", "ungettext", "ngettext_lazy"})
_NOT_CODE = frozenset({"comment", "line_continuation"})
_SCOPES = frozenset({"function_definition", "class_definition", "module"})
_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")
_WS_NEWLINE = re.compile(r"[ \t]*\\?[ \t]*\r?\n\s*")
_NEWLINE_IN_OPEN = re.compile(r"(?<=[(\[{])[ \t]*\r?\n\s*")
_NEWLINE_IN_CLOSE = re.compile(r"[ \t]*\r?\n\s*(?=[)\]}])")
_ESCAPE = re.compile(
    r"\\(\r?\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}"
    r"|N\{[^}]*\})"
)
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def module_name(path: str) -> str:
    """`json/decoder.py` -> `json.decoder`, `pkg/__init__.py` -> `pkg`."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return ""
    last = parts[-1]
    for suffix in (".pyi", ".py"):
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    parts[-1] = last
    if parts[-1] == "__init__":
        parts.pop()
    if len(parts) > 1 and parts[0] == "src":
        parts.pop(0)
    return ".".join(parts)


def _decode_escapes(text: str, is_bytes: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        first = body[0]
        if first in "\r\n":
            return ""
        if first in _SIMPLE_ESCAPES and len(body) == 1:
            return _SIMPLE_ESCAPES[first]
        if first in "01234567":
            return chr(int(body, 8) & (0xFF if is_bytes else 0x1FFFFF))
        if first == "x":
            return chr(int(body[1:], 16))
        if is_bytes:
            return match.group(0)
        if first in "uU":
            value = int(body[1:], 16)
            return chr(value) if value <= 0x10FFFF else match.group(0)
        try:  # \N{NAME}
            return unicodedata.lookup(body[2:-1])
        except KeyError:
            return match.group(0)

    return _ESCAPE.sub(replace, text)


def _compact(text: str) -> str:
    """Source text on one line: newlines and their indentation become one space (none
    just inside brackets)."""
    text = _NEWLINE_IN_OPEN.sub("", text.strip())
    text = _NEWLINE_IN_CLOSE.sub("", text)
    return _WS_NEWLINE.sub(" ", text)


def _named(node: Node) -> list[Node]:
    """Named children, without comments and line continuations."""
    return [c for c in node.named_children if c.type not in _NOT_CODE]


def _has_literal(pieces: Sequence[Piece]) -> bool:
    return any(isinstance(p, str) and p.strip() for p in pieces)


@dataclass
class _Args:
    positional: list[Node]
    keywords: dict[str, Node]
    has_splat: bool


class _File:
    """Everything about one file being extracted."""

    def __init__(self, path: str, source: bytes, rules: Sequence[Rule]) -> None:
        self.path = path
        self.source = source
        self.rules = [r for r in rules if r.form == "call"]
        self.module = module_name(path)
        self.lines = SourceLines(source)
        self._assignments: dict[int, dict[str, list[Node]]] = {}
        self.sites: list[Site] = []
        self.definitions: list[MessageDefinition] = []
        self.constructions: list[Construction] = []
        self.dynamic = 0
        self.handled: set[int] = set()
        # exception classes defined in this file: name -> __init__ parameters
        self.exception_classes: dict[str, tuple[str, ...]] = {}
        self.defined: dict[str, MessageDefinition] = {}
        # The function (or class body, or module) whose locals messages are resolved in;
        # set by each handler (a node's parents are slow to walk from deep inside).
        self.scope: Node | None = None
        self.init_scope: Node | None = None

    # --- text helpers -------------------------------------------------------------

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def between(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", "replace")

    # --- context ------------------------------------------------------------------

    def function_of(self, node: Node) -> str | None:
        names: list[str] = []
        parent = node.parent
        while parent is not None:
            if parent.type in ("function_definition", "class_definition"):
                name = parent.child_by_field_name("name")
                if name is not None:
                    names.append(self.text(name))
            parent = parent.parent
        parts = ([self.module] if self.module else []) + names[::-1]
        return ".".join(parts) or None

    def guard_of(self, node: Node) -> str | None:
        child = node
        parent = node.parent
        while parent is not None:
            kind = parent.type
            if kind in ("function_definition", "lambda", "class_definition"):
                return None
            if kind in ("if_statement", "elif_clause"):
                if child == parent.child_by_field_name("consequence"):
                    return self._condition(parent)
            elif kind == "else_clause":
                owner = parent.parent
                if owner is None:
                    return None
                if owner.type == "if_statement":
                    condition: str | None = self._condition(owner)
                    for sibling in owner.children:
                        if sibling == parent:
                            break
                        if sibling.type == "elif_clause":
                            condition = self._condition(sibling)
                    return f"not ({condition})" if condition else None
                if owner.type in ("for_statement", "while_statement"):
                    return None
            elif kind == "while_statement":
                if child == parent.child_by_field_name("body"):
                    return None
            elif kind == "except_clause":
                return self._except_text(parent)
            elif kind == "case_clause":
                return self._case_text(parent)
            child = parent
            parent = parent.parent
        return None

    def _condition(self, node: Node) -> str | None:
        condition = node.child_by_field_name("condition")
        return _compact(self.text(condition)) if condition is not None else None

    def _except_text(self, clause: Node) -> str:
        head = "except"
        for c in clause.children:
            if c.type == "*":
                head = "except*"
            elif c.is_named and c.type not in ("block", "comment", "line_continuation"):
                value = c
                if c.type == "as_pattern" and c.named_children:
                    value = c.named_children[0]
                return f"{head} {_compact(self.text(value))}"
        return head

    def _case_text(self, clause: Node) -> str:
        body = clause.child_by_field_name("consequence")
        end = body.start_byte if body is not None else clause.end_byte
        head = self.between(clause.start_byte, end).strip()
        head = head.removesuffix(":").strip()
        head = head.removeprefix("case").strip()
        match = clause.parent.parent if clause.parent is not None else None
        subject = match.child_by_field_name("subject") if match is not None else None
        subject_text = _compact(self.text(subject)) if subject is not None else "?"
        return f"match {subject_text}: case {_compact(head)}"

    # --- local variables ----------------------------------------------------------

    def _scope_of(self, node: Node) -> Node | None:
        parent = node.parent
        while parent is not None and parent.type not in _SCOPES:
            parent = parent.parent
        return parent

    def _assignments_in(self, scope: Node) -> dict[str, list[Node]]:
        found = self._assignments.get(scope.id)
        if found is not None:
            return found
        table: dict[str, list[Node]] = {}
        body = scope.child_by_field_name("body") if scope.type != "module" else scope
        stack = list(reversed(body.children)) if body is not None else []
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("function_definition", "class_definition", "lambda"):
                continue
            if kind in ("assignment", "augmented_assignment"):
                left = node.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    table.setdefault(self.text(left), []).append(node)
            stack.extend(reversed(node.children))
        for nodes in table.values():
            nodes.sort(key=lambda n: n.start_byte)
        self._assignments[scope.id] = table
        return table

    def _assignment_before(self, name: str, at: Node) -> Node | None:
        scope = self.scope if self.scope is not None else self._scope_of(at)
        if scope is None:
            return None
        best: Node | None = None
        local = self._assignments_in(scope).get(name)
        if local is None and scope.type == "function_definition":
            # A module-level constant (`_MSG = "..."`), unless a parameter shadows it.
            if name in self._parameter_names(scope):
                return None
            module = scope
            while module.parent is not None:
                module = module.parent
            found = self._assignments_in(module).get(name)
            return found[-1] if found else None
        for node in local or ():
            if node.end_byte <= at.start_byte:
                best = node
            else:
                break
        return best

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
                return messages.joined_pieces(self, obj, args.positional, depth)
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

    # --- sites --------------------------------------------------------------------

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

    def add_site(
        self,
        kind: SiteKind,
        exception: str | None,
        message: tuple[list[Piece], str] | None,
        at: Node,
        guard: str | None,
    ) -> bool:
        """Emit a site if its message has literal text; returns whether it did."""
        if message is None or not _has_literal(message[0]):
            return False
        template = _template(message)
        if template.literal_chars == 0:
            return False
        line = at.start_point[0] + 1
        end_line = at.end_point[0] + 1
        self.sites.append(
            Site(
                language=Language.PYTHON,
                kind=kind,
                exception=exception,
                template=template,
                path=self.path,
                line=line,
                end_line=end_line,
                function=self.function_of(at),
                guard=guard,
                snippet=self.lines.snippet(line, end_line),
            )
        )
        return True

    def add_construction(
        self,
        type_path: str,
        args: _Args | None,
        at: Node,
        raised: bool,
        *,
        resolvable: bool = True,
        message_given: bool = False,
    ) -> None:
        line = at.start_point[0] + 1
        end_line = at.end_point[0] + 1
        last = type_path.rsplit(".", 1)[-1]
        params = self.exception_classes.get(last, ())
        fields: list[tuple[str, str]] = []
        if args is not None:
            for i, value in enumerate(args.positional):
                name = params[i] if i < len(params) else str(i)
                fields.append((name, _compact(self.text(value))))
            for key, value in args.keywords.items():
                fields.append((key, _compact(self.text(value))))
        self.constructions.append(
            Construction(
                language=Language.PYTHON,
                type_path=type_path,
                path=self.path,
                line=line,
                end_line=end_line,
                function=self.function_of(at),
                guard=self.guard_of(at),
                snippet=self.lines.snippet(line, end_line),
                field_values=tuple(fields),
                raised=raised,
                resolvable=resolvable,
                message_given=message_given,
            )
        )

    def _is_local_class(self, type_path: str) -> bool:
        last = type_path.rsplit(".", 1)[-1]
        return last in self.exception_classes and last not in _BUILTIN_EXCEPTIONS

    def _may_be_class(self, type_path: str) -> bool:
        """Whether a constructed name may resolve to a message definition. A class of
        this file without one never will (and must not borrow another file's)."""
        last = type_path.rsplit(".", 1)[-1]
        if last in self.exception_classes:
            return last in self.defined
        return bool(last) and last[0].isupper() and last not in _BUILTIN_EXCEPTIONS

    def on_raise(self, node: Node) -> None:
        cause = node.child_by_field_name("cause")
        raised: Node | None = None
        for child in _named(node):
            if child != cause:
                raised = child
                break
        if raised is None:
            return  # a bare re-raise
        self.scope = self._scope_of(node)
        if raised.type == "identifier" and not self.text(raised)[:1].isupper():
            # `raise exc` of a local `exc = SomeError(...)`
            assignment = self._assignment_before(self.text(raised), node)
            right = assignment.child_by_field_name("right") if assignment else None
            if (
                assignment is not None
                and assignment.type == "assignment"
                and right is not None
                and right.type == "call"
            ):
                self.handled.add(right.id)
                raised = right
        call = raised
        if call.type == "call":
            function = call.child_by_field_name("function")
            if (
                function is not None
                and function.type == "attribute"
                and function.child_by_field_name("object") is not None
            ):
                method = function.child_by_field_name("attribute")
                obj = function.child_by_field_name("object")
                if (
                    method is not None
                    and obj is not None
                    and self.text(method) == "with_traceback"
                    and obj.type == "call"
                ):
                    call = obj
        if call.type != "call":
            type_path = re.sub(r"\s+", "", self.text(call))
            if call.type in ("identifier", "attribute") and self._may_be_class(type_path):
                self.add_construction(type_path, None, node, raised=True)
            elif call.type in ("identifier", "attribute") and self._is_local_class(type_path):
                self.add_construction(type_path, None, node, raised=True, resolvable=False)
            else:
                self.dynamic += 1
            return
        self.handled.add(call.id)
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            self.dynamic += 1
            return
        type_path = re.sub(r"\s+", "", self.text(function))
        args = (
            self.arguments(arguments) if arguments.type == "argument_list" else _Args([], {}, False)
        )
        guard = self.guard_of(node)
        message = self.message_of(args)
        emitted = self.add_site(SiteKind.RAISE, type_path, message, node, guard)
        if function.type in ("identifier", "attribute") and self._may_be_class(type_path):
            # A class that may own its message: a site if it turns out to (even when the
            # call passes a literal message of its own, which makes a site as well).
            self.add_construction(type_path, args, node, raised=True, message_given=emitted)
        elif not emitted and self._is_local_class(type_path):
            # This file's own exception class, its message made at run time: still a
            # place that raises it, found by its type.
            self.add_construction(type_path, args, node, raised=True, resolvable=False)
        elif not emitted:
            self.dynamic += 1

    def on_assert(self, node: Node) -> None:
        parts = _named(node)
        if not parts:
            return
        self.scope = self._scope_of(node)
        guard = f"not ({_compact(self.text(parts[0]))})"
        message = self.expression_message(parts[1]) if len(parts) > 1 else None
        if not self.add_site(SiteKind.ASSERT, "AssertionError", message, node, guard):
            self.dynamic += 1

    def on_call(self, node: Node) -> None:
        if node.id in self.handled:
            return
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or arguments.type != "argument_list":
            return
        callee = re.sub(r"\s+", "", self.text(function))
        if not _DOTTED.match(callee):
            return
        rule = self._rule_for(callee)
        if rule is not None:
            self._on_rule(rule, node, self.arguments(arguments))
            return
        last = callee.rsplit(".", 1)[-1]
        if last in self.defined or (
            last not in self.exception_classes
            and _EXCEPTION_NAME.search(last)
            and self._may_be_class(callee)
        ):
            self.add_construction(callee, self.arguments(arguments), node, raised=False)

    def _rule_for(self, callee: str) -> Rule | None:
        for rule in self.rules:
            name = rule.name
            if callee == name or name.endswith("." + callee):
                return rule
            if "." in name and callee.endswith("." + name):
                return rule
        return None

    def _on_rule(self, rule: Rule, node: Node, args: _Args) -> None:
        self.scope = self._scope_of(node)
        message_node: Node | None = None
        for key in _MESSAGE_KEYWORDS:
            if key in args.keywords:
                message_node = args.keywords[key]
        if message_node is None and rule.message_arg < len(args.positional):
            message_node = args.positional[rule.message_arg]
        exception = rule.exception
        message: tuple[list[Piece], str] | None = None
        if message_node is not None:
            inner = message_node
            if inner.type == "call" and rule.kind is SiteKind.WARN:
                # warnings.warn(SomeWarning("..."))
                function = inner.child_by_field_name("function")
                arguments = inner.child_by_field_name("arguments")
                if (
                    function is not None
                    and arguments is not None
                    and arguments.type == "argument_list"
                    and self.text(function).rsplit(".", 1)[-1][:1].isupper()
                ):
                    exception = re.sub(r"\s+", "", self.text(function))
                    message = self.message_of(self.arguments(arguments))
            if message is None:
                message = self.expression_message(message_node)
        if rule.kind is SiteKind.WARN and exception is None:
            category = args.keywords.get("category")
            if category is None and len(args.positional) > rule.message_arg + 1:
                category = args.positional[rule.message_arg + 1]
            exception = _compact(self.text(category)) if category is not None else "UserWarning"
        guard: str | None
        if rule.guard_arg is not None and rule.guard_arg < len(args.positional):
            if rule.guard_op and len(args.positional) > 1:
                a = _compact(self.text(args.positional[0]))
                b = _compact(self.text(args.positional[1]))
                guard = f"not ({a} {rule.guard_op} {b})"
            else:
                guard = f"not ({_compact(self.text(args.positional[rule.guard_arg]))})"
        else:
            guard = self.guard_of(node)
        if not self.add_site(rule.kind, exception, message, node, guard):
            self.dynamic += 1

    # --- exception classes --------------------------------------------------------

    def on_class(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = self.text(name_node)
        bases: list[str] = []
        superclasses = node.child_by_field_name("superclasses")
        if superclasses is not None:
            for base in superclasses.named_children:
                if base.type in ("identifier", "attribute"):
                    bases.append(re.sub(r"\s+", "", self.text(base)).rsplit(".", 1)[-1])
        if not bases:
            return
        if not (
            _EXCEPTION_NAME.search(name)
            or any(_EXCEPTION_NAME.search(b) or b in self.exception_classes for b in bases)
            or any(b in _BUILTIN_EXCEPTIONS for b in bases)
        ):
            return
        methods: dict[str, Node] = {}
        for child in body.named_children:
            function = child
            if child.type == "decorated_definition":
                inner = child.child_by_field_name("definition")
                if inner is None:
                    continue
                function = inner
            if function.type == "function_definition":
                method_name = function.child_by_field_name("name")
                if method_name is not None:
                    methods[self.text(method_name)] = function
        init = methods.get("__init__")
        params = self._parameters(init) if init is not None else ()
        if init is None:
            params = next(
                (self.exception_classes[b] for b in bases if b in self.exception_classes), ()
            )
        self.exception_classes[name] = params
        template = self._class_template(init, methods.get("__str__"))
        if template is None:
            inherited = next((self.defined[b] for b in bases if b in self.defined), None)
            if inherited is None or init is not None or "__str__" in methods:
                return
            template = inherited.template
        definition = MessageDefinition(
            language=Language.PYTHON,
            name=name,
            owner=self.module or None,
            template=template,
            fields=params,
            path=self.path,
            line=node.start_point[0] + 1,
        )
        self.definitions.append(definition)
        self.defined[name] = definition

    def _parameters(self, function: Node) -> tuple[str, ...]:
        """The named parameters of a method, after `self`."""
        return self._parameter_names(function, splats=False)[1:]

    def _parameter_names(self, function: Node, splats: bool = True) -> tuple[str, ...]:
        parameters = function.child_by_field_name("parameters")
        if parameters is None:
            return ()
        names: list[str] = []
        for param in parameters.named_children:
            kind = param.type
            ident: Node | None = None
            if kind == "identifier":
                ident = param
            elif kind == "typed_parameter" or (
                splats and kind in ("list_splat_pattern", "dictionary_splat_pattern")
            ):
                ident = next((c for c in param.named_children if c.type == "identifier"), None)
            elif kind in ("default_parameter", "typed_default_parameter"):
                ident = param.child_by_field_name("name")
            if ident is not None:
                names.append(self.text(ident))
        return tuple(names)

    def _walk_body(self, function: Node) -> list[Node]:
        """The nodes of a function's body, without nested functions and classes."""
        out: list[Node] = []
        body = function.child_by_field_name("body")
        stack = list(reversed(body.children)) if body is not None else []
        while stack:
            node = stack.pop()
            if node.type in ("function_definition", "class_definition", "lambda"):
                continue
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def _class_template(self, init: Node | None, str_method: Node | None) -> Template | None:
        attrs: dict[str, Node] = {}
        init_message: tuple[list[Piece], str] | None = None
        args_message: tuple[list[Piece], str] | None = None
        self.scope = self.init_scope = init
        if init is not None:
            for node in self._walk_body(init):
                if node.type == "assignment":
                    left = node.child_by_field_name("left")
                    right = node.child_by_field_name("right")
                    if left is None or right is None or left.type != "attribute":
                        continue
                    obj = left.child_by_field_name("object")
                    attr = left.child_by_field_name("attribute")
                    if obj is None or attr is None or self.text(obj) != "self":
                        continue
                    attr_name = self.text(attr)
                    attrs[attr_name] = right
                    if attr_name == "args" and right.type == "tuple" and args_message is None:
                        items = _named(right)
                        if items:
                            candidate = self.expression_message(items[0])
                            if _has_literal(candidate[0]):
                                args_message = candidate
                elif node.type == "call" and init_message is None:
                    init_message = self._super_init_message(node)
        best: tuple[list[Piece], str] | None = None
        if str_method is not None:
            self.scope = str_method
            for node in self._walk_body(str_method):
                if node.type != "return_statement":
                    continue
                value = next(iter(_named(node)), None)
                if value is None:
                    continue
                candidate = (self.pieces(value, 0, attrs), _compact(self.text(value)))
                if not _has_literal(candidate[0]):
                    continue
                if best is None or _literal_len(candidate[0]) > _literal_len(best[0]):
                    best = candidate
        message = best or init_message or args_message
        if message is None:
            return None
        template = _template(message)
        return template if template.literal_chars > 0 else None

    def _super_init_message(self, call: Node) -> tuple[list[Piece], str] | None:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if (
            function is None
            or function.type != "attribute"
            or arguments is None
            or arguments.type != "argument_list"
        ):
            return None
        method = function.child_by_field_name("attribute")
        obj = function.child_by_field_name("object")
        if method is None or obj is None or self.text(method) != "__init__":
            return None
        args = self.arguments(arguments)
        positional = args.positional
        if obj.type == "call":  # super().__init__(msg) / super(C, self).__init__(msg)
            callee = obj.child_by_field_name("function")
            if callee is None or self.text(callee) != "super":
                return None
        elif positional and self.text(positional[0]) == "self":  # Base.__init__(self, msg)
            positional = positional[1:]
        else:
            return None
        named = [p for p in positional
                 if p.type == "identifier" and self.text(p) in _MESSAGE_KEYWORDS]
        if len(positional) > 1 and len(named) == 1 and not args.has_splat:
            positional = named  # `super().__init__(pool, url, message)`: a base that prints it
        if len(positional) > 1 or args.has_splat:
            return None  # Exception(a, b) prints its args tuple, not a message
        if not positional and not any(k in args.keywords for k in _MESSAGE_KEYWORDS):
            return None
        message = self.message_of(_Args(positional, args.keywords, args.has_splat))
        return message if message is not None and _has_literal(message[0]) else None


def _literal_len(pieces: Sequence[Piece]) -> int:
    return sum(len(p.strip()) for p in pieces if isinstance(p, str))


class PythonExtractor:
    language = Language.PYTHON
    extensions = SPEC.suffixes

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        tree = parse_within(_PARSER, source, seconds)
        check_depth(tree.root_node)
        state = _File(path, source, rules)
        # py-tree-sitter hands each capture's nodes back in no fixed order (it differs
        # with the hash seed): in source order, the sites a budget keeps are the first
        # ones, the same on every run.
        captured = {name: sorted(nodes, key=lambda n: (n.start_byte, n.end_byte))
                    for name, nodes in QueryCursor(_QUERY).captures(tree.root_node).items()}
        for node in captured.get("class", []):
            state.on_class(node)
        for node in captured.get("raise", []):
            state.on_raise(node)
        for node in captured.get("assert", []):
            state.on_assert(node)
        for node in captured.get("call", []):
            state.on_call(node)
        messages.extend(state, captured.get("raise", []), captured.get("call", []))
        tables.extend(state, tree.root_node, captured.get("call", []))
        sites = sorted(state.sites, key=lambda s: (s.line, s.end_line, s.kind.value))
        constructions = sorted(state.constructions, key=lambda c: (c.line, c.type_path))
        return FileExtraction(
            sites=tuple(sites),
            definitions=tuple(state.definitions),
            constructions=tuple(constructions),
            dynamic_sites=state.dynamic,
        )


# A message written as one string literal, alone or formatted with `%` or `.format`.
_AS_WRITTEN = re.compile(
    r"""^[rRbBuUfF]{0,2}(?P<q>\"\"\"|\'\'\'|"|')(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
    r"""(?:\s*$|\s*%|\.format(?:_map)?\()""",
    re.DOTALL,
)


def _template(message: tuple[list[Piece], str]) -> Template:
    """The template, its `message` being the text as a reader of the source sees it: the
    string literal's own text with its format syntax (`got %d`, `got {n}`), or the
    normalized template when the message is assembled from pieces."""
    pieces, source = message
    template = build_template(source, pieces)
    written = _AS_WRITTEN.match(source)
    shown = written.group("text") if written else template.text
    return replace(template, message=shown)
