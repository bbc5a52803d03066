"""Rust extraction: one tree-sitter parse per file, a handful of queries over that tree.

What raises is data (`rules.toml` beside this module): macros (`bail!`, `panic!`, `assert_eq!`),
methods (`.expect`, `.context`) and calls (`Error::msg`, `Err(...)`). Message text comes
from string literals, `format!`/`concat!` and Rust's format syntax, parsed here into the
`Piece`s that `errdex.extract.templates.build_template` turns into a `Template`. thiserror
`#[error("...")]` variants become `MessageDefinition`s, and every `Path::Variant {..}` /
`Path::Variant(..)` a `Construction`, resolved later across files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor

from errdex.extract import PARSE_SECONDS, Rule, SourceLines, check_depth, parse_within
from errdex.extract.formats import braces
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages.rust import SPEC, composed
from errdex.models import (
    Construction,
    FileExtraction,
    Language,
    MessageDefinition,
    Site,
    Template,
)

_TS_LANGUAGE = TSLanguage(SPEC.grammar())
_PARSER = Parser(_TS_LANGUAGE)
_QUERIES = SPEC.queries()

# What Rust prints for these macros, before the message if there is one.
_PANIC_TEXT = {
    "unreachable": "internal error: entered unreachable code",
    "todo": "not yet implemented",
    "unimplemented": "not implemented",
    "panic": "explicit panic",
}
# Calls that only wrap a value: a site when they wrap text, nothing when they pass a value on.
_VALUE_WRAPPERS = frozenset({"Err"})
# `x.into()` and friends around a message don't change its text.
_TEXT_METHODS = frozenset({"into", "to_string", "to_owned", "as_str", "as_ref", "bt"})
_TEXT_FUNCTIONS = frozenset({"String::from", "Into::into", "ToString::to_string", "From::from"})
_FORMAT_MACROS = frozenset({"format", "format_args"})
_COMMENTS = frozenset({"line_comment", "block_comment"})
# Where a guard search stops: the code outside doesn't decide whether this line runs.
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
_UNIT_PARENTS = frozenset(
    {
        "arguments",
        "return_expression",
        "field_expression",
        "let_declaration",
        "block",
        "match_arm",
        "closure_expression",
        "array_expression",
        "tuple_expression",
        "assignment_expression",
        "expression_statement",
        "try_expression",
    }
)

_WS_NEWLINE = re.compile(r"\s*\n\s*")
_CAMEL = re.compile(r"^_*[A-Z]")
_PRECISION_STAR = re.compile(
    r"^(?:.?[<^>])?[+-]?#?0?(?:\d+\$?|[A-Za-z_][A-Za-z0-9_]*\$)?\.\*", re.DOTALL
)
# A match arm pattern that takes whatever is left: `_`, `other`, `(a, _)`.
_CATCH_ALL = re.compile(r"^(?:[\s(),&]|\.\.|\bref\b|\bmut\b|\b[a-z_][a-z0-9_]*\b)*$")
_LITERAL_PREFIX = re.compile(r'^([bc]?)(r?)(#*)"')
_GENERIC_ARGS = re.compile(r"<[^<>]*>")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --------------------------------------------------------------------------------------
# String literals and Rust's format syntax


_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}


def unescape(body: str) -> str:
    """The value of a (non-raw) Rust string literal's body."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc == "x" and i + 4 <= n:
            try:
                out.append(chr(int(body[i + 2 : i + 4], 16)))
            except ValueError:
                out.append(body[i : i + 4])
            i += 4
        elif esc == "u" and i + 2 < n and body[i + 2] == "{":
            end = body.find("}", i + 3)
            if end < 0:
                out.append(body[i:])
                break
            try:
                out.append(chr(int(body[i + 3 : end].replace("_", ""), 16)))
            except (ValueError, OverflowError):
                out.append(body[i : end + 1])
            i = end + 1
        elif esc in "\r\n":
            # Line continuation: the newline and the next line's leading whitespace vanish.
            i += 2
            while i < n and body[i] in " \t\r\n":
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def literal_value(text: str) -> str | None:
    """The value of a string literal as written (`"a\\n"`, `r#"a"#`, `b"a"`), or None."""
    match = _LITERAL_PREFIX.match(text)
    if match is None:
        return None
    closing = '"' + match.group(3)
    body = text[match.end() :]
    if body.endswith(closing) and len(text) - len(closing) >= match.end():
        body = body[: len(body) - len(closing)]
    return body if match.group(2) else unescape(body)


