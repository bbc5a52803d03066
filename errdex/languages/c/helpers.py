"""The error helpers a C or C++ file defines: functions that raise the message their
caller passes in (errdex.extract.helpers makes them rules of the whole repository).

    [[noreturn]] void pybind11_fail(const std::string &reason) {
        throw std::runtime_error(reason);                      // raises `reason`
    }
    inline void set_error(const handle &type, const char *message) {
        PyErr_SetString(type.ptr(), message);                  // `type` names the class
    }
    void fail_at(const char *what, int line) {
        throw parse_error(std::string(what) + " at line " + std::to_string(line));
    }                                                          // prints "{message} at line {value}"
    void check(bool ok, const char *msg) { if (!ok) throw std::invalid_argument(msg); }
                                                               // `ok` must hold
    PyObject *set_error(PyObject *exc, void *cur, const char *msg) {
        PyObject *text = to_text(cur, msg);                    // `msg`, through locals,
        ..; PyErr_SetObject(exc, made); ..                      // is what it raises
    }

A helper raises with a `throw` of a standard or exception-named class, or a call that a
rule says raises or ends the process (`PyErr_SetString`, `fprintf(stderr, ..)` before
`abort()`), given a text made from one of its parameters of a string type: its message
parameter. A text made by the helper alone (no parameter in it) is a site of its own.

Works on the C extractor's file state after its handlers ran; parses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract.templates import Hole, Piece
from errdex.languages.c.messages import STRING_NODES, printf_pieces
from errdex.languages.c.paths import EXITS
from errdex.languages.c.state import SKIP, declared_name, type_name
from errdex.models import Helper, SiteKind

if TYPE_CHECKING:
    from errdex.languages.c.extractor import _File

# A parameter whose type is one of these can carry a message.
_TEXT_TYPE = re.compile(r"\bchar\b|string|\bstr\b|String|\bwchar_t\b|\bQString\b|\bText\b")
# What a parameter is used through, as the message or the class (`why.c_str()`,
# `std::string(why)`, `type.ptr()`).
_THROUGH = re.compile(r"^(?:std::string|std::string_view|string)\s*\(\s*(\w+)\s*\)$"
                      r"|^(\w+)\s*(?:\.|->)\s*(?:c_str|data|ptr|what)\s*\(\s*\)$"
                      r"|^\(\s*(\w+)\s*\)$|^(\w+)$")
# Rule extras that make a call an error only in a context a helper body doesn't give.
_CONTEXTUAL = ("stream", "streamed", "levels")
_NESTED = frozenset({"lambda_expression", "function_definition", "class_specifier",
                     "struct_specifier"})
_EXCEPTION_NAME = re.compile(r"(?:Exception|Error|exception|error|Failure|failure|_fault)$")
_SCOPES = ("preproc_", "linkage_specification", "namespace_definition", "declaration_list",
           "template_declaration", "class_specifier", "struct_specifier",
           "field_declaration_list", "ERROR")
_MAX_TAINT = 64  # assignments followed from a parameter to the raise
_BRANCHES = frozenset({"if_statement", "for_statement", "for_range_loop", "while_statement",
                       "do_statement", "switch_statement", "case_statement", "catch_clause",
                       "conditional_expression", "try_statement"})
# A function named so raises where it says, whatever else it does first.
_RAISER_NAME = re.compile(r"(?:^|_|[a-z])(?:[Ee]rror|[Ff]ail|[Rr]aise|[Tt]hrow|[Aa]bort|[Dd]ie"
                          r"|[Pp]anic|[Ff]atal|[Bb]ail)|^(?:error|fail|raise|throw|abort|die|"
                          r"panic|fatal|bail)")


def helpers_in(file: _File, root: Node, std: frozenset[str],
               named: dict[str, str]) -> list[Helper]:  # fmt: skip
    """The file's error helpers (`std`: the standard exception classes, `named`: a
    class's name as a Python caller catches it, where it differs)."""
    out: list[Helper] = []
    for function in _functions(root):
        helper = _helper(file, function, std, named)
        if helper is not None:
            out.append(helper)
    return out


def _functions(node: Node) -> Iterator[Node]:
    """Function definitions at the top of the file, in namespaces, classes, templates
    and `#if` blocks (not those inside a function)."""
    for child in node.children:
        if child.type == "function_definition":
            yield child
        elif child.type.startswith(_SCOPES):
            yield from _functions(child)


