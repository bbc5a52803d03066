"""The Rust messages users see that are not one literal at one site.

- Payloads: `Error::Backend(format!("no {} kernel", dev).into())` or `Mismatch { msg:
  format!(..), .. }` passes text for a field of a variant whose `#[error]` prints it; the
  construction carries that text (errdex.extract.compose inlines it).
- Display impls written by hand: each arm of `match self { X::A => write!(f, "..") }` in
  `impl fmt::Display for X` is the message of `X::A`, a MessageDefinition like an
  `#[error("..")]` one.
- Error constructors with a message: `PyTypeError::new_err(format!(..))` inside `Err(..)`
  or `.map_err(|e| ..)`, a site raising that type.
- Errors passed through: a `#[error(transparent)]` or `#[from]` variant makes another type's
  messages this enum's; a site at the variant names the wrapped type.

Works on the one tree and the `_File` state of errdex.languages.rust.extractor: the
extractor's one query holds this module's `SECTIONS` of queries.scm and hands their
matches to `HANDLERS`; parses nothing itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract import Rule
from errdex.extract.templates import Hole, Piece, build_template
from errdex.models import (
    Construction,
    Language,
    MessageDefinition,
    Placeholder,
    Site,
    SiteKind,
    Template,
)

if TYPE_CHECKING:
    from errdex.languages.rust.errortypes import ErrorTypes
    from errdex.languages.rust.extractor import _File
    from errdex.languages.rust.messages import Messages
    from errdex.languages.rust.state import RustFile, _Msg

# The sections of queries.scm read here, part of the extractor's one query; their matches
# are handled after every other section's (see HANDLERS at the end).
SECTIONS = ("display", "constructor", "macro_body", "constant")
_TEXT_MACROS = frozenset({"format", "format_args", "concat"})
_WRITE_MACROS = frozenset({"write", "writeln"})
_WRITE_METHODS = frozenset({"write_str", "pad", "write_fmt"})
# Calls whose argument is an error being made: `Err(..)`, `.map_err(|e| ..)`, `.ok_or(..)`.
_ERROR_METHODS = frozenset({"map_err", "ok_or", "ok_or_else", "or_else"})
# A Display impl is an error's text when the type's name says it is one.
_ERROR_TYPE = re.compile(r"Err|Fault|Failure|Panic")
_VARIANT = re.compile(r"^\s*&?\s*(?:ref\s+)?((?:[A-Za-z_]\w*\s*::\s*)*)([A-Z]\w*)\s*(.*)$", re.S)
_BINDING = re.compile(r"^(?:ref\s+)?(?:mut\s+)?([a-z_]\w*)$")
_WHOLE_FIELD = re.compile(r'^#\[error\("\{([A-Za-z_0-9]+)\}"\)\]$')
_CONSTANT_NAME = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9]$")
_STOP = frozenset({"function_item", "closure_expression", "impl_item", "source_file"})


def payloads(state: Messages, fields: Sequence[tuple[str, Sequence[Node]]]) -> tuple[
    tuple[str, Template], ...
]:
    """The fields of a construction that are given as text: field -> that text's template."""
    out: list[tuple[str, Template]] = []
    for name, nodes in fields:
        template = _text_of(state, state.reduce(nodes))
        if template is not None:
            out.append((name, template))
    return tuple(out)


def _text_of(state: Messages, msg: _Msg) -> Template | None:
    if msg.kind != "lit" and not (msg.kind == "macro" and msg.text in _TEXT_MACROS):
        return None
    result = state.message(msg, (), False)
    if result is None:
        return None
    template = build_template(*result)
    return template if template.literal_chars else None


# -- hand-written Display --------------------------------------------------------------


def _display_impl(state: _File, impl: Node, trait: Node) -> None:
    if state.text(trait).split("<")[0].rsplit("::", 1)[-1].strip() != "Display":
        return
    type_name = state._impl_name(impl)
    if not type_name or not _ERROR_TYPE.search(type_name):
        return
    body = impl.child_by_field_name("body")
    fmt = next(
        (
            item
            for item in (body.named_children if body is not None else [])
            if item.type == "function_item"
            and (fn_name := item.child_by_field_name("name")) is not None
            and state.text(fn_name) == "fmt"
        ),
        None,
    )
    block = fmt.child_by_field_name("body") if fmt is not None else None
    if block is None:
        return
    match = next(_descendants(block, "match_expression"), None)
    if match is None:
        written = _written(state, block, {})
        # A text that starts with another value's (`{} at line {}`) wraps that value's
        # message: its own words are a suffix, which the inner message's record explains.
        if written is not None and written.literals[0].strip():
            _define(state, type_name, None, written, (), block)
        return
    arms = match.child_by_field_name("body")
    for arm in arms.named_children if arms is not None else []:
        if arm.type != "match_arm":
            continue
        pattern, value = arm.child_by_field_name("pattern"), arm.child_by_field_name("value")
        if pattern is None or value is None:
            continue
        for alternative in _split_top(state.oneline(pattern), "|"):
            variant = _variant(alternative, type_name)
            if variant is None:
                continue
            owner, name, fields, bindings = variant
            written = _written(state, value, bindings)
            if written is not None:
                _define(state, name, owner, written, fields, arm)


