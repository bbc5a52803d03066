"""The JavaScript and TypeScript extractor: `throw new Error(..)` and the other built-in
errors (`TypeError`, `RangeError`, ..), `throw "text"`, `Promise.reject(new Error(..))`,
an error built and handed on (`callback(new Error(..))`), the calls of `rules.toml`
(`assert(cond, "..")`, `console.error`), and error classes (`class ShapeError extends
Error { constructor(want, got) { super(`want ${want}, got ${got}`) } }`): a definition
whose template is what the constructor passes to `super` (or sets as `this.message`),
its parameters the fields, its sites where it is built (`throw new ShapeError(2, n)`).

One extractor reads both languages, each with its own grammar (TypeScript's adds types
around the same node types). Parsing is done once per file; nothing of the indexed tree
is run. A minified bundle (very long lines) is skipped as a whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query

from errdex.extract import PARSE_SECONDS, OverBudget, Rule
from errdex.extract.filestate import QueryExtractor
from errdex.extract.outline import outline_patterns
from errdex.extract.queries import Found, build_query, handle
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages import spec_for
from errdex.languages.javascript import SPEC
from errdex.languages.javascript.messages import (
    FORMATTERS,
    MAX_PIECES,
    TRANSPARENT,
    concatenation,
    format_pieces,
    literal_value,
    unescape,
)
from errdex.languages.javascript.paths import Paths
from errdex.models import (
    FileExtraction,
    Language,
    MessageDefinition,
    SiteKind,
    Template,
)

__all__ = ["MINIFIED", "ScriptExtractor"]

# The errors the language defines, and where their message is (AggregateError(errors, msg)).
BUILT_IN = frozenset({"Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError",
                      "EvalError", "URIError", "AggregateError", "DOMException"})  # fmt: skip
_MESSAGE_AT = {"AggregateError": 1}
_ERROR_NAME = re.compile(r"(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception|Failure|Fault)")
_BLOCKS = frozenset({"statement_block", "switch_case", "switch_default"})
_MAX_EARLIER = 100  # statements of one block looked through for a name's declaration
_FORWARDED = build_template("message", [Hole(expression="message")])  # `super(message)`
_REJECTS = frozenset({"Promise.reject", "reject"})
_FUNCTIONS = frozenset({"function_expression", "arrow_function", "function_declaration",
                        "method_definition", "generator_function"})  # fmt: skip
MINIFIED = "minified"  # the skip reason of a bundle: its lines are too long to be written
_MINIFIED_LINE = 2_000  # characters of a line no one writes by hand...
_MINIFIED_MEAN = 250  # ...in a file whose lines are this long on average


@cache
def _grammar(language: Language) -> tuple[Parser, Query, tuple[str, ...]]:
    spec = spec_for(language)
    ts_language = TSLanguage(spec.grammar())
    # The outline's patterns ride along: one walk of the tree finds both.
    query, kinds = build_query(ts_language, spec.queries(),
                               [(kind, {}) for kind in spec.query_names],
                               outline_patterns(language))  # fmt: skip
    return Parser(ts_language), query, kinds


def is_minified(source: bytes) -> bool:
    lines = source.count(b"\n") + 1
    if len(source) < _MINIFIED_LINE or len(source) / lines < _MINIFIED_MEAN:
        return False
    return any(len(line) > _MINIFIED_LINE for line in source.split(b"\n"))


class _File(Paths):
    def arguments(self, call: Node) -> list[Node]:
        """A call's arguments (none for a tagged template: `` tag`..` ``)."""
        args = call.child_by_field_name("arguments")
        return super().arguments(call) if args is not None and args.type == "arguments" else []

    def pieces(self, node: Node, rest: Sequence[Node] | None = None, resolve: bool = True
               ) -> tuple[list[Piece], str] | None:  # fmt: skip
        """The message of `node` as pieces and as written (the literal's text, or the
        expression's source), or None when it has no text of its own. `rest`: the
        arguments after it fill it as util.format does (`console.error("%s", x)`). A
        name is read through its declaration (`const msg = `..`; throw new Error(msg)`)
        in the blocks around it, or at the module's top level."""
        while node.type in TRANSPARENT and node.named_child_count:
            node = node.named_children[0]
        if node.type == "identifier" and resolve:
            declared = self._declared(node)
            return self.pieces(declared, rest, resolve=False) if declared is not None else None
        value = literal_value(node, self.text(node))
        if value is not None:
            if rest is not None:
                return format_pieces(value, [self.code(a) for a in rest]), value
            return [value], value
        if node.type == "template_string":
            return self._template(node), self.code(node)
        if node.type == "call_expression" and self.call_name(node) in FORMATTERS:
            args = self.arguments(node)
            first = literal_value(args[0], self.text(args[0])) if args else None
            if first is None:
                return None
            return format_pieces(first, [self.code(a) for a in args[1:]]), self.code(node)
        if node.type == "binary_expression" and self.operator(node) == "+":
            parts = self._concatenated(node)
            if parts is None or all(all(isinstance(p, Hole) for p in part) for part in parts):
                return None
            return concatenation(parts), self.code(node)
        return None

    def _declared(self, name: Node) -> Node | None:
        """The value `name` is declared with (`const`, `let` or `var`) in an enclosing
        block before it, or anywhere at the top level."""
        wanted = self.text(name)
        child, cur = name, name.parent
        while cur is not None:
            if cur.type == "program":
                return self._top_level().get(wanted)
            if cur.type in _BLOCKS:
                # The statements just before, nearest first: walked back from the one that
                # holds the name, so a block of thousands of throws is no square of work.
                statement = child.prev_named_sibling
                for _ in range(_MAX_EARLIER):
                    if statement is None:
                        break
                    value = _declarations(self, statement).get(wanted)
                    if value is not None:
                        return value
                    statement = statement.prev_named_sibling
            child, cur = cur, cur.parent
        return None

    def _top_level(self) -> dict[str, Node]:
        if self.top_level is None:
            self.top_level = {}
            for statement in self.root.named_children if self.root is not None else ():
                for key, value in _declarations(self, statement).items():
                    self.top_level.setdefault(key, value)
        return self.top_level

    def _template(self, node: Node) -> list[Piece]:
        """A template literal: its raw text, escapes read, each `${..}` a hole."""
        pieces: list[Piece] = []
        at = node.start_byte + 1
        for child in node.children:
            if child.type not in ("template_substitution", "escape_sequence"):
                continue
            pieces.append(self.source[at : child.start_byte].decode("utf-8", "replace"))
            if child.type == "escape_sequence":
                pieces.append(unescape(self.text(child)))
            else:
                inner = [c for c in child.named_children if c.type not in ("comment",)]
                pieces.append(Hole(expression=self.code(inner[0]) if inner else ""))
            at = child.end_byte
            if len(pieces) > MAX_PIECES:
                break
        pieces.append(self.source[at : max(at, node.end_byte - 1)].decode("utf-8", "replace"))
        return pieces

    def _concatenated(self, node: Node) -> list[list[Piece]] | None:
        out: list[list[Piece]] = []
        for cur in self.summands(node, through_parentheses=True):
            if len(out) >= MAX_PIECES:
                break
            if cur is None:
                return None
            value = literal_value(cur, self.text(cur))
            if value is not None:
                out.append([value])
            elif cur.type == "template_string":
                out.append(self._template(cur))
            else:
                out.append([Hole(expression=self.code(cur))])
        return out

    # --- the handlers, one per query section ------------------------------------------

    def on_error_class(self, node: Node) -> None:
        """`class XError extends Error {..}`: an error class of this file, a definition
        named XError whose template is what its constructor passes to `super` (or sets
        as `this.message`), its parameters the fields. A class that passes its caller's
        text on (`super(message)`, or no constructor) is a definition too, whose text is
        all the caller's: `throw new XError("..")` then has that message."""
        name = node.child_by_field_name("name")
        class_name = self.text(name) if name is not None else self.class_name_of(node)
        base = _base_class(node)
        if class_name is None or base is None:
            return
        base_name = re.sub(r"\s+", "", self.text(base)).split("<", 1)[0]
        if not (base_name in BUILT_IN or base_name in self.error_classes
                or _ERROR_NAME.fullmatch(base_name)):  # fmt: skip
            return
        self.error_classes.add(class_name)
        constructor = _constructor(node)
        if constructor is None:  # the base's constructor: its own text, or the caller's
            inherited = self.built.get(base_name)
            template, fields = inherited or (_FORWARDED, ("message",))
        else:
            params = constructor.child_by_field_name("parameters")
            fields = tuple(_parameter_names(params)) if params is not None else ()
            body = constructor.child_by_field_name("body")
            message = self._built_message(body, base_name) if body is not None else None
            if message is None:
                return
            template = build_template(message[1], message[0])
        self.built[class_name] = (template, fields)
        self.definitions.append(MessageDefinition(
            language=self.language, name=class_name, owner=None, template=template,
            fields=fields, path=self.path, line=node.start_point.row + 1,
        ))  # fmt: skip

    def class_name_of(self, node: Node) -> str | None:
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator":
            name = parent.child_by_field_name("name")
            return self.text(name) if name is not None else None
        return None

    def _built_message(self, body: Node, base: str) -> tuple[list[Piece], str] | None:
        """What a constructor passes to `super(..)` first (through the base class's own
        text, when this file defines it: `super(1, 'code', message)`), or sets as
        `this.message`: the first of them with text of its own, else the first at all."""
        found: list[tuple[list[Piece], str]] = []
        stack = list(reversed(body.named_children))
        while stack and len(found) < 4:
            node = stack.pop()
            if node.type in _FUNCTIONS:
                continue
            value: Node | None = None
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                args = self.arguments(node)
                if function is not None and function.type == "super" and base in self.built:
                    found.append(self._through_base(self.built[base], args, node))
                elif function is not None and function.type == "super" and args:
                    value = args[0]
            elif node.type == "assignment_expression":
                left = node.child_by_field_name("left")
                if left is not None and re.sub(r"\s+", "", self.text(left)) == "this.message":
                    value = node.child_by_field_name("right")
            if value is not None:
                found.append(self.pieces(value) or ([self._field_hole(value)], self.code(value)))
            stack.extend(reversed(node.named_children))
        with_text = [m for m in found if any(isinstance(p, str) and p for p in m[0])]
        chosen = with_text or found
        return chosen[0] if chosen else None

    def _field_hole(self, value: Node) -> Hole:
        """A hole filled by a parameter: `msg || 'default'` prints the parameter `msg`."""
        while value.type in TRANSPARENT and value.named_child_count:
            value = value.named_children[0]
        if value.type == "binary_expression" and self.operator(value) in ("||", "??"):
            left = value.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                return Hole(expression=self.code(left))
        return Hole(expression=self.code(value))

    def _through_base(self, base: tuple[Template, tuple[str, ...]], args: Sequence[Node],
                      call: Node) -> tuple[list[Piece], str]:  # fmt: skip
        """The base class's text with what `super(..)` passes for each of its fields."""
        template, fields = base
        pieces: list[Piece] = [template.literals[0]]
        for hole, after in zip(template.placeholders, template.literals[1:], strict=True):
            name = hole.expression.removeprefix("this.")
            at = fields.index(name) if name in fields else -1
            if 0 <= at < len(args):
                found = self.pieces(args[at])
                pieces += found[0] if found is not None else [self._field_hole(args[at])]
            else:
                pieces.append(Hole(expression=hole.expression, spec=hole.spec))
            pieces.append(after)
        return pieces, self.code(call)

    def on_new(self, new: Node) -> None:
        """`new X(..)` of an error: a site with its message (thrown: RAISE; otherwise
        handed on: BAIL), and for a class of the library a construction (its own
        message, when its constructor builds one, is found by name across files)."""
        constructor = new.child_by_field_name("constructor")
        if constructor is None:
            return
        name = re.sub(r"\s+", "", self.text(constructor))
        thrown, rejected = _context(self, new)
        last = name.rsplit(".", 1)[-1]
        if not (last in BUILT_IN or last in self.error_classes or thrown
                or _ERROR_NAME.fullmatch(name)):  # fmt: skip
            return
        kind = SiteKind.RAISE if thrown or rejected else SiteKind.BAIL
        args = self.arguments(new)
        if last in BUILT_IN:
            at = _MESSAGE_AT.get(last, 0)
            found = self.pieces(args[at]) if at < len(args) else None
            if found is None or not self.add_site(kind, name, new, found):
                self.dynamic += 1
            return
        # A class of the library: its text is its constructor's, found by name in the
        # second pass, with what this call passes for each parameter.
        payloads = []
        for i, arg in enumerate(args[:MAX_PIECES]):
            found = self.pieces(arg)
            if found is not None:
                payloads.append((str(i), build_template(found[1], found[0])))
        self.add_construction(
            name, new, tuple((str(i), self.code(a)) for i, a in enumerate(args[:MAX_PIECES])),
            raised=thrown or rejected, payloads=tuple(payloads))

    def on_throw(self, throw: Node) -> None:
        """`throw "text"` / `throw `..${x}``: a thrown string (no stack, no type)."""
        value = throw.named_children[0] if throw.named_child_count else None
        if value is None or value.type == "new_expression":
            return
        found = self.pieces(value)
        if found is not None:
            self.add_site(SiteKind.RAISE, None, throw, found)

    def on_call(self, call: Node) -> None:
        name = self.call_name(call)
        args = self.arguments(call)
        if name in _REJECTS and args and args[0].type != "new_expression":
            found = self.pieces(args[0])
            if found is not None:
                self.add_site(SiteKind.RAISE, None, call, found)
            return
        rule = self.rules.get(name)
        if rule is None or rule.message_arg >= len(args):
            return
        message = args[rule.message_arg]
        if message.type == "new_expression":
            return  # `assert(x, new TypeError(..))`: the error built is the site
        rest = args[rule.message_arg + 1 :] if rule.format_args else None
        found = self.pieces(message, rest)
        guard = None
        if rule.guard_arg is not None and rule.guard_arg < len(args):
            guard = SPEC.negated.format(self.condition(args[rule.guard_arg]))
        emitted = found is not None and self.add_site(rule.kind, rule.exception, call, found,
                                                      guard=guard)  # fmt: skip
        if not emitted and rule.kind not in (SiteKind.LOG, SiteKind.WARN):
            self.dynamic += 1


