"""The Java extractor: exceptions built with a message (`throw new XException("bad " +
x)`, `String.format`, `MessageFormat.format`), the checking calls of `rules.toml`
(`Objects.requireNonNull`, Guava's `checkArgument`/`checkState`, commons-lang's
`Validate`), `assert` statements, logged errors and warnings (SLF4J's `{}`), and
exception classes whose constructors build the message (`super("want " + want)`): each
a definition whose sites are where the class is built (`throw new DimensionException(op,
2, rank)`).

Parsing is done with tree-sitter-java, once per file; nothing of the indexed tree is
run. `messages` reads a message expression, `paths` the conditions that lead to a site.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tree_sitter import Node

from errdex.extract.filestate import QueryExtractor
from errdex.extract.queries import Found, handle
from errdex.extract.templates import Hole, Piece, build_template
from errdex.languages.java import SPEC
from errdex.languages.java.messages import (
    MAX_PIECES,
    MESSAGE_FORMATS,
    STRING_FORMATS,
    concatenation,
    formatter_pieces,
    literal_value,
    marker_pieces,
    message_format_pieces,
    unquote,
)
from errdex.languages.java.paths import Paths
from errdex.languages.java.state import NULL_CHECKS, type_name
from errdex.models import (
    Language,
    MessageDefinition,
    SiteKind,
)

__all__ = ["JavaExtractor"]

_EXCEPTION_NAME = re.compile(r"(?:Exception|Error|Throwable|Failure|Fault)$")
# Classes of the JDK whose message is the one they are given: built without one, they
# have no text of their own to find (`new IllegalStateException(e)`).
_JDK_PREFIXES = ("java.", "javax.", "jdk.", "sun.")
# How a rule's message fills its placeholders, by the called name's first segment.
_GUAVA = frozenset({"Preconditions", "checkArgument", "checkState", "checkNotNull"})
_FORMATTER = frozenset({"Validate"})


def _own_method(at: Node, name: str, text: Callable[[Node], str]) -> Node | None:
    """The method `name` taking no parameter of the class whose body holds `at`."""
    body = at.parent
    while body is not None and body.type != "class_body":
        body = body.parent
    for member in body.named_children if body is not None else ():
        found = member.child_by_field_name("name")
        params = member.child_by_field_name("parameters")
        if (member.type == "method_declaration" and found is not None and params is not None
                and text(found) == name and not params.named_child_count):
            return member
    return None


class _File(Paths):
    _inlining = False  # reading a method's returned text into a message (one level)
    def pieces(self, node: Node) -> tuple[list[Piece], str] | None:
        """The message of `node` as pieces and as written (the format string, or the
        expression's source), or None when it has no text of its own."""
        value = literal_value(node, self.text(node))
        if value is not None:
            return [value], value
        if node.type == "method_invocation":
            return self._formatted(node)
        if node.type == "binary_expression" and self.operator(node) == "+":
            parts = self._concatenated(node)
            if parts is None or all(v is None for v, _ in parts):
                return None
            return concatenation(parts), self.code(node)
        if node.type == "parenthesized_expression" and node.named_child_count:
            return self.pieces(node.named_children[0])
        if node.type == "lambda_expression":  # a message supplier: `() -> "bad " + x`
            body = node.child_by_field_name("body")
            return self.pieces(body) if body is not None and body.type != "block" else None
        return None

    def _formatted(self, call: Node) -> tuple[list[Piece], str] | None:
        """`String.format(fmt, ..)` (a Locale first is skipped), `"..".formatted(..)`,
        `MessageFormat.format(pattern, ..)`."""
        name = self.call_name(call)
        args = self.arguments(call)
        obj = call.child_by_field_name("object")
        if name.endswith(".formatted") and obj is not None:
            fmt = literal_value(obj, self.text(obj))
            rest = args
            make: Callable[[str, list[str]], list[Piece]] = formatter_pieces
        elif name in STRING_FORMATS or name in MESSAGE_FORMATS:
            if args and self.text(args[0]).startswith(("Locale.", "locale", "Locale.ROOT")):
                args = args[1:]
            fmt = literal_value(args[0], self.text(args[0])) if args else None
            rest = args[1:]
            make = message_format_pieces if name in MESSAGE_FORMATS else formatter_pieces
        else:
            return None
        if fmt is None:
            return None
        return make(fmt, [self.code(a) for a in rest]), fmt

    def _concatenated(self, node: Node) -> list[tuple[str | None, str]] | None:
        out: list[tuple[str | None, str]] = []
        text_seen = False  # `"a" + 1` is "a1"; `1 + 2 + "a"` adds first
        for cur in self.summands(node):
            if len(out) >= MAX_PIECES:
                break
            if cur is None:
                return None
            if cur.type == "parenthesized_expression" and cur.named_child_count == 1:
                inner = cur.named_children[0]
                found = self.pieces(inner) if inner.type == "method_invocation" else None
                if found is None:
                    out.append((None, self.code(cur)))
                else:  # `"bad " + (String.format(..))`: its text is part of the message
                    out.extend((p, "") if isinstance(p, str) else (None, p.expression)
                               for p in found[0])  # fmt: skip
                continue
            value = literal_value(cur, self.text(cur))
            if value is None and text_seen and cur.type in _NUMBERS:
                value = self.text(cur)
            if cur.type == "method_invocation" and (found := self._formatted(cur)):
                out.extend((p, "") if isinstance(p, str) else (None, p.expression)
                           for p in found[0])  # fmt: skip
                text_seen = True
                continue
            if cur.type == "method_invocation" and (returned := self._returned_text(cur)):
                out.extend(returned)  # `+ locationString()`: the text that method returns
                text_seen = True
                continue
            text_seen = text_seen or value is not None
            out.append((value, self.code(cur)))
        return out

    def _returned_text(self, call: Node) -> list[tuple[str | None, str]] | None:
        """The concatenation a method of the same class returns, for a call of it with no
        argument (`+ locationString()`, whose body ends `return " at line " + line + ..`):
        its words are part of the message. One level: a method it calls stays a hole."""
        obj = call.child_by_field_name("object")
        name = call.child_by_field_name("name")
        arguments = call.child_by_field_name("arguments")
        if (self._inlining or name is None or arguments is None or arguments.named_child_count
                or (obj is not None and obj.type != "this")):
            return None
        method = _own_method(call, self.text(name), self.text)
        body = method.child_by_field_name("body") if method is not None else None
        last = body.named_children[-1] if body is not None and body.named_children else None
        if last is None or last.type != "return_statement" or not last.named_children:
            return None
        returned = last.named_children[0]
        if returned.type != "binary_expression" or self.operator(returned) != "+":
            return None
        self._inlining = True
        try:
            parts = self._concatenated(returned)
        finally:
            self._inlining = False
        return parts if parts and any(v for v, _ in parts) else None

    def add_site(self, kind: SiteKind, exception: str | None, at: Node,
                 message: tuple[Sequence[Piece], str], own: str | None = None,
                 guard: str | None = None, since: int | None = None) -> bool:  # fmt: skip
        # A string literal passed for a placeholder is text (`checkNotNull(x, "for %s",
        # "codec")` prints "for codec").
        pieces, written = message
        return super().add_site(kind, exception, at, ([_inlined(p) for p in pieces], written),
                                own, guard, since)  # fmt: skip

    # --- the handlers, one per query section ------------------------------------------

    def on_call(self, call: Node) -> None:
        name = self.call_name(call)
        rule = self.rule_for(name)
        if rule is None:
            if name in self.helpers or name.removeprefix("this.") in self.helpers:
                self.on_helper_call(call)
            return
        args = self.arguments(call)
        if rule.message_arg >= len(args):
            return
        message = args[rule.message_arg]
        rest = [self.code(a) for a in args[rule.message_arg + 1 :]]
        found = self.pieces(message)
        value = literal_value(message, self.text(message))
        if value is not None and rule.format_args:
            head = name.split(".", 1)[0]
            if rule.kind in (SiteKind.LOG, SiteKind.WARN):
                found = marker_pieces(value, rest, slf4j=True), value
            elif head in _GUAVA or name.rsplit(".", 2)[-2:-1] == ["Preconditions"]:
                found = marker_pieces(value, rest, slf4j=False), value
            elif head in _FORMATTER:
                found = formatter_pieces(value, rest), value
        if found is None:
            self.dynamic += 1
            return
        own: str | None = None
        if rule.guard_arg is not None or name.rsplit(".", 1)[-1] in NULL_CHECKS:
            own = self.check_condition(call)
        if not self.add_site(rule.kind, rule.exception, call, found, own):
            self.dynamic += 1

    def on_created(self, created: Node) -> None:
        """`new XException(..)`: a site of the message it is given, and a construction
        of the class (which may build a message of its own, found in another file)."""
        kind_node = created.child_by_field_name("type")
        if kind_node is None:
            return
        written = type_name(self.text(kind_node))
        short = written.rsplit(".", 1)[-1]
        if not _EXCEPTION_NAME.search(short) and short not in self.local_classes:
            return
        args = self.arguments(created)
        messages = [(str(i), found) for i, a in enumerate(args) if (found := self.pieces(a))]
        jdk = written.startswith(_JDK_PREFIXES) or (short in _JDK_EXCEPTIONS
                                                    and short not in self.local_classes)
        given = False
        # The message is the first argument: a JDK class's `String message`; for another
        # class, only text that reads as one (a bare word is more likely a name it takes).
        first = messages[0][1] if messages and messages[0][0] == "0" else None
        if first is not None and (jdk or len(first[0]) > 1 or any(
                isinstance(p, str) and " " in p.strip() for p in first[0])):
            given = self.add_site(SiteKind.RAISE, written, created, first)
        if jdk:
            if not messages:
                self.dynamic += 1
            return
        self.add_built(written, created, args, messages, raised=True, message_given=given)

    def on_exception_class(self, declaration: Node, name: Node) -> None:
        """`class X extends Y`, an exception class: its message is what a constructor
        passes to `super(..)` (the constructor's parameters are the holes), or what an
        overridden `getMessage()` returns."""
        own = self.text(name)
        superclass = declaration.child_by_field_name("superclass")
        base = type_name(self.text(superclass).removeprefix("extends").strip()) \
            if superclass is not None else ""  # fmt: skip
        if not (_EXCEPTION_NAME.search(own) or _EXCEPTION_NAME.search(base)
                or base.rsplit(".", 1)[-1] in self.local_classes):
            return
        self.local_classes.add(own)
        body = declaration.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            if member.type != "constructor_declaration":
                continue
            params = member.child_by_field_name("parameters")
            names = tuple(self.text(n) for p in (params.named_children if params else ())
                          if (n := p.child_by_field_name("name")) is not None)  # fmt: skip
            ctor_body = member.child_by_field_name("body")
            call = next((c for c in ctor_body.named_children
                         if c.type == "explicit_constructor_invocation"), None) \
                if ctor_body is not None else None  # fmt: skip
            args = self.arguments(call) if call is not None else []
            found = self.pieces(args[0]) if args else None
            if found is None:
                continue
            pieces = [_named(p, names) for p in found[0]]
            template = build_template(found[1], pieces)
            if template.literal_chars == 0:
                continue
            self.definitions.append(MessageDefinition(
                language=Language.JAVA, name=own, owner=None, template=template,
                fields=names, path=self.path, line=declaration.start_point.row + 1,
            ))  # fmt: skip
            return

    def on_helper(self, method: Node, name: Node) -> None:
        """A method that throws or returns an exception whose message is built from its
        parameters (`syntaxError(String message)`): a definition named by the method,
        raising that class, whose sites are this file's calls of it with their text."""
        params = method.child_by_field_name("parameters")
        names = tuple(self.text(n) for p in (params.named_children if params else ())
                      if (n := p.child_by_field_name("name")) is not None)  # fmt: skip
        body = method.child_by_field_name("body")
        if not names or body is None:
            return
        for created in _made_in(body):
            kind = created.child_by_field_name("type")
            args = self.arguments(created)
            written = type_name(self.text(kind)) if kind is not None else ""
            if not args or not _EXCEPTION_NAME.search(written.rsplit(".", 1)[-1]):
                continue
            found = self.pieces(args[0])
            if found is None:
                continue
            pieces = [_named(p, names) for p in found[0]]
            if not any(isinstance(p, Hole) and p.name in names for p in pieces):
                continue
            template = build_template(found[1], pieces)
            if template.literal_chars == 0:
                continue
            self.helpers.add(self.text(name))
            self.definitions.append(MessageDefinition(
                language=Language.JAVA, name=self.text(name), owner=self.owner_of(method),
                template=template, fields=names, path=self.path,
                line=method.start_point.row + 1, exception=written,
            ))  # fmt: skip
            return

    def on_helper_call(self, call: Node) -> None:
        """`throw syntaxError("Unterminated array")`: a construction of the helper's
        definition, with the text it is given."""
        args = self.arguments(call)
        messages = [(str(i), found) for i, a in enumerate(args) if (found := self.pieces(a))]
        called = call.child_by_field_name("name")
        if not messages or called is None:
            return
        self.add_built(self.text(called), call, args, messages, raised=False)

    def on_asserted(self, statement: Node) -> None:
        """`assert cond : "msg";`: an AssertionError (when assertions are enabled)."""
        parts = [c for c in statement.named_children if c.type not in ("line_comment",
                                                                        "block_comment")]
        if len(parts) < 2:
            return
        found = self.pieces(parts[1])
        if found is None:
            self.dynamic += 1
            return
        own = SPEC.negated.format(self.code(parts[0]))
        self.add_site(SiteKind.ASSERT, "AssertionError", statement, found, own)


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NUMBERS = frozenset({"decimal_integer_literal", "decimal_floating_point_literal",
                      "hex_integer_literal", "true", "false", "null_literal"})  # fmt: skip
_JDK_EXCEPTIONS = frozenset(
    """Exception RuntimeException Error Throwable IllegalArgumentException
    IllegalStateException NullPointerException UnsupportedOperationException
    IndexOutOfBoundsException ArrayIndexOutOfBoundsException StringIndexOutOfBoundsException
    ArithmeticException ClassCastException NumberFormatException IOException
    UncheckedIOException FileNotFoundException NoSuchElementException
    ConcurrentModificationException AssertionError InterruptedException TimeoutException
    ExecutionException CloneNotSupportedException NegativeArraySizeException
    IllegalMonitorStateException SecurityException DateTimeException DateTimeParseException
    EOFException NoSuchFieldException NoSuchMethodException ClassNotFoundException
    ReflectiveOperationException InvocationTargetException IllegalAccessException
    InstantiationException UnsupportedEncodingException MalformedURLException
    URISyntaxException ParseException EmptyStackException StackOverflowError
    OutOfMemoryError LinkageError ExceptionInInitializerError""".split()
)


def _made_in(body: Node) -> list[Node]:
    """The `new X(..)` a method's own `throw` or `return` statements hand out (not those of
    a lambda or a class inside it)."""
    found: list[Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in ("throw_statement", "return_statement") and node.named_child_count:
            value = node.named_children[0]
            if value.type == "object_creation_expression":
                found.append(value)
        elif node.type not in ("lambda_expression", "class_body", "local_class_declaration"):
            stack.extend(reversed(node.named_children))
    return found


def _inlined(piece: Piece) -> Piece:
    if isinstance(piece, Hole) and piece.spec in ("", "%s", "{}") and _STRING.fullmatch(
            piece.expression):
        return unquote(piece.expression)
    return piece


def _named(piece: Piece, params: tuple[str, ...]) -> Piece:
    """A hole filled from a constructor parameter is named by it (its field)."""
    if isinstance(piece, Hole) and piece.expression in params:
        return Hole(expression=piece.expression, spec=piece.spec, name=piece.expression)
    return piece


class JavaExtractor(QueryExtractor[_File]):
    language = Language.JAVA
    state_type = _File

    def read(self, state: _File, found: Found, root: Node) -> None:
        handle(found, {  # classes and helpers first: the calls resolve against them
            "exception_class": lambda node, name: state.on_exception_class(node, name)
            if name is not None else None,
            "helper": lambda node, name: state.on_helper(node, name)
            if name is not None else None,
            "call": lambda node, _: state.on_call(node),
            "created": lambda node, _: state.on_created(node),
            "asserted": lambda node, _: state.on_asserted(node),
        })