def _variant(
    pattern: str, type_name: str
) -> tuple[str | None, str, tuple[str, ...], dict[str, str]] | None:
    """`Kind::Status(code, _)` -> ("Kind", "Status", ("0", "1"), {"code": "0"})."""
    found = _VARIANT.match(pattern.split(" if ", 1)[0])
    if found is None:
        return None
    prefix = [p.strip() for p in found.group(1).split("::") if p.strip()]
    owner = prefix[-1] if prefix else None
    if owner == "Self":
        owner = type_name
    rest = found.group(3).strip()
    fields: list[str] = []
    bindings: dict[str, str] = {}
    if rest.startswith("(") and rest.endswith(")"):
        for i, part in enumerate(_split_top(rest[1:-1], ",")):
            fields.append(str(i))
            binding = _BINDING.match(part.strip())
            if binding:
                bindings[binding.group(1)] = str(i)
    elif rest.startswith("{") and rest.endswith("}"):
        for part in _split_top(rest[1:-1], ","):
            key, _, bound = part.partition(":")
            key = key.strip().removeprefix("ref ").removeprefix("mut ").strip()
            if not key or key == "..":
                continue
            fields.append(key)
            binding = _BINDING.match((bound or key).strip())
            if binding:
                bindings[binding.group(1)] = key
    elif rest:
        return None
    if not prefix and not _ERROR_TYPE.search(type_name):
        return None
    return owner, found.group(2), tuple(fields), bindings


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p for p in (p.strip() for p in parts) if p]


def _written(state: Messages, node: Node, bindings: dict[str, str]) -> Template | None:
    """The first text with literal words that `node` writes to the formatter."""
    for found in _descendants(node, "macro_invocation", "call_expression"):
        result = None
        if found.type == "macro_invocation":
            macro = found.child_by_field_name("macro")
            tree = next((c for c in found.children if c.type == "token_tree"), None)
            if macro is None or tree is None or state._last_segment(macro) not in _WRITE_MACROS:
                continue
            args = state.tt_args(tree)
            if len(args) >= 2:
                result = state.message(state.reduce(args[1]), args[2:], True)
        else:
            function = found.child_by_field_name("function")
            arguments = found.child_by_field_name("arguments")
            if function is None or arguments is None or function.type != "field_expression":
                continue
            method = function.child_by_field_name("field")
            if method is None or state.text(method) not in _WRITE_METHODS:
                continue
            args = state.call_args(arguments)
            if args:
                result = state.message(state.reduce(args[0]), (), False)
        if result is None:
            continue
        text, pieces = result
        template = build_template(text, [_bound(piece, bindings) for piece in pieces])
        if template.literal_chars:
            return template
    return None


def _bound(piece: Piece, bindings: dict[str, str]) -> Piece:
    """A hole printing an arm's binding prints that field of the variant."""
    if isinstance(piece, str):
        return piece
    field = bindings.get(piece.expression.strip().lstrip("*&").strip())
    if field is None:
        return piece
    return Hole(expression=field, spec=piece.spec, name=None if field.isdigit() else field)


def _define(
    state: RustFile, name: str, owner: str | None, template: Template,
    fields: tuple[str, ...], at: Node,
) -> None:  # fmt: skip
    state.definitions.append(
        MessageDefinition(
            language=Language.RUST, name=name, owner=owner, template=template,
            fields=fields, path=state.path, line=at.start_point.row + 1,
        )
    )


