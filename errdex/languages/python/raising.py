"""Python messages written away from the raise: helpers that raise their argument.

`def fail(self, message, param=None): raise BadParameter(message, param=param)` makes
every `self.fail("bad value {v!r}")` a place that raises `BadParameter` with that text;
`def fail(self, msg, lineno=None, exc=TemplateSyntaxError): raise exc(msg, ...)` raises the
parameter's default type. Each such helper is a MessageDefinition (its template the raised
message with the parameter as a hole, its exception the type raised) and each call passing
text a Construction whose payload is inlined by errdex.extract.compose, resolved across
files like exception classes.

Works on the one tree and the `_File` state of errdex.languages.python.extractor, after
its handlers have run; parses nothing itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract.templates import Hole, build_template
from errdex.models import (
    Construction,
    Helper,
    Language,
    MessageDefinition,
    SiteKind,
    Template,
)

if TYPE_CHECKING:
    from errdex.languages.python.extractor import _File

# A call of a helper defined in another file is only seen by its name: these words say
# that a function exists to raise (`fail`, `raise_syntax_error`, `_error`).
_RAISER_NAME = re.compile(r"(?:^|_)(?:fail|raise|error|throw|abort)", re.IGNORECASE)
_LOGGERS = re.compile(r"log", re.IGNORECASE)  # `logger.error("..")` reports, never raises
_RECEIVERS = frozenset({"self", "cls"})


def extend(state: _File, raises: Sequence[Node], calls: Sequence[Node]) -> None:
    """Add the file's raising helpers (definitions) and the calls that pass them text
    (constructions) to `state`."""
    local: set[str] = set()
    for node in raises:
        definition = _helper(state, node)
        if definition is not None and definition.name not in local:
            local.add(definition.name)
            state.definitions.append(definition)
            if not _always_raises(node):
                continue  # raises on a condition: its parameter may be input, not a message
            state.found_helpers.append(Helper(
                language=Language.PYTHON, name=definition.name, kind=SiteKind.RAISE,
                message_arg=0, path=state.path, line=definition.line,
                exception=definition.exception, details=(("composed", True),),
                calls_read=bool(_RAISER_NAME.search(definition.name)),
            ))  # fmt: skip
    local |= state.repository_helpers
    for call in calls:
        if call.id not in state.handled:
            _helper_call(state, call, local)


def _always_raises(raise_node: Node) -> bool:
    """Whether a raise is a statement of its function's own body (under no `if`, loop,
    `try` or `with`) and the function never returns: it exists to raise, and what it is
    given is the message. Only those are helpers of the whole repository
    (errdex.extract.helpers)."""
    block = raise_node.parent
    if block is None or block.type != "block" or block.parent is None or \
            block.parent.type != "function_definition":  # fmt: skip
        return False
    stack = list(block.named_children)
    while stack:  # a `return` anywhere (not in a nested def): it may not raise at all
        node = stack.pop()
        if node.type in ("return_statement", "yield"):
            return False
        if node.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(node.named_children)
    return True


def _enclosing_function(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None:
        if parent.type == "function_definition":
            return parent
        if parent.type in ("lambda", "class_definition"):
            return None
        parent = parent.parent
    return None


def _own_parameters(state: _File, function: Node) -> tuple[str, ...]:
    names = state._parameter_names(function, splats=False)
    if names and names[0] in _RECEIVERS:
        names = names[1:]
    return names


def _helper(state: _File, raise_node: Node) -> MessageDefinition | None:
    """The helper a `raise X(param, ..)` inside a function makes of that function."""
    function = _enclosing_function(raise_node)
    name_node = function.child_by_field_name("name") if function is not None else None
    if function is None or name_node is None:
        return None
    name = state.text(name_node)
    if name.startswith("__"):
        return None  # `__init__`, `__str__`: the class's own message (extractor.on_class)
    raised = next((c for c in raise_node.named_children
                   if c != raise_node.child_by_field_name("cause")), None)
    if raised is None or raised.type != "call":
        return None
    callee = raised.child_by_field_name("function")
    arguments = raised.child_by_field_name("arguments")
    if callee is None or arguments is None or arguments.type != "argument_list":
        return None
    params = _own_parameters(state, function)
    args = state.arguments(arguments)
    message = next((args.keywords[k] for k in ("msg", "message") if k in args.keywords), None)
    if message is None and args.positional:
        message = args.positional[0]
    if message is None:
        return None
    state.scope = function
    pieces = state.pieces(message)
    if not any(isinstance(p, Hole) and p.expression in params for p in pieces):
        return None
    exception = _raised_type(state, function, state.text(callee), params)
    if exception is None:
        return None
    template = build_template(state.text(message), pieces)
    raised_class = state.defined.get(exception.rsplit(".", 1)[-1])
    if raised_class is not None and template.literal_chars == 0 and message in args.positional:
        # `raise ParseError(msg, line, col)`, whose `__init__` adds " at line {line} ..":
        # the class's text, with the helper's parameter where the class prints `msg`.
        template = _passed_into(raised_class, args.positional.index(message), template)
    return MessageDefinition(
        language=Language.PYTHON, name=name, owner=state.module or None,
        template=template, fields=params,
        path=state.path, line=function.start_point[0] + 1, exception=exception,
    )


def _passed_into(raised: MessageDefinition, position: int, own: Template) -> Template:
    """`raised`'s template with its field at `position` printing `own`'s one hole."""
    if position >= len(raised.fields) or len(own.placeholders) != 1:
        return own
    field, hole = raised.fields[position], own.placeholders[0]
    prints = [p.expression.removeprefix("self.") == field or p.name == field
              for p in raised.template.placeholders]
    if not any(prints):
        return own
    holes = tuple(hole if hit else p
                  for hit, p in zip(prints, raised.template.placeholders, strict=True))
    return Template(message=raised.template.message, literals=raised.template.literals,
                    placeholders=holes)


def _raised_type(
    state: _File, function: Node, callee: str, params: tuple[str, ...]
) -> str | None:
    """The type a helper raises: the class named, or a parameter's default class."""
    callee = re.sub(r"\s+", "", callee)
    if callee not in params:
        return callee if callee.rsplit(".", 1)[-1][:1].isupper() else None
    parameters = function.child_by_field_name("parameters")
    for param in parameters.named_children if parameters is not None else []:
        if param.type not in ("default_parameter", "typed_default_parameter"):
            continue
        key, value = param.child_by_field_name("name"), param.child_by_field_name("value")
        if key is not None and value is not None and state.text(key) == callee:
            default = re.sub(r"\s+", "", state.text(value))
            return default if default.rsplit(".", 1)[-1][:1].isupper() else None
    return None