def _char_value(text: str) -> str | None:
    if len(text) >= 3 and text[0] == "'" and text[-1] == "'":
        return unescape(text[1:-1])
    return None


def parse_format(
    fmt: str,
    positional: Sequence[str] = (),
    named: Mapping[str, str] | None = None,
    *,
    numbered_fields: bool = False,
) -> list[Piece]:
    """Split a Rust format string into literal text and `Hole`s.

    `positional` and `named` are the source text of the format arguments. `{}` takes the
    next positional argument, `{0}` the first, `{name}` the named argument or (an implicit
    capture) the variable `name`; `{:.*}` takes a precision argument first. With
    `numbered_fields` (thiserror), `{0}` means the field `0`, not an argument.
    """
    named = named or {}
    pieces: list[Piece] = []
    next_pos = 0

    def positional_arg(index: int) -> str:
        return positional[index] if 0 <= index < len(positional) else ""

    for piece in braces.split_lenient(fmt):
        if isinstance(piece, str):
            pieces.append(piece)
            continue
        arg, spec = piece.arg, piece.spec
        if spec and _PRECISION_STAR.match(spec[1:]):
            next_pos += 1  # `.*` reads the precision from the next positional argument
        name: str | None = None
        if arg == "":
            expression = positional_arg(next_pos)
            next_pos += 1
        elif arg.isdigit():
            expression = arg if numbered_fields else positional_arg(int(arg))
            if numbered_fields:
                name = arg
        else:
            name = arg.removeprefix("r#")
            expression = named.get(arg, name)
        pieces.append(Hole(expression=expression, spec=spec, name=name))
    return pieces


# --------------------------------------------------------------------------------------
# Rules and queries


@dataclass(frozen=True)
class _RuleSet:
    macros: dict[str, Rule]
    methods: dict[str, Rule]
    calls: dict[str, list[Rule]]  # last path segment -> rules
    query: Query
    kinds: tuple[str, ...]  # what each pattern of `query` finds


def _quote(names: Sequence[str]) -> str:
    return " ".join('"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"' for name in names)


def _normalize_path(text: str) -> str:
    text = re.sub(r"\s+", "", text)
    prev = None
    while prev != text:
        prev = text
        text = _GENERIC_ARGS.sub("", text)
    return text.replace("::::", "::")


@lru_cache(maxsize=16)
def _rule_set(rules: tuple[Rule, ...]) -> _RuleSet:
    macros: dict[str, Rule] = {}
    methods: dict[str, Rule] = {}
    calls: dict[str, list[Rule]] = {}
    for rule in rules:
        name = _normalize_path(rule.name).removesuffix("!")
        if rule.form == "macro":
            macros.setdefault(name.rsplit("::", 1)[-1], rule)
        elif rule.form == "method":
            methods.setdefault(name.rsplit(".", 1)[-1], rule)
        elif rule.form == "call":
            last = name.replace(".", "::").rsplit("::", 1)[-1]
            calls.setdefault(last, []).append(rule)
    patterns: list[tuple[str, str]] = [("attr", _QUERIES["attr"])]
    if macros:
        names = _quote(sorted(macros))
        patterns.append(("macro", _QUERIES["macro"].replace("{names}", names)))
        patterns.append(("token", _QUERIES["token"].replace("{names}", names)))
    if methods:
        patterns.append(("method", _QUERIES["method"].replace("{names}", _quote(sorted(methods)))))
    if calls:
        patterns.append(("call", _QUERIES["call"].replace("{names}", _quote(sorted(calls)))))
    alternatives = "|".join(name + "$" for name in sorted(calls) if _IDENTIFIER.match(name))
    regex = "^([A-Z]" + ("|" + alternatives if alternatives else "") + ")"
    patterns.append(("scoped", _QUERIES["scoped"].replace("{regex}", regex)))
    patterns += [(kind, _QUERIES[kind]) for kind in ("struct", "unit", "enum", "item")]
    query = Query(_TS_LANGUAGE, "\n".join(pattern for _, pattern in patterns))
    kinds = tuple(kind for kind, _ in patterns)
    return _RuleSet(macros=macros, methods=methods, calls=calls, query=query, kinds=kinds)


# --------------------------------------------------------------------------------------
# Arguments