class _Parameters:
    def __init__(self, file: _File, declarator: Node | None) -> None:
        self.names: list[str] = []
        self.text: list[bool] = []  # whether each can carry a message
        self.variadic = False
        cur = declarator
        while cur is not None and cur.type != "function_declarator":
            cur = cur.child_by_field_name("declarator")
        params = cur.child_by_field_name("parameters") if cur is not None else None
        for param in params.named_children if params is not None else ():
            if param.type == "variadic_parameter" or file.text(param) == "...":
                self.variadic = True
                continue
            if param.type in SKIP:
                continue
            inner = param.child_by_field_name("declarator")
            while inner is not None and inner.type != "identifier":
                inner = inner.child_by_field_name("declarator") or next(
                    (c for c in inner.named_children if c.type == "identifier"), None)
            self.names.append(file.text(inner) if inner is not None else "")
            written = file.text(param)
            self.text.append(bool(_TEXT_TYPE.search(written.rsplit(self.names[-1], 1)[0]
                                                    if self.names[-1] else written)))

    def index(self, expression: str) -> int | None:
        """The parameter `expression` is, through a `.c_str()` or a conversion."""
        found = _THROUGH.match(expression.strip())
        name = next((g for g in found.groups() if g), None) if found else None
        return self.names.index(name) if name in self.names else None


def _helper(file: _File, function: Node, std: frozenset[str],
            named: dict[str, str]) -> Helper | None:  # fmt: skip
    declarator = function.child_by_field_name("declarator")
    full = declared_name(file, declarator) or ""
    name = full.rsplit("::", 1)[-1]
    if not name or name == "main" or name.startswith(("operator", "~")) or any(
            c.type == "field_initializer_list" for c in function.named_children):  # fmt: skip
        return None
    if name == file.owner_of(function) or full.endswith(f"{name}::{name}"):
        return None  # a constructor: its calls build a value
    params = _Parameters(file, declarator)
    if not params.names:
        return None
    body = function.child_by_field_name("body")
    if body is None:
        return None
    taint = _tainted(file, body, params)
    for node in _raising(body):
        found = _raise_of(file, node, params, taint, std, named)
        if found is None:
            continue
        kind, exception, details, message_arg, format_args = found
        guard = _guard(file, node, body, params)
        if guard is None and not _unconditional(node, body) and not _RAISER_NAME.search(name):
            continue  # raises on a condition of its own: its text is its input's, maybe
        return Helper(
            language=file.language, name=name, kind=kind, message_arg=message_arg,
            path=file.path, line=function.start_point.row + 1,
            arity=None if params.variadic else len(params.names), exception=exception,
            guard_arg=guard, format_args=format_args, details=details,
        )  # fmt: skip
    return None


def _raising(body: Node) -> Iterator[Node]:
    """The `throw`s and calls of a function's body, in source order, not those of a
    lambda or a class inside it."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in ("throw_statement", "call_expression"):
            yield node
        stack.extend(c for c in reversed(node.named_children) if c.type not in _NESTED)


_Found = tuple[SiteKind, str | None, tuple[tuple[str, str | int | bool], ...], int, bool]


def _raise_of(file: _File, node: Node, params: _Parameters, taint: dict[str, int],
              std: frozenset[str], named: dict[str, str]) -> _Found | None:  # fmt: skip
    """(kind, exception, details, message parameter, whether it is a format) of a raise
    whose message comes from a parameter; None for any other node."""
    if node.type == "throw_statement":
        value = next((c for c in node.named_children if c.type not in SKIP), None)
        if value is None or value.type != "call_expression":
            return None
        kind_node = value.child_by_field_name("function")
        written = type_name(file.text(kind_node)) if kind_node is not None else ""
        short = written.rsplit("::", 1)[-1]
        if short in file.defined or not (short in std or _EXCEPTION_NAME.search(short)):
            return None  # a class that builds its own text: its constructions are sites
        args = file.arguments(value)
        thrown = _message(file, args[0], params, taint) if args else None
        if thrown is None:
            return None
        raised = named.get(short, written) if written.startswith(("py::", "pybind11::")) \
            else written  # fmt: skip
        return SiteKind.RAISE, raised, thrown[0], thrown[1], False
    rule = file.rule_for(file.call_name(node))
    if rule is None or rule.kind not in (SiteKind.RAISE, SiteKind.PANIC) or \
            rule.guard_arg is not None or rule.guard_op is not None:  # fmt: skip
        return None
    extra = file.extras.get(rule.name, {})
    args = file.arguments(node)
    if any(key in extra for key in _CONTEXTUAL) or rule.message_arg >= len(args):
        return None
    if "to_stderr" in extra:
        at_arg = int(extra["to_stderr"])
        if at_arg >= len(args) or file.text(args[at_arg]) not in ("stderr", "std::cerr"):
            return None
    if extra.get("needs_exit") and not _exits_later(file, node):
        return None
    given = args[rule.message_arg]
    format_args = False
    message: tuple[tuple[tuple[str, str], ...], int] | None
    if rule.format_args and given.type in STRING_NODES:
        pieces = printf_pieces(file.segments(given) or [],
                               [file.code(a) for a in args[rule.message_arg + 1 :]])
        message = _printed(pieces, params, taint)
    elif rule.format_args and params.index(file.code(given)) is not None and params.variadic:
        message = (), params.index(file.code(given)) or 0  # `die(fmt, ...)`: its format
        format_args = True
    else:
        message = _message(file, given, params, taint)
    if message is None:
        return None
    printed, at = message
    details: tuple[tuple[str, str | int | bool], ...] = printed
    exception: str | None = rule.exception
    if "exception_arg" in extra and int(extra["exception_arg"]) < len(args):
        written_class = file.code(args[int(extra["exception_arg"])])
        index = params.index(written_class)
        if index is not None:
            details = (*details, ("exception_arg", index))
        else:
            exception = written_class.replace("->", ".").rsplit(".", 1)[-1].removeprefix(
                "PyExc_")
    return rule.kind, exception, details, at, format_args


def _message(file: _File, node: Node, params: _Parameters,
             taint: dict[str, int]) -> tuple[tuple[tuple[str, str], ...], int] | None:  # fmt: skip
    """What the helper prints around its message parameter (a `printed` detail, none
    when it prints the parameter alone) and that parameter's position."""
    code = file.code(node)
    index = params.index(code)
    if index is None:
        found = _THROUGH.match(code.strip())
        local = next((g for g in found.groups() if g), None) if found else None
        index = taint.get(local or "")
    if index is not None:  # the parameter itself, whatever its type says
        return (), index
    made = file.pieces(node)
    if made is None:
        return None
    found_printed = _printed(made[0], params, taint)
    if found_printed is None:
        return None
    return found_printed