def _helper_call(state: _File, call: Node, local: set[str]) -> None:
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or arguments.type != "argument_list":
        return
    callee = re.sub(r"\s+", "", state.text(function))
    receiver, _, name = callee.rpartition(".")
    if name not in local and (not _RAISER_NAME.search(name) or _LOGGERS.search(receiver)):
        return
    args = state.arguments(arguments)
    state.scope = state._scope_of(call)
    passed = [*((str(i), n) for i, n in enumerate(args.positional)), *args.keywords.items()]
    values = [(key, state.text(node)) for key, node in passed]

    def payloads() -> tuple[tuple[str, Template], ...]:
        given: list[tuple[str, Template]] = []
        for key, node in passed:
            if node.type not in ("string", "concatenated_string", "call", "binary_operator",
                                 "identifier"):
                continue
            pieces, source = state.expression_message(node)
            template = build_template(source, pieces)
            if template.literal_chars and any(isinstance(p, str) and p.strip() for p in pieces):
                given.append((key, template))
        return tuple(given)

    # One construction per message the call may pass (`message` assigned in each branch
    # of an `if` above it), each a template of its own.
    line, end_line = call.start_point[0] + 1, call.end_point[0] + 1
    seen: set[tuple[tuple[str, Template], ...]] = set()
    for given in state.choices(payloads):
        if not given or given in seen:
            continue
        seen.add(given)
        state.constructions.append(
            Construction(
                language=Language.PYTHON, type_path=callee, path=state.path, line=line,
                end_line=end_line, function=state.function_of(call),
                guard=state.guard_of(call), snippet=state.lines.snippet(line, end_line),
                field_values=tuple(values), payloads=given,
            )
        )
    if seen:
        state.record_path(call)