def _descendants(node: Node, *kinds: str) -> Iterator[Node]:
    """`node` and the nodes under it of `kinds`, in source order, not inside closures or
    items."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _STOP and current != node:
            continue
        if current.type in kinds:
            yield current
        stack.extend(reversed(current.children))


# -- error constructors with a message ---------------------------------------------------


def _constructor(state: _File, call: Node, name: Node) -> None:
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    path = function.child_by_field_name("path") if function is not None else None
    if function is None or path is None or arguments is None:
        return
    if state.text(name) in state.rules.calls:
        return
    type_name = state._last_segment(path)
    if not type_name[:1].isupper():
        return
    if not _ERROR_TYPE.search(type_name) and not _in_error_position(state, call):
        return
    args = state.call_args(arguments)
    if len(args) != 1 or _text_of(state, state.reduce([call])) is not None:
        return  # `String::from("..")` is text, not an error made of it
    template = _text_of(state, state.reduce(args[0]))
    if template is None:
        return
    ctx = state.context(call)
    if ctx.skip:
        return
    type_path = re.sub(r"\s+", "", state.text(path))
    rule = Rule(name=state.text(function), form="call", kind=SiteKind.BAIL, exception=type_path)
    state.add_site(rule, call, call, template, None, ctx)


def _in_error_position(state: RustFile, node: Node) -> bool:
    cur = node.parent
    while cur is not None and cur.type not in ("function_item", "source_file"):
        if cur.type == "call_expression":
            function = cur.child_by_field_name("function")
            if function is not None and function.type == "identifier":
                if state.text(function) == "Err":
                    return True
            elif function is not None and function.type == "field_expression":
                method = function.child_by_field_name("field")
                if method is not None and state.text(method) in _ERROR_METHODS:
                    return True
        cur = cur.parent
    return False


# -- errors passed through from a dependency --------------------------------------------


def passed_through(state: ErrorTypes, variant: Node, owner: str, attribute: str) -> None:
    """A variant whose `#[error(..)]` has no text of its own. Wrapping another error whole
    (`#[error(transparent)]`, or a `#[from]` field printed as the whole message): a site at
    the variant, its template the wrapped error's text, named by the wrapped type. Printing
    one field (`#[error("{0}")] Msg(String)`): a definition that constructions passing
    text for that field fill (errdex.extract.compose)."""
    name = variant.child_by_field_name("name")
    body = variant.child_by_field_name("body")
    if name is None or body is None:
        return
    wrapped = _wrapped_type(state, body, "transparent" in attribute)
    if wrapped is None:
        hole = _WHOLE_FIELD.match(re.sub(r"\s+", "", attribute))
        if hole is not None and hole.group(1) in state.fields_of(body):
            field = hole.group(1)
            template = Template(
                message="{" + field + "}", literals=("", ""),
                placeholders=(Placeholder(field if not field.isdigit() else "message", field),),
            )
            _define(state, state.text(name), owner, template, state.fields_of(body), variant)
        return
    fields = state.fields_of(body)
    variant_name = state.text(name)
    line = variant.start_point.row + 1
    template = Template(
        message="{source}", literals=("", ""), placeholders=(Placeholder("source", wrapped),)
    )
    state.definitions.append(
        MessageDefinition(
            language=Language.RUST, name=variant_name, owner=owner, template=template,
            fields=fields, path=state.path, line=line,
        )
    )
    ctx = state.context(variant)
    state.sites.append(
        Site(
            language=Language.RUST, kind=SiteKind.ERROR_ENUM,
            exception=f"{owner}::{variant_name}", template=template, path=state.path,
            line=line, end_line=variant.end_point.row + 1, function=ctx.function,
            guard=None, snippet=state.lines.snippet(line), variant=variant_name,
            variant_fields=fields,
        )
    )
    state.record_path(variant, line, variant.end_point.row + 1)


def _wrapped_type(state: ErrorTypes, body: Node, transparent: bool) -> str | None:
    """The type of the field that is the wrapped error: the only one of a transparent
    variant, else the one marked `#[from]` or `#[source]`."""
    candidates: list[tuple[bool, Node]] = []
    for field in body.named_children:
        if field.type in ("field_declaration",):
            kind = field.child_by_field_name("type")
            written = state.text(field).replace(" ", "")
            if kind is not None:
                candidates.append(("#[from]" in written or "#[source]" in written, kind))
    if body.type == "ordered_field_declaration_list":
        types = body.children_by_field_name("type")
        marked_at = {i for i, attributed in enumerate(_ordered_fields(body)) if attributed}
        candidates = [(i in marked_at, t) for i, t in enumerate(types)]
    if transparent and len(candidates) == 1:
        return state.oneline(candidates[0][1])
    chosen = [t for m, t in candidates if m]
    return state.oneline(chosen[0]) if len(chosen) == 1 else None


def _ordered_fields(body: Node) -> list[bool]:
    """For each field of a tuple variant, whether an attribute (`#[from]`) precedes it."""
    out: list[bool] = []
    pending = False
    for child in body.named_children:
        if child.type == "attribute_item":
            pending = True
        elif child.type not in ("line_comment", "block_comment", "visibility_modifier"):
            out.append(pending)
            pending = False
    return out


# -- inside macro bodies ------------------------------------------------------------------


def _macro_body(state: _File, tree: Node, macro: Node) -> None:
    """A macro's body is tokens, not syntax (`cfg_rt! { .. }`, `vec![..]`): in it, find
    `.expect("..")`-style method rules and `Type::Variant`, `Type::Variant(..)` values."""
    name = state._last_segment(macro)
    if name in state.rules.macros or name in _TEXT_MACROS:
        return  # its own rule reads it (`panic!`, `assert!`), or it is text (`format!`)
    stack = [tree]
    while stack:
        current = stack.pop()
        children = current.children
        for i, child in enumerate(children):
            if child.type == "token_tree":
                stack.append(child)
            elif child.type == "identifier" and i + 1 < len(children):
                after = children[i + 1]
                before = children[i - 1] if i else None
                if after.type == "token_tree" and before is not None and before.type == ".":
                    _token_method(state, child, after)
            if child.type == "identifier" and (i == 0 or children[i - 1].type != "::"):
                _token_path(state, children, i)


def _token_method(state: _File, ident: Node, args_tree: Node) -> None:
    rule = state.rules.methods.get(state.text(ident))
    if rule is None:
        return
    args = state.tt_args(args_tree)
    if rule.message_arg >= len(args):
        return
    ctx = state.context(ident)
    if ctx.skip:
        return
    text, pieces = state.pieces_or_hole(state.reduce(args[rule.message_arg]), (), False)
    state.add_site(rule, args_tree, ident, build_template(text, pieces), None, ctx)


def _token_path(state: _File, tokens: Sequence[Node], start: int) -> None:
    """`A::B::Variant`, maybe followed by `(..)` or `{..}`, starting at `tokens[start]`."""
    segments = [tokens[start]]
    i = start + 1
    while i + 1 < len(tokens) and tokens[i].type == "::" and tokens[i + 1].type == "identifier":
        segments.append(tokens[i + 1])
        i += 2
    if len(segments) < 2:
        return
    owner, last = state.text(segments[-2]), state.text(segments[-1])
    if not owner[:1].isupper() or not last[:1].isupper() or last.isupper():
        return  # `Type::Variant`, not `module::f` or `u32::MAX`
    if i < len(tokens) and tokens[i].type == "!":
        return
    if start and tokens[start - 1].type in ("use", "enum", "struct", "impl", "for", "as", "let"):
        return
    body = tokens[i] if i < len(tokens) and tokens[i].type == "token_tree" else None
    values: list[tuple[str, str]] = []
    given: list[tuple[str, Sequence[Node]]] = []
    if body is not None and body.children and body.children[0].type == "(":
        for n, arg in enumerate(state.tt_args(body)):
            values.append((str(n), state.span_line(arg)))
            given.append((str(n), arg))
    elif body is not None:
        return  # `Type::Variant { .. }` in tokens: a pattern as often as a value
    after = i + (1 if body is not None else 0)
    if after < len(tokens) and tokens[after].type in ("=>", "|", "@"):
        return  # a match arm's pattern
    ctx = state.context(segments[0])
    if ctx.skip:
        return
    type_path = "::".join(state.text(s) for s in segments)
    if (type_path.startswith("Self::")) and ctx.owner:
        type_path = ctx.owner + type_path[4:]
    line = segments[0].start_point.row + 1
    end = (body or segments[-1]).end_point.row + 1
    state.constructions.append(
        Construction(
            language=Language.RUST, type_path=type_path, path=state.path, line=line,
            end_line=end, function=ctx.function, guard=ctx.guard,
            snippet=state.lines.snippet(line), field_values=tuple(values),
            payloads=payloads(state, given),
        )
    )
    state.record_path(segments[0], line, end)


# -- named text ----------------------------------------------------------------------------


def _constant(state: Messages, value: Node, name: Node) -> None:
    """`const MISSING: &str = "..";`: a text that messages elsewhere print by name."""
    msg = state.reduce([value])
    if msg.kind != "lit" or not _CONSTANT_NAME.match(state.text(name)):
        return
    _define(state, state.text(name), None, Template.literal(msg.text), (), value.parent or value)


def names_constant(template: Template) -> bool:
    """Whether a message with no text of its own prints a constant (`panic!("{}", MSG)`),
    whose text errdex.extract.compose.resolve_constants inlines."""
    return any(_CONSTANT_NAME.match(p.expression.rsplit("::", 1)[-1]) and not p.spec
               for p in template.placeholders)


# What each of `SECTIONS` finds, handled after the extractor's own (definitions and sites
# of a file's #[error] types come first).
HANDLERS: dict[str, Callable[[_File, Node, Node], None]] = {
    "display": _display_impl,
    "constructor": _constructor,
    "macro_body": _macro_body,
    "constant": _constant,
}
