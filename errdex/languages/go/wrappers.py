"""The error wrappers a Go file defines: functions that hand back (or panic with) an
error made from the message their caller passes (errdex.extract.helpers makes them rules
of the whole repository; errdex.languages.go.helpers finds those that record an error in
an object's state, for their own file).

    func wrap(err error, msg string) error {
        return fmt.Errorf("%s: %w", msg, err)          // prints "{message}: {value}"
    }
    func invalid(what string) error { return errors.New("invalid " + what) }

The error is made by a rule's call (`errors.New`, `fmt.Errorf`, `panic`) in a statement
of the function's own body (a `return` or a call), from one of its `string` parameters:
its message parameter. A call of such a helper (`wrap(err, "open config")`, or from
another package `errs.Wrap(..)`) is a site of the caller's text inside the helper's.

Works on the Go extractor's file state after its handlers ran; parses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece
from errdex.languages.go.messages import FORMATTERS, literal_value
from errdex.models import Helper, SiteKind

if TYPE_CHECKING:
    from errdex.languages.go.extractor import _File

# The detail that says a rule is a discovered helper, and its package: a call through
# that package's name (`errs.Wrap(..)` of package errs) is one of it too.
HELPER = "helper"
PRINTED = "printed"  # the helper's text around the message: `{message}`, `{value}`
METHOD = "method"  # a method: a call through any value (`p.panicf(..)`) is one of it


def helpers_in(file: _File, root: Node) -> list[Helper]:
    """The file's error helpers: its top-level functions that make an error of their
    `string` parameter."""
    out: list[Helper] = []
    clause = next((c for c in root.named_children if c.type == "package_clause"), None)
    package = file.text(clause.named_children[0]) if clause is not None and \
        clause.named_child_count else ""  # fmt: skip
    for function in root.named_children:
        if function.type not in ("function_declaration", "method_declaration"):
            continue
        method = function.type == "method_declaration"
        found = None if method else _helper(file, function, package)
        found = found or _printf_helper(file, function, package, method)
        if found is not None:
            out.append(found)
    return out


# Calls that print or make a message from a format and the arguments after it, each with
# the position of its format: what a printf-style helper hands its own format on to.
_FORMATS_AT = {**{name: 0 for name in FORMATTERS}, "fmt.Fprintf": 1, "fmt.Printf": 0}
_PRINTS = frozenset({"fmt.Fprintf", "fmt.Printf", "log.Printf"})  # printed, not raised


def _printf_helper(file: _File, function: Node, package: str, method: bool) -> Helper | None:
    """`func (p *parser) panicf(format string, v ...any) { panic(ParseError{Message:
    fmt.Sprintf(format, v...)}) }`, `func (md *MetaData) e(format string, args ...any)
    error { return fmt.Errorf(prefix+format, args...) }`, `func debugPrint(format string,
    values ...any) { fmt.Fprintf(w, "[GIN-debug] "+format, values...) }`: a function whose
    last two parameters are a format and what fills it, and that hands both on to a
    formatter. Its callers' format literal is the message (with the formatter's literal
    prefix, where it has one); it panics, returns an error, or prints, as the formatter's
    place in its body says."""
    name_node, body = function.child_by_field_name("name"), function.child_by_field_name("body")
    names, texts, variadic = _parameters(file, function)
    if name_node is None or body is None or not variadic or len(names) < 2 or not texts[-2]:
        return None
    format_name, values = names[-2], names[-1]
    for call in _calls(body):
        name = file.call_name(call)
        at = _FORMATS_AT.get(name)
        args = file.arguments(call)
        if at is None or len(args) != at + 2 or file.text(args[at + 1]) != f"{values}...":
            continue
        prefix = _prefix(file, args[at], format_name)
        if prefix is None:
            continue
        if name in _PRINTS or _handed_to_a_statement_call(file, call):
            kind = SiteKind.LOG
        elif _inside_panic(file, call, body):
            kind = SiteKind.PANIC
        else:
            kind = SiteKind.BAIL
        details: tuple[tuple[str, str | int | bool], ...] = ((HELPER, package),)
        if method:
            details = (*details, (METHOD, True))
        if prefix and "{" not in prefix:
            details = (*details, (PRINTED, prefix + "{message}"))
        return Helper(
            language=file.language, name=file.text(name_node), kind=kind,
            message_arg=len(names) - 2, path=file.path, line=function.start_point.row + 1,
            arity=None, format_args=True, details=details,
        )  # fmt: skip
    return None


def _calls(node: Node) -> Iterator[Node]:
    """The calls inside `node`, outermost first (a function literal's own are not)."""
    for child in node.named_children:
        if child.type == "func_literal":
            continue
        if child.type == "call_expression":
            yield child
        yield from _calls(child)


def _prefix(file: _File, argument: Node, format_name: str) -> str | None:
    """What a formatter's format argument puts before the helper's format: "" for the
    format itself, the literal of `"[GIN-debug] " + format`, "" for a computed prefix
    (`f + format`: the caller's text is still there, after it); None for anything else."""
    if argument.type == "identifier":
        return "" if file.text(argument) == format_name else None
    if argument.type != "binary_expression" or file.operator(argument) != "+":
        return None
    left, right = argument.child_by_field_name("left"), argument.child_by_field_name("right")
    if right is None or left is None or file.text(right) != format_name:
        return None
    return literal_value(left, file.text(left)) or ""


def _handed_to_a_statement_call(file: _File, call: Node) -> bool:
    """`c.PrintErr(fmt.Sprintf(format, i...))`: the message goes to a call whose result is
    dropped, so it is written somewhere (cobra's `PrintErrf`), not returned as an error."""
    holder = call.parent
    outer = holder.parent if holder is not None and holder.type == "argument_list" else None
    return (outer is not None and outer.type == "call_expression"
            and outer.parent is not None and outer.parent.type == "expression_statement"
            and file.call_name(outer) != "panic")  # fmt: skip


def _inside_panic(file: _File, call: Node, body: Node) -> bool:
    node = call.parent
    while node is not None and node != body:
        if node.type == "call_expression" and file.call_name(node) == "panic":
            return True
        node = node.parent
    return False


def _parameters(file: _File, function: Node) -> tuple[list[str], list[bool], bool]:
    """The parameters' names, whether each is a `string`, and whether it is variadic."""
    names: list[str] = []
    texts: list[bool] = []
    variadic = False
    params = function.child_by_field_name("parameters")
    for param in params.named_children if params is not None else ():
        kind = param.child_by_field_name("type")
        variadic = variadic or param.type == "variadic_parameter_declaration"
        for name in param.children_by_field_name("name"):
            names.append(file.text(name))
            texts.append(kind is not None and file.text(kind) == "string")
    return names, texts, variadic


def _helper(file: _File, function: Node, package: str) -> Helper | None:
    name_node, body = function.child_by_field_name("name"), function.child_by_field_name("body")
    if name_node is None or body is None:
        return None
    names, texts, variadic = _parameters(file, function)
    if not any(texts):
        return None
    statements = [c for part in body.named_children
                  for c in (part.named_children if part.type == "statement_list" else [part])]
    for statement in statements:
        call = _made(statement)
        rule = file.rules.get(file.call_name(call)) if call is not None else None
        if call is None or rule is None:
            continue
        args = file.arguments(call)
        if rule.message_arg >= len(args):
            continue
        found = file.pieces(args[rule.message_arg], file.call_name(call) in FORMATTERS,
                            args[rule.message_arg + 1 :])
        if found is None and args[rule.message_arg].type == "identifier":
            found = [Hole(expression=file.text(args[rule.message_arg]))], ""
        if found is None:
            continue
        printed = _printed(found[0], names, texts)
        if printed is None:
            continue
        text, at = printed
        details: tuple[tuple[str, str | int | bool], ...] = ((HELPER, package),)
        if text != "{message}":
            details = (*details, (PRINTED, text))
        return Helper(
            language=file.language, name=file.text(name_node), kind=rule.kind,
            message_arg=at, path=file.path, line=function.start_point.row + 1,
            arity=None if variadic else len(names), exception=rule.exception,
            details=details,
        )  # fmt: skip
    return None


def _made(statement: Node) -> Node | None:
    """The call a statement of the body makes its error with: `return f(..)`, `return
    nil, f(..)`, `panic(..)`."""
    if statement.type == "return_statement" and statement.named_child_count:
        values = statement.named_children[-1]
        last = values.named_children[-1] if values.type == "expression_list" and \
            values.named_child_count else values  # fmt: skip
        return last if last.type == "call_expression" else None
    if statement.type == "expression_statement" and statement.named_child_count:
        inner = statement.named_children[0]
        return inner if inner.type == "call_expression" else None
    return None


def _printed(pieces: Sequence[Piece], names: list[str],
             texts: list[bool]) -> tuple[str, int] | None:  # fmt: skip
    out: list[str] = []
    at: int | None = None
    for piece in pieces:
        if isinstance(piece, str):
            if re.search(r"\{\w+\}", piece):
                return None
            out.append(piece)
        elif at is None and piece.expression in names and texts[names.index(piece.expression)]:
            at = names.index(piece.expression)
            out.append("{message}")
        else:
            out.append("{value}")
    return ("".join(out), at) if at is not None else None


def around(printed: str, own: Sequence[Piece]) -> list[Piece]:
    """The caller's message `own` inside the helper's text."""
    pieces: list[Piece] = []
    for token in re.split(r"(\{\w+\})", printed):
        if token == "{message}":
            pieces.extend(own)
        elif token == "{value}":
            pieces.append(Hole(expression="value"))
        elif token:
            pieces.append(token)
    return pieces