def _declarations(state: _File, statement: Node) -> dict[str, Node]:
    """`const a = .., b = ..` (or `export const ..`): each name and its value."""
    if statement.type == "export_statement":
        declared = statement.child_by_field_name("declaration")
        if declared is None:
            return {}
        statement = declared
    if statement.type not in ("lexical_declaration", "variable_declaration"):
        return {}
    out: dict[str, Node] = {}
    for declarator in statement.named_children:
        if declarator.type != "variable_declarator":
            continue
        name = declarator.child_by_field_name("name")
        value = declarator.child_by_field_name("value")
        if name is not None and value is not None and name.type == "identifier":
            out[state.text(name)] = value
    return out


def _context(state: _File, new: Node) -> tuple[bool, bool]:
    """Whether the error built at `new` is thrown there, or rejects a promise."""
    cur = new.parent
    while cur is not None and (cur.type in TRANSPARENT or cur.type == "await_expression"):
        cur = cur.parent
    if cur is None:
        return False, False
    if cur.type == "throw_statement":
        return True, False
    call = cur.parent if cur.type == "arguments" else None
    return False, call is not None and call.type == "call_expression" \
        and state.call_name(call) in _REJECTS


def _base_class(node: Node) -> Node | None:
    """The class a class extends: `extends Base` (JavaScript's heritage holds the
    expression, TypeScript's an `extends_clause`)."""
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    if heritage is None:
        return None
    for child in heritage.named_children:
        if child.type == "extends_clause":
            return child.child_by_field_name("value")
        if child.type not in ("implements_clause", "comment"):
            return child
    return None


