"""The C and C++ extractor: the error-making calls of `rules.toml` with their message
templates (`PyErr_SetString(PyExc_ValueError, "..")` and `PyErr_Format`, whose exception
class is the record's; `fprintf(stderr, ..)` followed by `abort()`/`exit()`; `assert(cond
&& "msg")`, whose printed text holds the condition as written; the checking macros of C++
libraries, `CV_Assert`, `TORCH_CHECK(cond, "msg", x)`, glog's `CHECK(x) << "msg"`), and
for C++ `throw std::runtime_error(..)` and the standard family, exception classes whose
constructors build the message (`ShapeError(int want) : std::runtime_error("want " +
std::to_string(want))`), found where they are thrown.

Parsing is done with tree-sitter-c or tree-sitter-cpp, once per file, without the
preprocessor: a macro call reads as a call. Nothing of the indexed tree is run.
`messages` reads a message expression, `paths` the conditions that lead to a site.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from tree_sitter import Node

from errdex.extract import PARSE_SECONDS, Rule, extractor_for, load_rules
from errdex.extract.filestate import QueryExtractor
from errdex.extract.queries import Found, handle
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages.c.built import made_before
from errdex.languages.c.helpers import helpers_in
from errdex.languages.c.macros import lifted
from errdex.languages.c.messages import (
    MAX_PIECES,
    STRING_NODES,
    Segment,
    braces_pieces,
    literal_value,
    macro_text,
    printf_pieces,
    written,
)
from errdex.languages.c.paths import EXITS, Paths
from errdex.languages.c.state import SKIP, declared_name, parameter_names, type_name
from errdex.models import FileExtraction, Language, MessageDefinition, SiteKind

__all__ = ["CExtractor"]

_EXCEPTION_NAME = re.compile(r"(?:Exception|Error|exception|error|Failure|failure|_fault)$")
# The standard library's exceptions (and pybind11's, which reach Python as its own):
# their text is the one they are given.
_STD = frozenset("""exception logic_error invalid_argument domain_error length_error
out_of_range runtime_error range_error overflow_error underflow_error system_error
filesystem_error format_error regex_error bad_alloc bad_cast bad_optional_access
bad_variant_access nested_exception failure ios_base::failure future_error
value_error type_error index_error key_error stop_iteration buffer_error attribute_error
import_error cast_error builtin_exception""".split())
# pybind11's exceptions, by the Python class a Python caller catches.
_PYBIND = {"value_error": "ValueError", "type_error": "TypeError", "index_error": "IndexError",
           "key_error": "KeyError", "stop_iteration": "StopIteration",
           "buffer_error": "BufferError", "attribute_error": "AttributeError",
           "import_error": "ImportError", "cast_error": "RuntimeError"}  # fmt: skip
# Calls whose value is their arguments' text joined (`c10::str("a", n)`).
_JOINS = frozenset({"c10::str", "absl::StrCat", "torch::str", "str", "StrCat"})
_BRACES = frozenset({"fmt::format", "std::format", "format", "fmt::sprintf"})
_STRINGS = frozenset({"std::string", "string", "std::string_view", "std::wstring"})
_TO_STRING = frozenset({"std::to_string", "to_string", "std::to_wstring"})
_MAX_STREAM = 64  # `<<` operands read after a checking macro
# What only C++ writes (a header shared by C and C++ keeps its `extern "C"` C).
_CPP_HEADER = re.compile(rb"^[ \t]*(?:class[ \t]+\w+[^;\n]*$|namespace[ \t]+\w+|template[ \t]*<"
                         rb"|using[ \t]+namespace\b)|\bthrow[ \t]+\w|\bstd::\w", re.MULTILINE)
_PY_EXCEPTION = re.compile(r"(?:PyExc_)?([A-Za-z_]\w*)$")


class _File(Paths):
    # --- messages ----------------------------------------------------------------------

    def segments(self, node: Node) -> list[Segment] | None:
        """A string literal (or adjacent ones with macros between) as text segments."""
        if node.type == "concatenated_string":
            out: list[Segment] = []
            for part in node.named_children:
                if part.type in SKIP:
                    continue
                value = literal_value(part.type, self.text(part))
                if value is None:
                    name = self.text(part)
                    known = macro_text(name)
                    out.append(known if known is not None else Hole(expression=name))
                else:
                    out.append(value)
            return out
        value = literal_value(node.type, self.text(node))
        return [value] if value is not None else None

    def pieces(self, node: Node) -> tuple[list[Piece], str] | None:
        """The message of `node` as pieces and as written (the literal's text, or the
        expression's source), or None when it has no text of its own."""
        if node.type == "identifier":  # a message made in a variable before
            before = made_before(self, node)
            if before is None:
                return None
            self.made_at.append((node.start_byte, node.end_byte, before[1]))
            return before[0]
        if node.type in STRING_NODES:
            found = self.segments(node)
            if found is None:
                return None
            return list(found), written(found)
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.pieces(node.named_children[0])
        if node.type == "binary_expression" and self.operator(node) == "+":
            parts = self._concatenated(node)
            if not any(isinstance(p, str) for p in parts):
                return None
            return parts, self.code(node)
        if node.type == "call_expression":
            made = self._made(node)
            if made is not None and any(isinstance(p, str) for p in made):
                return made, self.code(node)
        return None

    def _made(self, call: Node) -> list[Piece] | None:
        """The text a call makes: `std::string("..")`, `fmt::format(..)`, `c10::str(..)`,
        `x.c_str()` of a message; None for any other call."""
        name = self.call_name(call)
        args = self.arguments(call)
        if name in _STRINGS and len(args) == 1:
            found = self.pieces(args[0])
            return found[0] if found else [Hole(expression=self.code(args[0]))]
        if name in _BRACES and args:
            fmt = self.segments(args[0]) if args[0].type in STRING_NODES else None
            text = "".join(s for s in fmt if isinstance(s, str)) if fmt else None
            return braces_pieces(text, [self.code(a) for a in args[1:]]) if text else None
        if name in _JOINS:
            return self._joined(args)
        if name.endswith((".c_str", ".data", ".what")) and not args:
            function = call.child_by_field_name("function")
            target = function.child_by_field_name("argument") if function else None
            found = self.pieces(target) if target is not None else None
            return found[0] if found else None
        return None

    def _joined(self, parts: Sequence[Node]) -> list[Piece]:
        """Values printed one after another (`c10::str(a, b)`, `<< a << b`): a literal's
        text, `std::to_string(x)`'s hole, anything else a hole of its expression."""
        out: list[Piece] = []
        for part in parts[:MAX_PIECES]:
            found = self.pieces(part)
            if found is not None:
                out.extend(found[0])
            elif part.type in ("number_literal", "true", "false"):
                out.append(self.text(part))
            else:
                out.append(self._hole(part))
        return out

    def _hole(self, node: Node) -> Hole:
        if node.type == "call_expression" and self.call_name(node) in _TO_STRING:
            args = self.arguments(node)
            if len(args) == 1:
                return Hole(expression=self.code(args[0]))
        return Hole(expression=self.code(node))

    def _concatenated(self, node: Node) -> list[Piece]:
        flat: list[Node] = []
        stack = [node]
        while stack and len(flat) < MAX_PIECES:
            cur = stack.pop()
            if cur.type == "binary_expression" and self.operator(cur) == "+":
                left, right = cur.child_by_field_name("left"), cur.child_by_field_name("right")
                if left is not None and right is not None:
                    stack += [right, left]
                    continue
            flat.append(cur)
        return self._joined(flat)

    def since(self, args: Sequence[Node]) -> int | None:
        """The line where the making of a message `args` use starts, when one was made
        in a variable before them (errdex.languages.c.built)."""
        lines = [line for start, end, line in self.made_at for a in args
                 if a.start_byte <= start and end <= a.end_byte]  # fmt: skip
        return min(lines, default=None)

    def _stream(self, call: Node) -> list[Node]:
        """The operands streamed after a macro: `CHECK(x) << "a" << n` -> `"a"`, `n`."""
        out: list[Node] = []
        cur = call
        while len(out) < _MAX_STREAM:
            parent = cur.parent
            if parent is None or parent.type != "binary_expression" or \
                    parent.child_by_field_name("left") != cur or self.operator(parent) != "<<":
                break
            right = parent.child_by_field_name("right")
            if right is not None:
                out.append(right)
            cur = parent
        return out

    # --- sites -------------------------------------------------------------------------

    def on_call(self, call: Node) -> None:
        name = self.call_name(call)
        rule = self.rule_for(name)
        if rule is None:
            return
        extra = self.extras.get(rule.name, {})
        args = self.arguments(call)
        if rule.arities and len(args) not in rule.arities:
            return  # another function of a helper's name
        if "to_stderr" in extra:
            at = int(extra["to_stderr"])
            if at >= len(args) or self.text(args[at]) not in ("stderr", "std::cerr"):
                return
        if extra.get("needs_exit") and not self._exits_after(call):
            return
        kind = rule.kind
        if "levels" in extra:  # glog's `LOG(FATAL) << ..`
            level = self.text(args[0]).rsplit("::", 1)[-1] if args else ""
            if level not in extra["levels"]:
                return
            kind = SiteKind(extra["levels"][level])
        message = self._message(rule, extra, call, args)
        if message is None:
            self.dynamic += 1
            return
        exception = rule.exception
        if "exception_arg" in extra and int(extra["exception_arg"]) < len(args):
            written_class = self.code(args[int(extra["exception_arg"])])
            # `PyExc_ValueError` -> `ValueError`, `state->ShapeError` -> `ShapeError`; a
            # class chosen at run time (`error_for(code)`) names none
            found = _PY_EXCEPTION.fullmatch(written_class.replace("->", ".").rsplit(".", 1)[-1])
            exception = found.group(1) if found else None
        own = self.check_condition(call)
        if not self.add_site(kind, exception, call, message, own, since=self.since(args)):
            self.dynamic += 1

    def _message(self, rule: Rule, extra: Any, call: Node,
                 args: list[Node]) -> tuple[list[Piece], str] | None:  # fmt: skip
        """The message a checking call prints: its own (a literal, a format with its
        arguments, values joined or streamed) inside the text the runtime prints around
        it (`printed`, with `{cond}` the condition as written); `bare` when it is given
        none. None when the message is made at run time."""
        own: list[Piece] | None
        if extra.get("stream"):
            own = self._joined(self._stream(call))
        elif extra.get("streamed"):
            own = self._joined(args[rule.message_arg :]) if rule.message_arg < len(args) else []
        elif rule.message_arg >= len(args):
            own = []
        elif rule.format_args and args[rule.message_arg].type in STRING_NODES:
            fmt = self.segments(args[rule.message_arg]) or []
            own = printf_pieces(fmt, [self.code(a) for a in args[rule.message_arg + 1 :]])
        else:
            found = self.pieces(args[rule.message_arg])
            own = found[0] if found is not None else None
        if own is None:
            return None
        shape = str(extra.get("bare" if not own and "bare" in extra else "printed", "{message}"))
        if "{message}" in shape and "{cond}" not in shape and not own:
            return None  # nothing given and nothing printed around it
        cond = self._printed_condition(rule, args)
        pieces: list[Piece] = []
        for token in re.split(r"(\{\w+\})", shape):
            if token == "{message}":
                pieces.extend(own)
            elif token == "{cond}":
                pieces.append(cond)
            elif token == "{function}":
                pieces.append(Hole(expression="function"))
            elif token == "{quote}":  # glibc's opening quote: "`" before 2.x, "'" now
                pieces.append(Hole(expression="quote"))
            elif token == "{value}":
                pieces.append(Hole(expression="value"))
            elif token:
                pieces.append(token)
        if pieces and isinstance(pieces[-1], str):
            pieces[-1] = pieces[-1].rstrip()
        return pieces, shape.replace("{message}", written_message(own)).replace("{cond}", cond)

    def _printed_condition(self, rule: Rule, args: list[Node]) -> str:
        """The condition as the macro prints it (`#cond`): for `CHECK_EQ(a, b)`, `a == b`."""
        if rule.guard_op is not None and len(args) >= 2:
            return f"{self.code(args[0])} {rule.guard_op} {self.code(args[1])}"
        if rule.guard_arg is not None and rule.guard_arg < len(args):
            return self.code(args[rule.guard_arg])
        return ""

    def _exits_after(self, call: Node) -> bool:
        """Whether an exit call (`abort()`, `exit(1)`) follows the call's statement in
        its block."""
        statement = call.parent
        if statement is None or statement.type != "expression_statement":
            return False
        cur = statement.next_named_sibling
        for _ in range(8):
            if cur is None:
                return False
            if cur.type == "expression_statement" and cur.named_child_count:
                inner = cur.named_children[0]
                if inner.type == "call_expression" and self.call_name(inner) in EXITS:
                    return True
            elif cur.type not in SKIP:
                return False
            cur = cur.next_named_sibling
        return False

    # --- C++ ---------------------------------------------------------------------------

    def on_thrown(self, statement: Node) -> None:
        """`throw X(..)`: a site of the message it is given, and a construction of a
        class of the library's own (which may build a message of its own)."""
        value = next((c for c in statement.named_children if c.type not in SKIP), None)
        if value is None:
            return  # `throw;` rethrows
        if value.type == "new_expression":
            kind_node = value.child_by_field_name("type")
            holder = value
        elif value.type == "call_expression":
            kind_node = value.child_by_field_name("function")
            holder = value
        elif value.type == "compound_literal_expression":  # `throw E{"msg"}`
            kind_node = value.child_by_field_name("type")
            holder = value.child_by_field_name("value") or value
        else:
            return
        if kind_node is None:
            return
        written_class = type_name(self.text(kind_node))
        short = written_class.rsplit("::", 1)[-1]
        std = short in _STD and short not in self.local_classes
        if not (std or _EXCEPTION_NAME.search(short) or short in self.local_classes):
            return
        args = self.arguments(holder) if holder is not value or value.type != \
            "compound_literal_expression" else []  # fmt: skip
        if holder.type == "initializer_list":
            args = [a for a in holder.named_children if a.type not in SKIP]
        messages = [(str(i), found) for i, a in enumerate(args) if (found := self.pieces(a))]
        exception = written_class
        if short in _PYBIND and written_class.startswith(("py::", "pybind11::")):
            exception = _PYBIND[short]
        given = False
        first = messages[0][1] if messages and (messages[0][0] == "0" or std) else None
        if first is not None and (std or short not in self.defined) and (std or len(
                first[0]) > 1 or any(isinstance(p, str) and " " in p.strip() for p in first[0])):
            given = self.add_site(SiteKind.RAISE, exception, statement, first,
                                  since=self.since(args))
        if std:
            if not messages:
                self.dynamic += 1
            return
        self.add_built(written_class, statement, args, messages, raised=True,
                       message_given=given)

    def on_exception_class(self, declaration: Node, name: Node) -> None:
        """`class XError : public std::runtime_error`: its message is what a constructor
        hands its base (`: std::runtime_error("want " + std::to_string(want))`), the
        constructor's parameters being the holes; or what `what()` returns."""
        own = self.text(name)
        bases = [type_name(self.text(b)).rsplit("::", 1)[-1]
                 for clause in declaration.named_children if clause.type == "base_class_clause"
                 for b in clause.named_children if b.type != "access_specifier"]  # fmt: skip
        if not any(_EXCEPTION_NAME.search(b) or b in _STD or b in self.local_classes
                   for b in bases) and not _EXCEPTION_NAME.search(own):  # fmt: skip
            return
        self.local_classes.add(own)
        body = declaration.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            if member.type != "function_definition":
                continue
            declarator = member.child_by_field_name("declarator")
            called = declared_name(self, declarator)
            if called == own:
                found = self._base_message(member, bases)
            elif called == "what":
                found = self._returned(member)
            else:
                continue
            if found is None:
                continue
            names = parameter_names(self, declarator) if called == own else ()
            pieces = [_named(p, names) for p in found[0]]
            template = build_template(found[1], pieces)
            if template.literal_chars == 0:
                continue
            self.defined.add(own)
            self.definitions.append(MessageDefinition(
                language=self.language, name=own, owner=None, template=template,
                fields=names, path=self.path, line=declaration.start_point.row + 1,
            ))  # fmt: skip
            return

    def on_constructor(self, constructor: Node) -> None:
        """`ShapeError::ShapeError(int want) : std::runtime_error(..) {}` written out of its
        class: the message it hands an exception base, as for one written inside."""
        declarator = constructor.child_by_field_name("declarator")
        called = declared_name(self, declarator) or ""
        scope, _, own = called.rpartition("::")
        if scope.rsplit("::", 1)[-1] != own or not (own in self.local_classes
                                                     or _EXCEPTION_NAME.search(own)):
            return
        if own in self.defined:
            return
        found = self._base_message(constructor, None)
        if found is None:
            return
        names = parameter_names(self, declarator)
        template = build_template(found[1], [_named(p, names) for p in found[0]])
        if template.literal_chars == 0:
            return
        self.defined.add(own)
        self.definitions.append(MessageDefinition(
            language=self.language, name=own, owner=None, template=template,
            fields=names, path=self.path, line=constructor.start_point.row + 1,
        ))  # fmt: skip

    def _base_message(self, constructor: Node,
                      bases: list[str] | None) -> tuple[list[Piece], str] | None:  # fmt: skip
        """What a constructor hands its base: one of `bases`, or (out of its class, where
        the bases are not written) an initializer named like an exception."""
        initializers = next((c for c in constructor.named_children
                             if c.type == "field_initializer_list"), None)  # fmt: skip
        for init in initializers.named_children if initializers is not None else ():
            head = init.named_children[0] if init.named_child_count else None
            args = next((c for c in init.named_children if c.type in ("argument_list",
                                                                      "initializer_list")), None)
            base = type_name(self.text(head)).rsplit("::", 1)[-1] if head is not None else ""
            if args is None or not (base in bases if bases is not None else (
                    base in _STD or _EXCEPTION_NAME.search(base))):
                continue
            values = [a for a in args.named_children if a.type not in SKIP]
            if values:
                return self.pieces(values[0])
        return None

    def _returned(self, method: Node) -> tuple[list[Piece], str] | None:
        body = method.child_by_field_name("body")
        for statement in body.named_children if body is not None else ():
            if statement.type == "return_statement" and statement.named_child_count:
                return self.pieces(statement.named_children[0])
        return None


def written_message(pieces: Sequence[Piece]) -> str:
    return "".join(p if isinstance(p, str) else "{" + (p.expression or "?") + "}"
                   for p in pieces)  # fmt: skip


def _named(piece: Piece, params: tuple[str, ...]) -> Piece:
    """A hole filled from a constructor parameter is named by it (its field)."""
    if isinstance(piece, Hole) and piece.expression in params:
        return Hole(expression=piece.expression, spec=piece.spec, name=piece.expression)
    return piece


@cache
def _built_in(language: Language) -> tuple[Rule, ...]:
    return tuple(load_rules(language))


class CExtractor(QueryExtractor[_File]):
    """The extractor of C (`Language.C`) or C++ (`Language.CPP`): one reader, each
    grammar's own compiled query."""

    def __init__(self, language: Language) -> None:
        self.language = language

    def new_state(self, path: str, source: bytes, rules: Sequence[Rule]) -> _File:
        return _File(self.language, path, source, rules)

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        if self.language is Language.C and path.endswith(".h") and _CPP_HEADER.search(source):
            # A `.h` of a C++ library (classes, namespaces, `throw`): read as C++, so its
            # exception classes meet the `.cpp` files that throw them.
            given = {r.name for r in rules}
            more = [r for r in _built_in(Language.CPP) if r.name not in given]
            return extractor_for(Language.CPP).extract(path, source, (*rules, *more), seconds)
        return super().extract(path, source, rules, seconds)

    def read(self, state: _File, found: Found, root: Node) -> None:
        found.setdefault("exception_class", [])
        found.setdefault("thrown", [])
        found.setdefault("constructor", [])
        handle(found, {  # classes first: the throws resolve against them
            "exception_class": lambda node, name: state.on_exception_class(node, name)
            if name is not None else None,
            "constructor": lambda node, _: state.on_constructor(node),
            "call": lambda node, _: state.on_call(node),
            "thrown": lambda node, _: state.on_thrown(node),
        })

    def read_more(self, state: _File, root: Node, rules: Sequence[Rule], seconds: float) -> None:
        state.found_helpers += helpers_in(state, root, _STD, _PYBIND)
        macros = lifted(root, state.source, _raises(rules))
        if macros is not None:  # the raises in macro bodies, at their lines in this file
            state.sites += self.sites_in(state, macros, rules, seconds)


@cache
def _raises_of(names: frozenset[str]) -> re.Pattern[bytes]:
    words = "|".join(re.escape(n.rsplit("::", 1)[-1]) for n in sorted(names))
    return re.compile(rb"\b(?:throw|" + words.encode() + rb")\b")


def _raises(rules: Sequence[Rule]) -> re.Pattern[bytes]:
    """What a macro body that raises holds: a rule's call or a `throw`."""
    return _raises_of(frozenset(r.name for r in rules if r.form == "call"))
