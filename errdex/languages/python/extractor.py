"""The Python extractor: `raise`, `assert`, warnings and rule-listed calls, with their
message templates, and the exception classes that build their own message.

Parsing is done with tree-sitter-python (never `ast`: the indexed code may target
another Python version), once per file. Nothing from the indexed tree is imported or run.
The extractor is split by concern: `strings` (escapes, one-line text, templates), `state`
(the file being read), `conditions` (function, guard), `scopes` (locals, parameters),
`messages` (a message expression's text), `exceptions` (classes that build their
message), `raising` (helpers that raise their argument) and `tables` (message tables read
by a raising helper); this module finds the sites and runs the query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from tree_sitter import Node, QueryCursor

from errdex.extract import PARSE_SECONDS, Rule, parse_file
from errdex.extract.outline import file_structure
from errdex.extract.queries import OUTLINE, Captures, compiled
from errdex.extract.shared import find_call_rule, rule_guard
from errdex.extract.templates import Piece
from errdex.languages.python import SPEC, options, raising, tables
from errdex.languages.python.exceptions import (
    _BUILTIN_EXCEPTIONS,
    _EXCEPTION_NAME,
    ExceptionClasses,
)
from errdex.languages.python.messages import _MESSAGE_KEYWORDS
from errdex.languages.python.paths import Paths
from errdex.languages.python.state import _Args
from errdex.languages.python.strings import _compact, _has_literal, _named, _template, module_name
from errdex.models import (
    Construction,
    FileExtraction,
    Language,
    Site,
    SiteKind,
)

__all__ = ["PythonExtractor", "module_name"]

# Classes first (a raise resolves against this file's exception classes), then raises,
# asserts and the remaining calls.
_PARSER, _QUERY, _KINDS = compiled(SPEC)
_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")


class _File(ExceptionClasses, Paths):
    def add_site(
        self,
        kind: SiteKind,
        exception: str | None,
        message: tuple[list[Piece], str] | None,
        at: Node,
        guard: str | None,
        own: str | None = None,
    ) -> bool:
        """Emit a site if its message has literal text; returns whether it did. `own` is
        the rule's own failing condition (`assert c`: `not (c)`), if it has one."""
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
        self.record_path(at, own)
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
        self.record_path(at)

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
        # One site per message the raise may carry (a name assigned in each branch of an
        # `if` above it: `if a: msg = "x"` / `else: msg = "y"`).
        messages = self.choices(lambda: self.message_of(args))
        emitted = False
        seen: set[str] = set()
        for alternative in messages:
            if alternative is None or alternative[1] in seen:
                continue
            seen.add(alternative[1])
            # `raise self._invalid_metadata(..)`: a method builds the exception; its type
            # is what that returns, not the method's name.
            raised_type = self.factories.get(type_path.rsplit(".", 1)[-1]) or (
                None if type_path.split(".")[0] in ("self", "cls") else type_path)
            emitted = self.add_site(SiteKind.RAISE, raised_type, alternative, node, guard) \
                or emitted
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

    def on_factory(self, node: Node) -> None:
        """A function returning an exception it builds: its name and the type."""
        name = node.child_by_field_name("name")
        annotation = node.child_by_field_name("return_type")
        if annotation is not None:
            built = self.text(annotation).strip().strip("'\"")
        else:
            body = node.child_by_field_name("body")
            last = body.named_children[-1] if body is not None and body.named_children else None
            call = last.named_children[0] if last is not None and last.named_children else None
            function = call.child_by_field_name("function") if call is not None else None
            built = self.text(function) if function is not None else ""
        short = built.rsplit(".", 1)[-1]
        if name is not None and re.fullmatch(r"[A-Za-z_][\w.]*", built) and (
                short in self.exception_classes or _EXCEPTION_NAME.search(short)):
            self.factories[self.text(name)] = built

    def on_assert(self, node: Node) -> None:
        parts = _named(node)
        if not parts:
            return
        self.scope = self._scope_of(node)
        guard = SPEC.negated.format(_compact(self.code(parts[0])))
        message = self.expression_message(parts[1]) if len(parts) > 1 else None
        if not self.add_site(SiteKind.ASSERT, "AssertionError", message, node, guard, guard):
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
        named = ((rule.name, rule) for rule in self.rules if rule.form != "method")
        found = find_call_rule(callee, named, ".", bare_rule_matches_path=False,
                               short_callee=True)
        if found is None and "." in callee:
            # `fut.set_exception(exc)`: a method of whatever object, named by its last part.
            receiver, _, method = callee.rpartition(".")
            found = next((r for r in self.rules if r.form == "method" and r.name == method
                          and (r.receiver is None or re.search(r.receiver, receiver))), None)
        return found

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
            inner = self._assigned_value(message_node, node)
            if inner.type == "call":
                # warnings.warn(SomeWarning("...")), fut.set_exception(SomeError("...")),
                # or the name of one assigned above: the type and message are the call's.
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
            elif inner.type == "dictionary":
                # loop.call_exception_handler({'message': '...', ...}): the context's message
                message = self._dict_message(inner)
            if message is None and rule.format_args and inner.type == "string":
                rest = args.positional[rule.message_arg + 1 :]
                message = self.logged(message_node, rest)
            if message is None:
                message = self.expression_message(message_node)
        if rule.kind is SiteKind.WARN and exception is None and not rule.format_args:
            category = args.keywords.get("category")
            if category is None and len(args.positional) > rule.message_arg + 1:
                category = args.positional[rule.message_arg + 1]
            exception = _compact(self.text(category)) if category is not None else "UserWarning"
        checked = rule.guard_arg is not None or rule.guard_op is not None
        wanted = args.positional[: max(rule.guard_arg or 0, 1) + 1] if checked else []
        own = rule_guard(rule, [_compact(self.code(arg)) for arg in wanted], SPEC.negated)
        guard = own if own is not None else self.guard_of(node)
        if not self.add_site(rule.kind, exception, message, node, guard, own):
            self.dynamic += 1


    def _assigned_value(self, expression: Node, at: Node) -> Node:
        """What a local name passed to a rule holds, where it is assigned just once before
        (`bpe = BrokenProcessPool("...")`, `context = {"message": ...}`); else the
        expression itself."""
        if expression.type != "identifier":
            return expression
        assignment = self._assignment_before(self.text(expression), at)
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if assignment is None or assignment.type != "assignment" or right is None:
            return expression
        return right if right.type in ("call", "dictionary") else expression

    def _dict_message(self, mapping: Node) -> tuple[list[Piece], str] | None:
        """The value of a `"message"` (or `"msg"`) key of a dict literal, as a message."""
        for pair in mapping.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            value = pair.child_by_field_name("value") if key is not None else None
            if key is not None and value is not None and key.type == "string" and (
                    self.text(key)[1:-1] in ("message", "msg")):
                return self.expression_message(value)
        return None


