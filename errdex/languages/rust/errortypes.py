"""Rust error types whose display text is the message: thiserror `#[error("...")]` on
enum variants and structs become `MessageDefinition`s, and every `Path::Variant {..}`,
`Path::Variant(..)` or unit `Path::Variant` a `Construction`, resolved across files later."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from errdex.extract.templates import build_template
from errdex.languages.rust import composed
from errdex.languages.rust.conditions import Conditions
from errdex.languages.rust.literals import parse_format
from errdex.languages.rust.paths import Paths
from errdex.languages.rust.ruleset import _normalize_path
from errdex.languages.rust.state import _COMMENTS
from errdex.models import Construction, Language, MessageDefinition, Template

_UNIT_PARENTS = frozenset(
    {
        "arguments",
        "return_expression",
        "field_expression",
        "let_declaration",
        "block",
        "match_arm",
        "closure_expression",
        "array_expression",
        "tuple_expression",
        "assignment_expression",
        "expression_statement",
        "try_expression",
    }
)

_CAMEL = re.compile(r"^_*[A-Z]")


class ErrorTypes(Paths, Conditions):
    # ---- definitions and constructions ---------------------------------------------

    def error_attribute(self, attribute_item: Node) -> tuple[Template, int] | bool | None:
        """The template of an `#[error("...")]`; False if it isn't one; None if skipped."""
        attribute = next((c for c in attribute_item.named_children if c.type == "attribute"), None)
        if attribute is None:
            return False
        ident = next((c for c in attribute.children if c.type in ("identifier",)), None)
        if ident is None or self.text(ident) != "error":
            return False
        tree = attribute.child_by_field_name("arguments")
        if tree is None:
            return None
        args = self.tt_args(tree)
        if not args:
            return None
        msg = self.reduce(args[0])
        if msg.kind == "lit":
            text = msg.text
        elif msg.kind == "macro" and msg.text == "concat" and msg.tree is not None:
            concat = self.concat(msg.tree)
            if concat is None:
                return None
            text = concat
        else:
            return None  # `transparent`, or something we can't read
        positional, named = self.format_args(args[1:])
        positional = [p.lstrip(".") for p in positional]
        named = {k: v.lstrip(".") for k, v in named.items()}
        pieces = parse_format(text, positional, named, numbered_fields=True)
        template = build_template(text, pieces)
        if template.literal_chars == 0:
            return None
        return template, attribute_item.start_point.row + 1

    def fields_of(self, body: Node | None) -> tuple[str, ...]:
        if body is None:
            return ()
        if body.type == "field_declaration_list":
            names: list[str] = []
            for decl in body.named_children:
                if decl.type == "field_declaration":
                    name = decl.child_by_field_name("name")
                    if name is not None:
                        names.append(self.text(name))
            return tuple(names)
        if body.type == "ordered_field_declaration_list":
            count = len(body.children_by_field_name("type"))
            return tuple(str(i) for i in range(count))
        return ()

    def enum_item(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        owner = self.text(name)
        pending: list[Node] = []
        for child in body.named_children:
            if child.type == "attribute_item":
                pending.append(child)
            elif child.type == "enum_variant":
                for attr in pending:
                    found = self.error_attribute(attr)
                    if found is False:
                        continue
                    if isinstance(found, tuple):
                        self.define(found, child, owner)
                    else:  # `transparent`, `{0}`: maybe another error passed through
                        composed.passed_through(self, child, owner, self.text(attr))
                    break
                pending = []
            elif child.type not in _COMMENTS:
                pending = []

    def struct_item(self, node: Node) -> None:
        prev = node.prev_named_sibling
        while prev is not None and prev.type in ("attribute_item", *_COMMENTS):
            if prev.type == "attribute_item":
                found = self.error_attribute(prev)
                if isinstance(found, tuple):
                    self.define(found, node, None)
                    return
                if found is None:
                    return
            prev = prev.prev_named_sibling

    def define(self, found: tuple[Template, int], item: Node, owner: str | None) -> None:
        name = item.child_by_field_name("name")
        if name is None:
            return
        template, line = found
        self.definitions.append(
            MessageDefinition(
                language=Language.RUST,
                name=self.text(name),
                owner=owner,
                template=template,
                fields=self.fields_of(item.child_by_field_name("body")),
                path=self.path,
                line=line,
            )
        )

    def construction(
        self, node: Node, path_node: Node, values: list[tuple[str, str]],
        payloads: tuple[tuple[str, Template], ...] = (),
    ) -> None:
        type_path = _normalize_path(self.text(path_node))
        last = type_path.rsplit("::", 1)[-1]
        if not _CAMEL.match(last):
            return
        ctx = self.context(node)
        if ctx.skip:
            return
        if (type_path == "Self" or type_path.startswith("Self::")) and ctx.owner:
            type_path = ctx.owner + type_path[4:]
        line = node.start_point.row + 1
        self.constructions.append(
            Construction(
                language=Language.RUST,
                type_path=type_path,
                path=self.path,
                line=line,
                end_line=node.end_point.row + 1,
                function=ctx.function,
                guard=ctx.guard,
                snippet=self.lines.snippet(line),
                field_values=tuple(values),
                payloads=payloads,
            )
        )
        self.record_path(node, line, node.end_point.row + 1)

    def struct_expression(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        values: list[tuple[str, str]] = []
        given: list[tuple[str, Sequence[Node]]] = []
        for child in body.named_children:
            if child.type == "field_initializer":
                key = child.child_by_field_name("field")
                value = child.child_by_field_name("value")
                if key is not None and value is not None:
                    values.append((self.text(key), self.oneline(value)))
                    given.append((self.text(key), [value]))
            elif child.type == "shorthand_field_initializer":
                values.append((self.text(child), self.text(child)))
        self.construction(node, name, values, composed.payloads(self, given))

    def unit_path(self, node: Node, name: Node) -> None:
        parent = node.parent
        if parent is None or parent.type not in _UNIT_PARENTS:
            return
        if parent.type == "let_declaration" and parent.child_by_field_name("value") != node:
            return
        text = self.text(name)
        if not any(c.islower() for c in text):
            return  # `DType::F32`, `u32::MAX`
        path = node.child_by_field_name("path")
        if path is None or not _CAMEL.match(self._last_segment(path)):
            return
        self.construction(node, node, [])