@dataclass(frozen=True)
class _Msg:
    """An argument reduced to what decides its text."""

    kind: str  # "lit" | "macro" | "expr"
    text: str  # the literal's value, the macro's name, or the expression's source
    tree: Node | None = None  # the macro's token tree
    source: str = ""  # the argument as written


@dataclass
class _Context:
    function: str | None
    guard: str | None
    owner: str | None  # the type of the enclosing impl
    skip: bool  # inside the token tree of a rule macro


@dataclass
class _File:
    path: str
    source: bytes
    rules: _RuleSet
    sites: list[Site] = field(default_factory=list)
    definitions: list[MessageDefinition] = field(default_factory=list)
    constructions: list[Construction] = field(default_factory=list)
    dynamic: int = 0
    excluded: list[tuple[int, int]] = field(default_factory=list)
    lines: SourceLines = field(init=False)

    def __post_init__(self) -> None:
        self.lines = SourceLines(self.source)

    # ---- small helpers -------------------------------------------------------------

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def span(self, nodes: Sequence[Node]) -> str:
        if not nodes:
            return ""
        raw = self.source[nodes[0].start_byte : nodes[-1].end_byte]
        return raw.decode("utf-8", errors="replace")

    def span_line(self, nodes: Sequence[Node]) -> str:
        """The source of `nodes` on one line (an argument split over lines reads as one)."""
        return _WS_NEWLINE.sub(" ", self.span(nodes)).strip()

    def is_excluded(self, node: Node) -> bool:
        start = node.start_byte
        return any(lo <= start < hi for lo, hi in self.excluded)

    def oneline(self, node: Node) -> str:
        return _WS_NEWLINE.sub(" ", self.text(node)).strip()

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

    def _last_segment(self, node: Node) -> str:
        if node.type == "scoped_identifier":
            name = node.child_by_field_name("name")
            return self.text(name) if name is not None else self.text(node)
        return self.text(node)

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
                    return f"!matches!({self.oneline(value)}, {self.oneline(pattern)})"
            return None
        if kind == "match_arm":
            if child != cur.child_by_field_name("value"):
                return None
            return self._arm_guard(cur)
        return None

    def _condition(self, cond: Node, negate: bool) -> str:
        if cond.type == "let_condition":
            pattern = cond.child_by_field_name("pattern")
            value = cond.child_by_field_name("value")
            if pattern is not None and value is not None:
                text = f"matches!({self.oneline(value)}, {self.oneline(pattern)})"
                return "!" + text if negate else text
        text = self.oneline(cond)
        return f"!({text})" if negate else text

    def _arm_guard(self, arm: Node) -> str | None:
        block = arm.parent
        match = block.parent if block is not None else None
        if match is None or match.type != "match_expression":
            return None
        value = match.child_by_field_name("value")
        pattern = arm.child_by_field_name("pattern")
        if value is None or pattern is None:
            return None
        subject = self.oneline(value)
        pattern_text = self.oneline(pattern)
        if _CATCH_ALL.match(pattern_text):
            # The catch-all arm: what leads here is "none of the arms above".
            others: list[str] = []
            for other in block.named_children if block is not None else []:
                if other == arm:
                    break
                if other.type != "match_arm":
                    continue
                other_pattern = other.child_by_field_name("pattern")
                if other_pattern is None or other_pattern.child_by_field_name("condition"):
                    continue
                others.append(self.oneline(other_pattern))
            if others:
                return f"!matches!({subject}, {' | '.join(others)})"
            return None
        return f"matches!({subject}, {pattern_text})"

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

    # ---- sites ---------------------------------------------------------------------

    def add_site(
        self,
        rule: Rule,
        node: Node,
        line_node: Node,
        template: Template,
        guard: str | None,
        ctx: _Context,
    ) -> None:
        if template.literal_chars == 0 and not composed.names_constant(template):
            self.dynamic += 1
            return
        line = line_node.start_point.row + 1
        bound = tuple(
            (hole.name, hole.expression)
            for hole in template.placeholders
            if _is_literal(hole.expression)
        )
        self.sites.append(
            Site(
                language=Language.RUST,
                kind=rule.kind,
                exception=rule.exception,
                template=template,
                path=self.path,
                line=line,
                end_line=node.end_point.row + 1,
                function=ctx.function,
                guard=guard if guard is not None else ctx.guard,
                snippet=self.lines.snippet(line),
                bound=bound,
            )
        )

    def macro_site(self, rule: Rule, name: str, node: Node, first: Node, tree: Node) -> None:
        ctx = self.context(first)
        if ctx.skip:
            return
        args = self.tt_args(tree)
        guard: str | None = None
        if rule.guard_arg is not None and rule.guard_arg < len(args):
            guard = f"!({self.span_line(args[rule.guard_arg])})"
        elif rule.guard_op is not None and len(args) >= 2:
            left = self.span_line(args[0])
            right = self.span_line(args[1])
            negated = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
            op = negated.get(rule.guard_op)
            guard = f"{left} {op} {right}" if op else f"!({left} {rule.guard_op} {right})"
        prefix = _PANIC_TEXT.get(name)
        if rule.message_arg >= len(args):
            if prefix is not None:
                template = Template.literal(prefix)
            elif name == "ensure" and args:
                condition = self.span_line(args[0])
                template = Template.literal(f"Condition failed: `{condition}`")
            else:
                return  # an assertion without a message, or nothing to say
            self.add_site(rule, node, first, template, guard, ctx)
            return
        msg = self.reduce(args[rule.message_arg])
        text, pieces = self.pieces_or_hole(msg, args[rule.message_arg + 1 :], True)
        if prefix is not None and name != "panic":
            text = f"{prefix}: {text}"
            pieces = [f"{prefix}: ", *pieces]
        self.add_site(rule, node, first, build_template(text, pieces), guard, ctx)

    def macro_invocation(self, node: Node, name_node: Node) -> None:
        name = self.text(name_node)
        rule = self.rules.macros.get(name)
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        if rule is None or tree is None:
            return
        self.macro_site(rule, name, node, node, tree)

    def token_macro(self, name_node: Node, tree: Node) -> None:
        prev = tree.prev_sibling
        if prev is None or prev.type != "!" or prev.prev_sibling != name_node:
            return
        name = self.text(name_node)
        rule = self.rules.macros.get(name)
        if rule is None:
            return
        first = name_node
        while True:
            sep = first.prev_sibling
            if sep is None or sep.type != "::":
                break
            seg = sep.prev_sibling
            if seg is None or seg.type not in ("identifier", "crate", "self", "super"):
                break
            first = seg
        before = first.prev_sibling
        if before is not None and before.type in (".", "$"):
            return
        self.macro_site(rule, name, tree, first, tree)

    def method_call(self, call: Node, method: Node) -> None:
        rule = self.rules.methods.get(self.text(method))
        arguments = call.child_by_field_name("arguments")
        if rule is None or arguments is None:
            return
        args = self.call_args(arguments)
        if rule.message_arg >= len(args):
            return
        ctx = self.context(call)
        if ctx.skip:
            return
        msg = self.reduce(args[rule.message_arg])
        text, pieces = self.pieces_or_hole(msg, (), False)
        self.add_site(rule, call, method, build_template(text, pieces), None, ctx)

    def call_rule(self, call: Node, function: Node) -> bool:
        """A call that a rule names: a site (or dynamic). True if a rule matched."""
        path = _normalize_path(self.text(function))
        last = path.rsplit("::", 1)[-1]
        rule = next(
            (
                r
                for r in self.rules.calls.get(last, [])
                if path == _normalize_path(r.name).replace(".", "::")
                or path.endswith("::" + _normalize_path(r.name).replace(".", "::"))
            ),
            None,
        )
        arguments = call.child_by_field_name("arguments")
        if rule is None or arguments is None:
            return False
        args = self.call_args(arguments)
        if rule.message_arg >= len(args):
            return True
        msg = self.reduce(args[rule.message_arg])
        wrapper = last in _VALUE_WRAPPERS
        if wrapper and not (msg.kind == "lit" or msg.text in _FORMAT_MACROS | {"concat"}):
            return True
        result = self.message(msg, (), False)
        if result is None and wrapper:
            return True
        ctx = self.context(call)
        if ctx.skip:
            return True
        text, pieces = result if result is not None else self.pieces_or_hole(msg, (), False)
        self.add_site(rule, call, call, build_template(text, pieces), None, ctx)
        return True

    # ---- definitions and constructions ---------------------------------------------

    def error_attribute(self, attribute_item: Node) -> tuple[Template, int] | bool | None:
        """The template of an `#[error("...")]`; False if it isn't one; None if skipped."""
        attribute = next((c for c in attribute_item.named_children if c.type == "attribute"), None)
        if attribute is None:
            return False
        ident = next((c for c in attribute.children if c.type in ("identifier",)), None)
        if ident is None or self.text(ident) != "error":
            return False
        tree = attribute.child_by_field_name("arguments")
        if tree is None:
            return None
        args = self.tt_args(tree)
        if not args:
            return None
        msg = self.reduce(args[0])
        if msg.kind == "lit":
            text = msg.text
        elif msg.kind == "macro" and msg.text == "concat" and msg.tree is not None:
            concat = self.concat(msg.tree)
            if concat is None:
                return None
            text = concat
        else:
            return None  # `transparent`, or something we can't read
        positional, named = self.format_args(args[1:])
        positional = [p.lstrip(".") for p in positional]
        named = {k: v.lstrip(".") for k, v in named.items()}
        pieces = parse_format(text, positional, named, numbered_fields=True)
        template = build_template(text, pieces)
        if template.literal_chars == 0:
            return None
        return template, attribute_item.start_point.row + 1

    def fields_of(self, body: Node | None) -> tuple[str, ...]:
        if body is None:
            return ()
        if body.type == "field_declaration_list":
            names: list[str] = []
            for decl in body.named_children:
                if decl.type == "field_declaration":
                    name = decl.child_by_field_name("name")
                    if name is not None:
                        names.append(self.text(name))
            return tuple(names)
        if body.type == "ordered_field_declaration_list":
            count = len(body.children_by_field_name("type"))
            return tuple(str(i) for i in range(count))
        return ()

    def enum_item(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        owner = self.text(name)
        pending: list[Node] = []
        for child in body.named_children:
            if child.type == "attribute_item":
                pending.append(child)
            elif child.type == "enum_variant":
                for attr in pending:
                    found = self.error_attribute(attr)
                    if found is False:
                        continue
                    if isinstance(found, tuple):
                        self.define(found, child, owner)
                    else:  # `transparent`, `{0}`: maybe another error passed through
                        composed.passed_through(self, child, owner, self.text(attr))
                    break
                pending = []
            elif child.type not in _COMMENTS:
                pending = []

    def struct_item(self, node: Node) -> None:
        prev = node.prev_named_sibling
        while prev is not None and prev.type in ("attribute_item", *_COMMENTS):
            if prev.type == "attribute_item":
                found = self.error_attribute(prev)
                if isinstance(found, tuple):
                    self.define(found, node, None)
                    return
                if found is None:
                    return
            prev = prev.prev_named_sibling

    def define(self, found: tuple[Template, int], item: Node, owner: str | None) -> None:
        name = item.child_by_field_name("name")
        if name is None:
            return
        template, line = found
        self.definitions.append(
            MessageDefinition(
                language=Language.RUST,
                name=self.text(name),
                owner=owner,
                template=template,
                fields=self.fields_of(item.child_by_field_name("body")),
                path=self.path,
                line=line,
            )
        )

    def construction(
        self, node: Node, path_node: Node, values: list[tuple[str, str]],
        payloads: tuple[tuple[str, Template], ...] = (),
    ) -> None:
        type_path = _normalize_path(self.text(path_node))
        last = type_path.rsplit("::", 1)[-1]
        if not _CAMEL.match(last):
            return
        ctx = self.context(node)
        if ctx.skip:
            return
        if (type_path == "Self" or type_path.startswith("Self::")) and ctx.owner:
            type_path = ctx.owner + type_path[4:]
        line = node.start_point.row + 1
        self.constructions.append(
            Construction(
                language=Language.RUST,
                type_path=type_path,
                path=self.path,
                line=line,
                end_line=node.end_point.row + 1,
                function=ctx.function,
                guard=ctx.guard,
                snippet=self.lines.snippet(line),
                field_values=tuple(values),
                payloads=payloads,
            )
        )

    def struct_expression(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        values: list[tuple[str, str]] = []
        given: list[tuple[str, Sequence[Node]]] = []
        for child in body.named_children:
            if child.type == "field_initializer":
                key = child.child_by_field_name("field")
                value = child.child_by_field_name("value")
                if key is not None and value is not None:
                    values.append((self.text(key), self.oneline(value)))
                    given.append((self.text(key), [value]))
            elif child.type == "shorthand_field_initializer":
                values.append((self.text(child), self.text(child)))
        self.construction(node, name, values, composed.payloads(self, given))

    def scoped_call(self, call: Node, name: Node) -> None:
        function = call.child_by_field_name("function")
        if function is None:
            return
        if self.rules.calls.get(self.text(name)) and self.call_rule(call, function):
            return
        if not _CAMEL.match(self.text(name)):
            return
        path = function.child_by_field_name("path")
        if path is None or not _CAMEL.match(self._last_segment(path)):
            return  # `module::Type(..)` is rare; `Type::Variant(..)` is what we want
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            return
        args = self.call_args(arguments)
        values = [(str(i), self.span_line(arg)) for i, arg in enumerate(args)]
        given = [(str(i), arg) for i, arg in enumerate(args)]
        self.construction(call, function, values, composed.payloads(self, given))

    def unit_path(self, node: Node, name: Node) -> None:
        parent = node.parent
        if parent is None or parent.type not in _UNIT_PARENTS:
            return
        if parent.type == "let_declaration" and parent.child_by_field_name("value") != node:
            return
        text = self.text(name)
        if not any(c.islower() for c in text):
            return  # `DType::F32`, `u32::MAX`
        path = node.child_by_field_name("path")
        if path is None or not _CAMEL.match(self._last_segment(path)):
            return
        self.construction(node, node, [])


def _is_literal(expression: str) -> bool:
    text = expression.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return True
    return bool(text) and text.replace("_", "").replace(".", "", 1).lstrip("-").isdigit()


class RustExtractor:
    language = Language.RUST
    extensions = SPEC.suffixes

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        tree = parse_within(_PARSER, source, seconds)
        check_depth(tree.root_node)
        state = _File(path=path, source=source, rules=_rule_set(tuple(rules)))
        kinds = state.rules.kinds
        found: list[tuple[str, Node, Node]] = []
        seen: set[tuple[str, int, int]] = set()
        for index, captures in QueryCursor(state.rules.query).matches(tree.root_node):
            nodes, names = captures.get("node"), captures.get("name")
            if not nodes or not names:
                continue
            kind, node = kinds[index], nodes[0]
            key = (kind, node.start_byte, node.end_byte)
            if key in seen:
                continue
            seen.add(key)
            if kind == "attr":
                _exclude(state, node)  # `#[cfg(test)]` / `#[test]` items are skipped
            else:
                found.append((kind, node, names[0]))
        state.excluded.sort()
        for kind, node, name in found:
            if state.excluded and state.is_excluded(node):
                continue
            try:
                _HANDLERS[kind](state, node, name)
            except (RecursionError, ValueError, IndexError, KeyError, AttributeError, TypeError):
                continue  # one odd construct must not cost the whole file
        composed.extend(state, tree.root_node)
        return FileExtraction(
            sites=tuple(sorted(state.sites, key=_position)),
            definitions=tuple(state.definitions),
            constructions=tuple(
                sorted(state.constructions, key=lambda c: (c.line, c.end_line, c.type_path))
            ),
            dynamic_sites=state.dynamic,
        )


def _position(site: Site) -> tuple[int, int, str]:
    return (site.line, site.end_line, site.template.text)


def _exclude(state: _File, attr: Node) -> None:
    text = re.sub(r"\s+", "", state.text(attr))
    if text not in ("#[cfg(test)]", "#[test]"):
        return
    item = attr.next_named_sibling
    while item is not None and (item.type == "attribute_item" or item.type in _COMMENTS):
        item = item.next_named_sibling
    if item is not None:
        state.excluded.append((attr.start_byte, item.end_byte))


def _call(state: _File, call: Node, name: Node) -> None:
    function = call.child_by_field_name("function")
    if function is not None:
        state.call_rule(call, function)


_HANDLERS: dict[str, Callable[[_File, Node, Node], object]] = {
    "macro": lambda state, node, name: state.macro_invocation(node, name),
    "token": lambda state, node, name: state.token_macro(name, node),
    "method": lambda state, node, name: state.method_call(node, name),
    "call": _call,
    "scoped": lambda state, node, name: state.scoped_call(node, name),
    "struct": lambda state, node, name: state.struct_expression(node),
    "unit": lambda state, node, name: state.unit_path(node, name),
    "enum": lambda state, node, name: state.enum_item(node),
    "item": lambda state, node, name: state.struct_item(node),
}