class PythonExtractor:
    language = Language.PYTHON
    extensions = SPEC.suffixes

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        tree = parse_file(_PARSER, source, seconds)
        state = _File(path, source, rules)
        # py-tree-sitter hands matches back in no fixed order (it differs with the hash
        # seed): in source order, the sites a budget keeps are the first ones, the same
        # on every run.
        found: dict[str, list[Node]] = {kind: [] for kind in SPEC.query_names}
        outlined: list[Captures] = []
        for index, captures in QueryCursor(_QUERY).matches(tree.root_node):
            if _KINDS[index] == OUTLINE:
                outlined.append(captures)
            else:
                found[_KINDS[index]].extend(captures.get("node", ()))
        handlers = {"class": state.on_class, "factory": state.on_factory, "raise": state.on_raise,
                    "assert": state.on_assert, "call": state.on_call}  # fmt: skip
        for kind in SPEC.query_names:
            found[kind].sort(key=lambda n: (n.start_byte, n.end_byte))
            for node in found[kind]:
                handlers[kind](node)
        # Messages written away from the raise: helpers raising their argument, tables.
        raising.extend(state, found["raise"], found["call"])
        tables.extend(state, tree.root_node, found["call"])
        sites = sorted(state.sites, key=lambda s: (s.line, s.end_line, s.kind.value))
        constructions = sorted(state.constructions, key=lambda c: (c.line, c.type_path))
        return FileExtraction(
            sites=tuple(sites),
            definitions=tuple(state.definitions),
            constructions=tuple(constructions),
            dynamic_sites=state.dynamic,
            helpers=tuple(state.found_helpers),
            structure=replace(
                file_structure(SPEC.language, path, tree.root_node, source, state.paths,
                               outlined),
                options=options.command_options(source.decode("utf-8", "replace"))
                if b"add_argument" in source else (),
            ),
        )