def _printed(pieces: list[Piece], params: _Parameters,
             taint: dict[str, int]) -> tuple[tuple[tuple[str, str], ...], int] | None:  # fmt: skip
    """The `printed` detail of a message made of `pieces` around one text parameter."""
    out: list[str] = []
    at: int | None = None
    for piece in pieces:
        if isinstance(piece, str):
            if re.search(r"\{\w+\}", piece):
                return None  # braces of its own would read as the detail's holes
            out.append(piece)
            continue
        index = _hole_parameter(piece, params, taint)
        if index is not None and params.text[index] and at is None:
            at = index
            out.append("{message}")
        else:
            out.append("{value}")
    if at is None:
        return None
    printed = "".join(out)
    return ((("printed", printed),) if printed != "{message}" else ()), at


def _hole_parameter(hole: Hole, params: _Parameters, taint: dict[str, int]) -> int | None:
    index = params.index(hole.expression)
    if index is None:
        index = taint.get(hole.expression.strip())
    return index


def _tainted(file: _File, body: Node, params: _Parameters) -> dict[str, int]:
    """Locals made from exactly one text parameter (`text = to_text(cur, msg)`,
    `made = call(exc, text, NULL)`): the parameter each carries."""
    out: dict[str, int] = {}
    words = {n: i for i, n in enumerate(params.names) if n and params.text[i]}
    if not words:
        return out
    stack = [body]
    seen = 0
    assignments: list[tuple[int, str, Node]] = []
    while stack and seen < 10_000:
        node = stack.pop()
        seen += 1
        if node.type == "assignment_expression" and file.operator(node) == "=":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                assignments.append((node.start_byte, file.text(left), right))
        elif node.type == "init_declarator":
            left, right = node.child_by_field_name("declarator"), node.child_by_field_name(
                "value")
            if left is not None and right is not None and left.type == "identifier":
                assignments.append((node.start_byte, file.text(left), right))
        stack.extend(c for c in node.named_children if c.type not in _NESTED)
    assignments.sort(key=lambda a: a[0])
    for _, name, value in assignments[:_MAX_TAINT]:
        used = set(re.findall(r"[A-Za-z_]\w*", file.text(value)))
        carried = {words[w] for w in used if w in words} | {out[w] for w in used if w in out}
        if len(carried) == 1 and name not in words:
            out[name] = carried.pop()
    return out


def _guard(file: _File, node: Node, body: Node, params: _Parameters) -> int | None:
    """The parameter a check helper raises on: `if (!ok) throw ..` in its body."""
    cur = node.parent
    while cur is not None and cur != body:
        if cur.type == "if_statement":
            cond = cur.child_by_field_name("condition")
            text = file.code(cond).strip("() ") if cond is not None else ""
            alternative = cur.child_by_field_name("alternative")
            if text.startswith("!") and (alternative is None or not (
                    alternative.start_byte <= node.start_byte < alternative.end_byte)):
                return params.index(text[1:].strip("() "))
            return None
        cur = cur.parent
    return None


def _exits_later(file: _File, call: Node) -> bool:
    """Whether an exit call (`abort()`, `exit(1)`) follows the call's statement."""
    statement = call
    while statement.parent is not None and statement.parent.type != "compound_statement":
        statement = statement.parent
    after = statement.next_named_sibling
    for _ in range(8):
        if after is None:
            return False
        text = file.text(after)
        if any(re.match(rf"\s*{re.escape(e)}\s*\(", text) for e in EXITS):
            return True
        after = after.next_named_sibling
    return False


def _unconditional(node: Node, body: Node) -> bool:
    """Whether `node` runs whenever the body does (no branch, loop or handler above it)."""
    cur = node.parent
    while cur is not None and cur != body:
        if cur.type in _BRANCHES:
            return False
        cur = cur.parent
    return True
