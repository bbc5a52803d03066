"""Rust extraction: one tree-sitter parse per file, a handful of queries over that tree.

What raises is data (`rules.toml` beside this module): macros (`bail!`, `panic!`, `assert_eq!`),
methods (`.expect`, `.context`) and calls (`Error::msg`, `Err(...)`). Message text comes
from string literals, `format!`/`concat!` and Rust's format syntax, parsed here into the
`Piece`s that `errdex.extract.templates.build_template` turns into a `Template`. thiserror
`#[error("...")]` variants become `MessageDefinition`s, and every `Path::Variant {..}` /
`Path::Variant(..)` a `Construction`, resolved later across files.

The extractor is split by concern: `literals` (string literals, format syntax), `ruleset`
(rules and the query), `state` (the file being read), `conditions` (function, guard),
`messages` (a message argument's text), `errortypes` (thiserror definitions and
constructions); this module finds the sites and runs the query.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from tree_sitter import Node, Parser, QueryCursor

from errdex.extract import PARSE_SECONDS, Rule, parse_file
from errdex.extract.outline import file_structure
from errdex.extract.queries import OUTLINE, Captures
from errdex.extract.shared import find_call_rule, is_literal, rule_guard
from errdex.extract.structure import Gate
from errdex.extract.templates import build_template
from errdex.languages.rust import SPEC, build, composed, conversions, modules, options
from errdex.languages.rust.errortypes import _CAMEL, ErrorTypes
from errdex.languages.rust.literals import literal_value, parse_format, unescape
from errdex.languages.rust.messages import _FORMAT_MACROS
from errdex.languages.rust.ruleset import TS_LANGUAGE, _normalize_path, _rule_set
from errdex.languages.rust.state import _COMMENTS, _Context
from errdex.models import FileExtraction, Language, Site, Template

__all__ = ["RustExtractor", "literal_value", "parse_format", "unescape"]

_PARSER = Parser(TS_LANGUAGE)

# What Rust prints for these macros, before the message if there is one.
_PANIC_TEXT = {
    "unreachable": "internal error: entered unreachable code",
    "todo": "not yet implemented",
    "unimplemented": "not implemented",
    "panic": "explicit panic",
}
# Calls that only wrap a value: a site when they wrap text, nothing when they pass a value on.
_VALUE_WRAPPERS = frozenset({"Err"})


class _File(ErrorTypes):
    # ---- sites ---------------------------------------------------------------------

    def add_site(
        self,
        rule: Rule,
        node: Node,
        line_node: Node,
        template: Template,
        guard: str | None,
        ctx: _Context,
    ) -> None:
        if template.literal_chars == 0 and not composed.names_constant(template):
            self.dynamic += 1
            return
        line = line_node.start_point.row + 1
        bound = tuple(
            (hole.name, hole.expression)
            for hole in template.placeholders
            if is_literal(hole.expression, '"')
        )
        self.sites.append(
            Site(
                language=Language.RUST,
                kind=rule.kind,
                exception=rule.exception,
                template=template,
                path=self.path,
                line=line,
                end_line=node.end_point.row + 1,
                function=ctx.function,
                guard=guard if guard is not None else ctx.guard,
                snippet=self.lines.snippet(line),
                bound=bound,
            )
        )
        self.record_path(node, line, node.end_point.row + 1, guard)

    def macro_site(self, rule: Rule, name: str, node: Node, first: Node, tree: Node) -> None:
        ctx = self.context(first)
        if ctx.skip:
            return
        args = self.tt_args(tree)
        checked = rule.guard_arg is not None or rule.guard_op is not None
        wanted = args[: max(rule.guard_arg or 0, 1) + 1] if checked else []
        guard = rule_guard(rule, [self.span_code(arg) for arg in wanted], SPEC.negated)
        prefix = _PANIC_TEXT.get(name)
        if rule.message_arg >= len(args):
            if prefix is not None:
                template = Template.literal(prefix)
            elif name == "ensure" and args:
                condition = self.span_line(args[0])
                template = Template.literal(f"Condition failed: `{condition}`")
            else:
                return  # an assertion without a message, or nothing to say
            self.add_site(rule, node, first, template, guard, ctx)
            return
        msg = self.reduce(args[rule.message_arg])
        text, pieces = self.pieces_or_hole(msg, args[rule.message_arg + 1 :], True)
        if prefix is not None and name != "panic":
            text = f"{prefix}: {text}"
            pieces = [f"{prefix}: ", *pieces]
        self.add_site(rule, node, first, build_template(text, pieces), guard, ctx)

    def macro_invocation(self, node: Node, name_node: Node) -> None:
        name = self.text(name_node)
        rule = self.rules.macros.get(name)
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        if rule is None or tree is None:
            return
        self.macro_site(rule, name, node, node, tree)

    def token_macro(self, name_node: Node, tree: Node) -> None:
        prev = tree.prev_sibling
        if prev is None or prev.type != "!" or prev.prev_sibling != name_node:
            return
        name = self.text(name_node)
        rule = self.rules.macros.get(name)
        if rule is None:
            return
        first = name_node
        while True:
            sep = first.prev_sibling
            if sep is None or sep.type != "::":
                break
            seg = sep.prev_sibling
            if seg is None or seg.type not in ("identifier", "crate", "self", "super"):
                break
            first = seg
        before = first.prev_sibling
        if before is not None and before.type in (".", "$"):
            return
        self.macro_site(rule, name, tree, first, tree)

    def method_call(self, call: Node, method: Node) -> None:
        rule = self.rules.methods.get(self.text(method))
        arguments = call.child_by_field_name("arguments")
        if rule is None or arguments is None:
            return
        args = self.call_args(arguments)
        if rule.message_arg >= len(args):
            return
        ctx = self.context(call)
        if ctx.skip:
            return
        msg = self.reduce(args[rule.message_arg])
        text, pieces = self.pieces_or_hole(msg, (), False)
        self.add_site(rule, call, method, build_template(text, pieces), None, ctx)

    def call_rule(self, call: Node, function: Node) -> bool:
        """A call that a rule names: a site (or dynamic). True if a rule matched."""
        path = _normalize_path(self.text(function))
        last = path.rsplit("::", 1)[-1]
        named = [(_normalize_path(r.name).replace(".", "::"), r)
                 for r in self.rules.calls.get(last, [])]  # fmt: skip
        rule = find_call_rule(path, named, "::", bare_rule_matches_path=True, short_callee=False)
        arguments = call.child_by_field_name("arguments")
        if rule is None or arguments is None:
            return False
        args = self.call_args(arguments)
        if rule.message_arg >= len(args):
            return True
        msg = self.reduce(args[rule.message_arg])
        wrapper = last in _VALUE_WRAPPERS
        if wrapper and not (msg.kind == "lit" or msg.text in _FORMAT_MACROS | {"concat"}):
            return True
        result = self.message(msg, (), False)
        if result is None and wrapper:
            return True
        ctx = self.context(call)
        if ctx.skip:
            return True
        text, pieces = result if result is not None else self.pieces_or_hole(msg, (), False)
        self.add_site(rule, call, call, build_template(text, pieces), None, ctx)
        return True

    def scoped_call(self, call: Node, name: Node) -> None:
        function = call.child_by_field_name("function")
        if function is None:
            return
        if self.rules.calls.get(self.text(name)) and self.call_rule(call, function):
            return
        if not _CAMEL.match(self.text(name)):
            return
        path = function.child_by_field_name("path")
        if path is None or not _CAMEL.match(self._last_segment(path)):
            return  # `module::Type(..)` is rare; `Type::Variant(..)` is what we want
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            return
        args = self.call_args(arguments)
        values = [(str(i), self.span_line(arg)) for i, arg in enumerate(args)]
        given = [(str(i), arg) for i, arg in enumerate(args)]
        self.construction(call, function, values, composed.payloads(self, given))


class RustExtractor:
    language = Language.RUST
    extensions = SPEC.suffixes

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        tree = parse_file(_PARSER, source, seconds)
        state = _File(path=path, source=source, rules=_rule_set(tuple(rules)))
        kinds = state.rules.kinds
        found: list[tuple[str, Node, Node]] = []
        seen: set[tuple[str, int, int]] = set()
        outlined: list[Captures] = []
        for index, captures in QueryCursor(state.rules.query).matches(tree.root_node):
            if kinds[index] == OUTLINE:
                outlined.append(captures)
                continue
            nodes, names = captures.get("node"), captures.get("name")
            if not nodes or not names:
                continue
            kind, node = kinds[index], nodes[0]
            key = (kind, node.start_byte, node.end_byte)
            if key in seen:
                continue
            seen.add(key)
            if kind == "attr":
                _exclude(state, node)  # `#[cfg(test)]` / `#[test]` items are skipped
            else:
                found.append((kind, node, names[0]))
        state.excluded.sort()
        _gate_aliased(state, tree.root_node)
        declared = options.command_options(tree.root_node, source)
        # errdex.languages.rust.composed's sections after the others, each in match order.
        found.sort(key=lambda f: f[0] in composed.HANDLERS)
        for kind, node, name in found:
            if state.excluded and state.is_excluded(node):
                continue
            try:
                (_HANDLERS.get(kind) or composed.HANDLERS[kind])(state, node, name)
            except (RecursionError, ValueError, IndexError, KeyError, AttributeError, TypeError):
                continue  # one odd construct must not cost the whole file
        hidden, reexported = modules.privacy(path, tree.root_node, source)
        return FileExtraction(
            sites=tuple(sorted(state.sites, key=_position)),
            definitions=tuple(state.definitions),
            constructions=tuple(
                sorted(state.constructions, key=lambda c: (c.line, c.end_line, c.type_path))
            ),
            dynamic_sites=state.dynamic,
            structure=replace(
                file_structure(SPEC.language, path, tree.root_node, source, state.paths,
                               outlined),
                test_only=tuple(state.test_only),
                gates=tuple(state.gates),
                gated_files=tuple(state.gated_files),
                hidden_modules=hidden,
                reexported=reexported,
                options=declared,
                reads=options.option_reads(source, declared),
                option_values=options.option_values(tree.root_node, source),
            ),
        )


def _position(site: Site) -> tuple[int, int, str]:
    return (site.line, site.end_line, site.template.text)


def _exclude(state: _File, attr: Node) -> None:
    """`#[cfg(test)]`/`#[test]` items are left out; an item under another `#[cfg(..)]`
    is a gate (built only when its condition holds), a `mod x;` one a gated file."""
    text = re.sub(r"\s+", "", state.text(attr))
    condition = build.cfg_condition(state.text(attr))
    test = text in ("#[cfg(test)]", "#[test]")
    if not test and condition is None:
        return
    item = attr.next_named_sibling
    while item is not None and (item.type == "attribute_item" or item.type in _COMMENTS):
        item = item.next_named_sibling
    if attr.parent is not None and attr.parent.type == "match_arm":
        item = attr.parent  # `#[cfg(not(feature = "metal"))] Device::Metal(_) => {..}`
    if item is None:
        return
    name = item.child_by_field_name("name")
    declared = item.type == "mod_item" and item.child_by_field_name("body") is None
    files = build.module_files(state.path, state.text(name)) if declared and name else ()
    if test:
        state.excluded.append((attr.start_byte, item.end_byte))
        state.test_only.extend(files)  # `mod tests;`: its whole file is test code
    elif condition is not None:
        state.gates.append(Gate(attr.start_point.row + 1, item.end_point.row + 1, condition))
        folder = (posixpath.dirname(files[1]),) if files else ()  # its submodules' folder
        state.gated_files.extend((place, condition) for place in (*files, *folder))


def _gate_aliased(state: _File, root: Node) -> None:
    """A module the file declares for every build (`pub mod dummy_cuda_backend;`) but names
    only in `use`s under one condition (`#[cfg(not(feature = "cuda"))] pub use
    dummy_cuda_backend as cuda;`) is reached only in builds where that holds: its files
    are gated by it, as a gated `mod` declaration's are."""
    modules: dict[str, tuple[str, ...]] = {}
    uses: list[tuple[int, str]] = []  # (line, first module of the path)
    # Items only: the file's own and those of its inline modules (`mod x { pub use .. }`),
    # never a function's or an impl's body.
    stack = list(root.named_children)
    while stack:
        node = stack.pop()
        body = node.child_by_field_name("body") if node.type == "mod_item" else None
        if node.type == "mod_item" and body is not None:
            stack.extend(body.named_children)
        elif node.type == "mod_item" and node.parent == root:
            name = node.child_by_field_name("name")
            if name is not None:
                modules[state.text(name)] = build.module_files(state.path, state.text(name))
        elif node.type == "use_declaration":
            path = re.sub(r"^(?:pub(?:\([^)]*\))?\s+)?use\s+", "", state.text(node))
            path = re.sub(r"^(?:(?:super|self|crate)::)+", "", path.strip())
            uses.append((node.start_point.row + 1, re.split(r"::|\s|;|\{", path, maxsplit=1)[0]))
    gated = {place for place, _ in state.gated_files}
    whole = state.text(root)
    for module, files in modules.items():
        if set(files) & gated:
            continue
        lines = [line for line, first in uses if first == module]
        written = len(re.findall(rf"\b{re.escape(module)}\b", whole))
        if not lines or written > len(lines) + 1:  # named elsewhere than its `use`s
            continue
        conditions = {tuple(g.condition for g in state.gates if g.line <= line <= g.end_line)
                      for line in lines}
        if len(conditions) != 1 or not (condition := next(iter(conditions))):
            continue
        folder = (posixpath.dirname(files[1]),)
        state.gated_files.extend((place, c) for c in condition for place in (*files, *folder))


def _call(state: _File, call: Node, name: Node) -> None:
    function = call.child_by_field_name("function")
    if function is not None:
        state.call_rule(call, function)


_HANDLERS: dict[str, Callable[[_File, Node, Node], object]] = {
    "converted": conversions.converted,
    "macro": lambda state, node, name: state.macro_invocation(node, name),
    "token": lambda state, node, name: state.token_macro(name, node),
    "method": lambda state, node, name: state.method_call(node, name),
    "call": _call,
    "scoped": lambda state, node, name: state.scoped_call(node, name),
    "struct": lambda state, node, name: state.struct_expression(node),
    "unit": lambda state, node, name: state.unit_path(node, name),
    "enum": lambda state, node, name: state.enum_item(node),
    "item": lambda state, node, name: state.struct_item(node),
}