def _constructor(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        name = member.child_by_field_name("name") if member.type == "method_definition" else None
        if name is not None and name.text == b"constructor":
            return member
    return None


def _parameter_names(params: Node) -> list[str]:
    """Each parameter's name in order: `a`, `a = 1`, `...rest`, TypeScript's `a: T`."""
    names: list[str] = []
    for param in params.named_children:
        node: Node | None = param
        if param.type in ("required_parameter", "optional_parameter"):
            node = param.child_by_field_name("pattern")
        if node is not None and node.type == "assignment_pattern":
            node = node.child_by_field_name("left")
        if node is not None and node.type == "rest_pattern" and node.named_child_count:
            node = node.named_children[0]
        if node is None or node.type == "comment":
            continue
        text = node.text.decode("utf-8", "replace") if node.text else ""
        names.append(text if node.type == "identifier" else f"arg{len(names)}")
    return names


class ScriptExtractor(QueryExtractor[_File]):
    """Reads files of `language` with its grammar; what it finds is `records_as`'s (a
    `.tsx` file is TypeScript: its errors are TypeScript's, its classes resolve with the
    `.ts` files' ones)."""

    def __init__(self, language: Language, records_as: Language | None = None) -> None:
        self.language = language
        self.records_as = records_as or language

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        if is_minified(source):
            raise OverBudget(MINIFIED)
        return super().extract(path, source, rules, seconds)

    def grammar(self) -> tuple[Parser, Query, tuple[str, ...]]:
        return _grammar(self.language)

    def new_state(self, path: str, source: bytes, rules: Sequence[Rule]) -> _File:
        return _File(self.records_as, path, source, rules)

    def read(self, state: _File, found: Found, root: Node) -> None:
        state.root = root
        handle(found, {
            "error_class": lambda node, _: state.on_error_class(node),
            "new": lambda node, _: state.on_new(node),
            "throw": lambda node, _: state.on_throw(node),
            "call": lambda node, _: state.on_call(node),
        })
