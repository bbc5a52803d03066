"""Python exception classes that build their own message (`__init__` passing one to
`super().__init__`, `self.args`, `__str__`): each becomes a `MessageDefinition` that
raises of the class elsewhere resolve to."""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.templates import Piece
from errdex.languages.python.messages import _MESSAGE_KEYWORDS, Messages
from errdex.languages.python.state import _Args
from errdex.languages.python.strings import _compact, _has_literal, _named, _template
from errdex.models import (
    Language,
    MessageDefinition,
    Template,
)

_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
# Names that look like exception classes (for constructions outside `raise`).
_EXCEPTION_NAME = re.compile(r"(Error|Exception|Warning|Exit|Interrupt|Failure|Fault)$")


class ExceptionClasses(Messages):
    def on_class(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = self.text(name_node)
        bases: list[str] = []
        superclasses = node.child_by_field_name("superclasses")
        if superclasses is not None:
            for base in superclasses.named_children:
                if base.type in ("identifier", "attribute"):
                    bases.append(re.sub(r"\s+", "", self.text(base)).rsplit(".", 1)[-1])
        if not bases:
            return
        if not (
            _EXCEPTION_NAME.search(name)
            or any(_EXCEPTION_NAME.search(b) or b in self.exception_classes for b in bases)
            or any(b in _BUILTIN_EXCEPTIONS for b in bases)
        ):
            return
        methods: dict[str, Node] = {}
        for child in body.named_children:
            function = child
            if child.type == "decorated_definition":
                inner = child.child_by_field_name("definition")
                if inner is None:
                    continue
                function = inner
            if function.type == "function_definition":
                method_name = function.child_by_field_name("name")
                if method_name is not None:
                    methods[self.text(method_name)] = function
        init = methods.get("__init__")
        params = self._parameters(init) if init is not None else ()
        if init is None:
            params = next(
                (self.exception_classes[b] for b in bases if b in self.exception_classes), ()
            )
        self.exception_classes[name] = params
        self.readable[name] = self._readable(init, methods, bases)
        template = self._class_template(init, methods.get("__str__"))
        if template is None:
            inherited = next((self.defined[b] for b in bases if b in self.defined), None)
            if inherited is None or init is not None or "__str__" in methods:
                return
            template = inherited.template
        definition = MessageDefinition(
            language=Language.PYTHON,
            name=name,
            owner=self.module or None,
            template=template,
            fields=params,
            path=self.path,
            line=node.start_point[0] + 1,
            attributes=self.readable[name],
        )
        self.definitions.append(definition)
        self.defined[name] = definition

    def _readable(self, init: Node | None, methods: dict[str, Node],
                  bases: Sequence[str]) -> tuple[str, ...]:
        """What a caught instance lets its user read: the public attributes `__init__`
        assigns to `self`, the public methods and properties that return a private one
        (`getMessage()` of `self._msg`), and its bases' (of this file); `args` for a
        class without `__init__` that has nothing else."""
        assigned = self._self_assigned(init) if init is not None else []
        own = [a for a in assigned if not a.startswith("_")]
        for method, function in methods.items():
            if method.startswith("_") or method in own:
                continue
            holder = function.parent
            decorated = holder is not None and holder.type == "decorated_definition"
            prop = holder is not None and decorated and any(
                self.text(d).strip() == "@property" for d in holder.named_children
                if d.type == "decorator")
            if not prop and (decorated or self._parameters(function)):
                continue
            returned = [n for n in self._walk_body(function) if n.type == "return_statement"]
            if returned and all(re.search(r"\bself\._\w", self.text(n)) for n in returned):
                own.append(method if prop else f"{method}()")
        inherited: list[str] = []
        for base in bases:  # a base of another file adds what is not seen here: left out
            inherited += [a for a in self.readable.get(base, ()) if a != "args"]
        out = list(dict.fromkeys([*inherited, *own]))
        # Without an `__init__` of its own it keeps what it is raised with in `args`.
        return tuple(out) or (("args",) if init is None else ())

    def _self_assigned(self, function: Node) -> list[str]:
        """The attributes a method assigns to `self.` (`self.x = ..`, `self.x, self.y =
        ..`), in order."""
        out: list[str] = []
        for node in self._walk_body(function):
            if node.type != "assignment" or (left := node.child_by_field_name("left")) is None:
                continue
            targets = left.named_children if left.type in ("pattern_list", "tuple_pattern") \
                else [left]
            for target in targets:
                obj = target.child_by_field_name("object")
                attr = target.child_by_field_name("attribute")
                if target.type == "attribute" and obj is not None and attr is not None \
                        and self.text(obj) == "self":
                    out.append(self.text(attr))
        return list(dict.fromkeys(out))

    def _parameters(self, function: Node) -> tuple[str, ...]:
        """The named parameters of a method, after `self`."""
        return self._parameter_names(function, splats=False)[1:]

    def _class_template(self, init: Node | None, str_method: Node | None) -> Template | None:
        attrs: dict[str, Node] = {}
        init_message: tuple[list[Piece], str] | None = None
        args_message: tuple[list[Piece], str] | None = None
        self.scope = self.init_scope = init
        if init is not None:
            for node in self._walk_body(init):
                if node.type == "assignment":
                    left = node.child_by_field_name("left")
                    right = node.child_by_field_name("right")
                    if left is None or right is None or left.type != "attribute":
                        continue
                    obj = left.child_by_field_name("object")
                    attr = left.child_by_field_name("attribute")
                    if obj is None or attr is None or self.text(obj) != "self":
                        continue
                    attr_name = self.text(attr)
                    attrs[attr_name] = right
                    if attr_name == "args" and right.type == "tuple" and args_message is None:
                        items = _named(right)
                        if items:
                            candidate = self.expression_message(items[0])
                            if _has_literal(candidate[0]):
                                args_message = candidate
                elif node.type == "call" and init_message is None:
                    init_message = self._super_init_message(node)
        best: tuple[list[Piece], str] | None = None
        if str_method is not None:
            self.scope = str_method
            for node in self._walk_body(str_method):
                if node.type != "return_statement":
                    continue
                value = next(iter(_named(node)), None)
                if value is None:
                    continue
                candidate = (self.pieces(value, 0, attrs), _compact(self.text(value)))
                if not _has_literal(candidate[0]):
                    continue
                if best is None or _literal_len(candidate[0]) > _literal_len(best[0]):
                    best = candidate
        message = best or init_message or args_message
        if message is None:
            return None
        template = _template(message)
        return template if template.literal_chars > 0 else None

    def _super_init_message(self, call: Node) -> tuple[list[Piece], str] | None:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if (
            function is None
            or function.type != "attribute"
            or arguments is None
            or arguments.type != "argument_list"
        ):
            return None
        method = function.child_by_field_name("attribute")
        obj = function.child_by_field_name("object")
        if method is None or obj is None or self.text(method) != "__init__":
            return None
        args = self.arguments(arguments)
        positional = args.positional
        if obj.type == "call":  # super().__init__(msg) / super(C, self).__init__(msg)
            callee = obj.child_by_field_name("function")
            if callee is None or self.text(callee) != "super":
                return None
        elif positional and self.text(positional[0]) == "self":  # Base.__init__(self, msg)
            positional = positional[1:]
        else:
            return None
        named = [p for p in positional
                 if p.type == "identifier" and self.text(p) in _MESSAGE_KEYWORDS]
        if len(positional) > 1 and len(named) == 1 and not args.has_splat:
            positional = named  # `super().__init__(pool, url, message)`: a base that prints it
        if len(positional) > 1 or args.has_splat:
            return None  # Exception(a, b) prints its args tuple, not a message
        if not positional and not any(k in args.keywords for k in _MESSAGE_KEYWORDS):
            return None
        message = self.message_of(_Args(positional, args.keywords, args.has_splat))
        return message if message is not None and _has_literal(message[0]) else None


def _literal_len(pieces: Sequence[Piece]) -> int:
    return sum(len(p.strip()) for p in pieces if isinstance(p, str))
