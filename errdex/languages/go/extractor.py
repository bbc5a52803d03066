"""The Go extractor: the error-making calls of `rules.toml` (`errors.New`, `fmt.Errorf`,
`panic`, `log.Fatal*`) with their message templates; sentinel errors (`var ErrX =
errors.New(..)`), whose sites are also where they are returned by name; and error types
with an `Error() string` method, whose text is the template and whose sites are where a
value of the type is built in a `return` (`return nil, &DimError{Want: 1, Got: n}`).

Parsing is done with tree-sitter-go, once per file; nothing of the indexed tree is run.
`messages` reads a message expression, `paths` the conditions that lead to a site.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.filestate import QueryExtractor
from errdex.extract.queries import Found, handle
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages.go.helpers import collected_into_errors, discovered_rules
from errdex.languages.go.messages import (
    FORMATTERS,
    MAX_PIECES,
    concatenation,
    format_pieces,
    literal_value,
)
from errdex.languages.go.paths import Paths
from errdex.languages.go.state import receiver_type
from errdex.languages.go.wrappers import HELPER, METHOD, PRINTED, around, helpers_in
from errdex.models import (
    Language,
    MessageDefinition,
    SiteKind,
    Template,
)

__all__ = ["GoExtractor"]

_SENTINEL_NAME = re.compile(r"(?:[A-Za-z_]\w*\.)?[Ee]rr[A-Z0-9_]\w*")
_ERROR_TYPE = re.compile(r"(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*Error")  # Go names them so
_MAX_LIFT = 4  # parents between a composite literal and the `return` that hands it out


class _File(Paths):
    def pieces(self, node: Node, formats: bool = False,
               rest: Sequence[Node] = ()) -> tuple[list[Piece], str] | None:  # fmt: skip
        """The message of `node` as pieces and as written (the format string, or the
        expression's source), or None when it has no text of its own."""
        value = literal_value(node, self.text(node))
        if value is not None:
            if formats:
                return format_pieces(value, [self.code(a) for a in rest]), value
            return [value], value
        if node.type == "call_expression" and self.call_name(node) in FORMATTERS:
            args = self.arguments(node)
            first = literal_value(args[0], self.text(args[0])) if args else None
            if first is None:
                return None
            return format_pieces(first, [self.code(a) for a in args[1:]]), first
        if node.type == "binary_expression" and self.operator(node) == "+":
            parts = self._concatenated(node)
            if parts is None or all(v is None for v, _ in parts):
                return None
            return concatenation(parts), self.code(node)
        if node.type == "parenthesized_expression" and node.named_child_count:
            return self.pieces(node.named_children[0], formats, rest)
        return None

    def _concatenated(self, node: Node) -> list[tuple[str | None, str]] | None:
        out: list[tuple[str | None, str]] = []
        for cur in self.summands(node):
            if len(out) >= MAX_PIECES:
                break
            if cur is None:
                return None
            out.append((literal_value(cur, self.text(cur)), self.code(cur)))
        return out

    # --- the handlers, one per query section ------------------------------------------

    def on_call(self, call: Node) -> None:
        if call.id in self.handled:
            return
        name = self.call_name(call)
        rule = self.rules.get(name)
        if rule is None and "." in name:  # a helper of another package: `errs.Wrap(..)`
            qualifier, _, last = name.rpartition(".")
            rule = self.rules.get(last)
            if rule is not None and dict(rule.details).get(HELPER) != qualifier \
                    and not dict(rule.details).get(METHOD):
                rule = None
        if rule is None:
            if name == "fmt.Sprintf" and collected_into_errors(call, self.source):
                found = self.pieces(call)
                if found is None or not self.add_site(SiteKind.BAIL, None, call, found):
                    self.dynamic += 1
            elif _ERROR_TYPE.fullmatch(name) and len(self.arguments(call)) == 1 and (
                    _in_return(call)):
                # `return UnsupportedError(kind)`: a conversion to an error type of
                # another type (`type UnsupportedError string`) builds it.
                self.add_construction(name, call)
            return
        args = self.arguments(call)
        if rule.message_arg >= len(args) or (rule.arities and len(args) not in rule.arities):
            return
        message = args[rule.message_arg]
        if message.type == "call_expression" and self.call_name(message) in self.rules:
            return  # `panic(errors.New(..))`: the inner call is the site
        found = self.pieces(message, name in FORMATTERS or rule.format_args,
                            args[rule.message_arg + 1 :])
        printed = dict(rule.details).get(PRINTED)
        if found is not None and isinstance(printed, str):  # a helper's own text around it
            found = around(printed, found[0]), printed.replace("{message}", found[1])
        if found is None or not self.add_site(rule.kind, rule.exception, call, found):
            self.dynamic += 1

    def on_sentinel(self, spec: Node) -> None:
        """`var ErrX = errors.New("..")`: a definition named `ErrX` whose sites are where
        it is returned by name. A sentinel this file never returns keeps its declaration
        as its site (it may leave from another file, or only wrapped)."""
        name = spec.child_by_field_name("name")
        values = spec.child_by_field_name("value")
        call = values.named_children[0] if values is not None and values.named_children else None
        if name is None or call is None or call.type != "call_expression":
            return
        rule = self.rules.get(self.call_name(call))
        args = self.arguments(call)
        if rule is None or not args:
            return
        found = self.pieces(args[0], self.call_name(call) in FORMATTERS, args[1:])
        if found is None:
            return
        self._define(self.text(name), build_template(found[1], found[0]), (), spec)
        if self.text(name) in self.returned:
            self.handled.add(call.id)  # its sites are its returns, not its declaration

    def on_error_method(self, method: Node, name: Node) -> None:
        """`func (e *T) Error() string { return .. }`: T's text is what it returns, the
        fields it reads through the receiver are the template's holes."""
        params = method.child_by_field_name("parameters")
        receiver = method.child_by_field_name("receiver")
        body = method.child_by_field_name("body")
        if self.text(name) != "Error" or receiver is None or body is None:
            return
        if params is not None and params.named_child_count:
            return
        owner = receiver_type(self.text(receiver))
        var = next((self.text(c) for d in receiver.named_children for c in d.named_children
                    if c.type == "identifier"), None)  # fmt: skip
        for returned in _returns(body):
            values = returned.named_children[0] if returned.named_child_count else None
            if values is None or not values.named_children or owner is None:
                continue
            found = self.pieces(values.named_children[0])
            if found is None:
                continue
            pieces = [_field_hole(p, var) for p in found[0]]
            template = build_template(found[1], pieces)
            fields = tuple(p.name for p in pieces if isinstance(p, Hole) and p.name)
            self._define(owner, template, fields, method)
            return

    def _define(self, name: str, template: Template, fields: tuple[str, ...],
                at: Node) -> None:  # fmt: skip
        if template.literal_chars == 0:
            return
        self.definitions.append(MessageDefinition(
            language=Language.GO, name=name, owner=None, template=template, fields=fields,
            path=self.path, line=at.start_point.row + 1,
        ))  # fmt: skip

    def on_composite(self, literal: Node) -> None:
        """`&T{Field: v}` handed out by a `return`: a construction of T."""
        if not _in_return(literal):
            return
        kind = literal.child_by_field_name("type")
        body = literal.child_by_field_name("body")
        if kind is None:
            return
        fields: list[tuple[str, str]] = []
        for element in body.named_children if body is not None else ():
            if element.type == "keyed_element" and element.named_child_count >= 2:
                key, value = element.named_children[0], element.named_children[-1]
                fields.append((self.text(key).strip(), self.code(value)))
        self.add_construction(self.text(kind), literal, tuple(fields))

    def on_returned(self, value: Node) -> None:
        """`return nil, ErrNotFound`: where a sentinel error leaves its function."""
        text = self.text(value)
        if _SENTINEL_NAME.fullmatch(text):
            self.add_construction(text, value)


def _field_hole(piece: Piece, receiver: str | None) -> Piece:
    """A hole filled from the receiver's field (`e.Want`) is named by that field."""
    if isinstance(piece, Hole) and receiver and piece.expression.startswith(receiver + "."):
        field = piece.expression[len(receiver) + 1 :]
        if field.isidentifier():
            return Hole(expression=piece.expression, spec=piece.spec, name=field)
    return piece


def _returns(body: Node) -> list[Node]:
    found: list[Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            found.append(node)
        elif node.type != "func_literal":
            stack.extend(reversed(node.named_children))
    return found


def _in_return(node: Node) -> bool:
    cur = node.parent
    for _ in range(_MAX_LIFT):
        if cur is None:
            return False
        if cur.type == "return_statement":
            return True
        cur = cur.parent
    return False


class GoExtractor(QueryExtractor[_File]):
    language = Language.GO
    state_type = _File

    def read(self, state: _File, found: Found, root: Node) -> None:
        state.returned = {state.text(node) for node, _ in found["returned"]}
        for rule in discovered_rules(root, state.source, set(state.rules)):
            state.rules[rule.name] = rule
        handle(found, {
            "sentinel": lambda node, _: state.on_sentinel(node),
            "error_method": lambda node, name: state.on_error_method(node, name)
            if name is not None else None,
            "call": lambda node, _: state.on_call(node),
            "composite": lambda node, _: state.on_composite(node),
            "returned": lambda node, _: state.on_returned(node),
        })

    def read_more(self, state: _File, root: Node, rules: Sequence[Rule], seconds: float) -> None:
        state.found_helpers += helpers_in(state, root)
