"""Error helpers a Go file defines for itself, found from their bodies (issue 18: helpers
are discovered, not only listed), and messages collected into a list of errors.

An error-recording helper stores its message in an object's error state and returns, the
way C-born parsers report (`func set_error(p *parser_t, context string, problem string)
bool { p.error = ERR; p.context = context; p.problem = problem; return false }`). Its
callers' literal at the message's position (`set_error(p, "while x", "found y")`) is what
the user reads, and each such call is a site. A function that hands one of its string
parameters on to such a helper at the message's position is one too.

A message collected into a list (`errs = append(errs, fmt.Sprintf("line %d: ..", n))`,
joined into one error later) is a site where it is appended.

Only this file's own helpers are found: a helper defined in another file of the package
is not known here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from errdex.extract import Rule
from errdex.models import SiteKind

# A field that says the object holds an error (`p.error`, `p.err`, `e.lastError`).
_ERROR_FIELD = re.compile(r"(?:^|_)(?:[Ee]rr(?:or)?|ERR(?:OR)?)$|[a-z]Err(?:or)?$")
# The field a message is stored in, preferred when several parameters are stored.
_MESSAGE_FIELD = re.compile(r"(?i)problem|message|msg|reason|detail|description")
_MAX_STATEMENTS = 12  # a longer body does more than record an error
_ROUNDS = 3  # helpers that call helpers, followed this deep


def _parameters(function: Node, text: bytes) -> list[tuple[str, str]]:
    """(name, type) of each parameter in order (`a, b string` gives two)."""
    params = function.child_by_field_name("parameters")
    out: list[tuple[str, str]] = []
    for decl in params.named_children if params is not None else ():
        if decl.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        kind = decl.child_by_field_name("type")
        kind_text = _text(kind, text) if kind is not None else ""
        names = [c for c in decl.named_children if c.type == "identifier"]
        for name in names or [decl]:
            out.append((_text(name, text) if names else "", kind_text))
    return out


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _statements(function: Node) -> list[Node]:
    body = function.child_by_field_name("body")
    if body is None:
        return []
    inner = next((c for c in body.named_children if c.type == "statement_list"), body)
    return [c for c in inner.named_children if c.type != "comment"]


def _assignments(statements: list[Node], source: bytes) -> Iterator[tuple[str, str, Node]]:
    """(object, field, right-hand side) of each `obj.field = value` statement."""
    for statement in statements:
        if statement.type != "assignment_statement":
            continue
        left, right = statement.child_by_field_name("left"), statement.child_by_field_name("right")
        if left is None or right is None or left.named_child_count != 1:
            continue
        target, value = left.named_children[0], right.named_children[0]
        if target.type != "selector_expression":
            continue
        obj, field = target.child_by_field_name("operand"), target.child_by_field_name("field")
        if obj is None or field is None or obj.type != "identifier":
            continue
        yield _text(obj, source), _text(field, source), value


def _recorded_message(function: Node, source: bytes) -> int | None:
    """The index of the parameter a recording helper stores as its message, or None
    when `function` is no such helper."""
    statements = _statements(function)
    if not statements or len(statements) > _MAX_STATEMENTS:
        return None
    if statements[-1].type != "return_statement":
        return None
    params = _parameters(function, source)
    strings = {name: i for i, (name, kind) in enumerate(params) if kind == "string" and name}
    by_object: dict[str, list[tuple[str, Node]]] = {}
    for obj, field, value in _assignments(statements, source):
        by_object.setdefault(obj, []).append((field, value))
    for fields in by_object.values():
        if not any(_ERROR_FIELD.search(field) for field, _ in fields):
            continue
        stored = [(field, strings[_text(v, source)]) for field, v in fields
                  if v.type == "identifier" and _text(v, source) in strings
                  and not _ERROR_FIELD.search(field)]  # fmt: skip
        if stored:
            named = [i for field, i in stored if _MESSAGE_FIELD.search(field)]
            return named[-1] if named else stored[-1][1]
    return None


def _passed_on(function: Node, source: bytes, helpers: dict[str, int]) -> int | None:
    """The parameter a function hands to a known helper as its message (`return
    set_error(p, ctx, problem)`), when it does nothing else that matters."""
    statements = _statements(function)
    if not statements or len(statements) > _MAX_STATEMENTS:
        return None
    strings = {name: i for i, (name, kind) in enumerate(_parameters(function, source))
               if kind == "string" and name}  # fmt: skip
    last = statements[-1]
    call = last.named_children[0] if last.named_child_count else None
    if last.type == "return_statement" and call is not None and call.type == "expression_list":
        call = call.named_children[0] if call.named_child_count else None
    if call is None or call.type != "call_expression":
        return None
    callee = call.child_by_field_name("function")
    at = helpers.get(_text(callee, source)) if callee is not None else None
    args = call.child_by_field_name("arguments")
    values = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    if at is None or at >= len(values) or values[at].type != "identifier":
        return None
    return strings.get(_text(values[at], source))


def discovered_rules(root: Node, source: bytes, known: set[str]) -> list[Rule]:
    """Rules for the error-recording helpers `root`'s file defines (none named `known`)."""
    functions = {_text(ident, source): node for node in root.named_children
                 if node.type == "function_declaration"
                 and (ident := node.child_by_field_name("name")) is not None}  # fmt: skip
    helpers: dict[str, int] = {}
    for name, node in functions.items():
        at = _recorded_message(node, source)
        if at is not None and name not in known:
            helpers[name] = at
    for _ in range(_ROUNDS):
        more = {name: at for name, node in functions.items()
                if name not in helpers and name not in known
                and (at := _passed_on(node, source, helpers)) is not None}  # fmt: skip
        if not more:
            break
        helpers.update(more)
    return [Rule(name=name, form="call", kind=SiteKind.BAIL, message_arg=at)
            for name, at in sorted(helpers.items())]  # fmt: skip


def collected_into_errors(call: Node, source: bytes) -> bool:
    """Whether `call` is appended to a list of errors: `errs = append(errs, call)`, the
    list's name saying so (`errs`, `d.terrors`, `problems` is not)."""
    args = call.parent
    outer = args.parent if args is not None and args.type == "argument_list" else None
    if outer is None or outer.type != "call_expression":
        return False
    callee = outer.child_by_field_name("function")
    if callee is None or _text(callee, source) != "append":
        return False
    values = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    if len(values) < 2 or values[0].id == call.id:
        return False
    last = _text(values[0], source).rsplit(".", 1)[-1]
    return re.search(r"(?i)err", last) is not None
