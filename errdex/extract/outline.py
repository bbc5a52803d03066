"""A file's outline, read from the tree its extractor already parsed: the functions it
defines (with their owner and whether they are public), the calls each one writes, the
names it declares with a type, and every identifier it uses.

Definitions and calls come from the grammar's own tags query (`TAGS_QUERY`, shipped with
its wheel), with the folder's `tags` query section for what that lacks; owners and
visibility from the language's `Outline` table. It runs once per file, in the extraction
worker, so analysis never reads or parses the file again. It must not name a language.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Query, QueryCursor

from errdex.extract.callkinds import dispatches, swallowing_handlers
from errdex.extract.queries import Captures
from errdex.extract.structure import (
    DISPATCH,
    ITSELF,
    PLAIN,
    RESULT,
    FieldWrite,
    FileStructure,
    OutlineCall,
    OutlineDef,
    SitePath,
    TypedBinding,
)
from errdex.languages import spec_for
from errdex.languages.spec import LanguageSpec
from errdex.models import Language

_OWNER_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")
_ATTRIBUTE_NAME = re.compile(r"#!?\[\s*(?:\w+::)*(\w+)")  # `#[pyo3::pymethods]`: pymethods
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPE_NAME = re.compile(r"[A-Za-z_]\w*")
_DEFINES = ("definition.function", "definition.method")
_CALLS = "reference.call"
_TYPES = "definition.class"  # a struct, an enum, a class: the owner of methods
_WRITES = "write"  # the folder's `writes` section: an assignment to a receiver's field
_EXPORTS = "exports"  # the folder's `exports` section: the list of names a module exports
_IMPORTS = "imported"  # the folder's `imports` section: a name an import binds
OUTLINE_SECTIONS = ("tags", "writes", "imports", _EXPORTS)  # a folder's optional sections
# Words written like calls that call nothing a page could name.
NOT_CALLS = frozenset(
    "if while for match return fn def loop Some Ok Err Box Vec print len isinstance str int "
    "super self Self assert raise format vec panic bail".split()
)
MAX_NAME_CHARS = 200  # longer "identifiers" (the inside of a long string) name nothing
MAX_MORE = 8  # the further argument lists kept of a name's calls in one function


@lru_cache(maxsize=8)
def outline_patterns(language: Language) -> str:
    """The outline's query text: the grammar's tags query, then the folder's `tags` and
    `writes` sections. An extractor appends it to its own query (`build_query(...,
    outline=...)`) and hands the matches to `file_structure`: a query's cost is its walk
    over the tree (each of these patterns alone takes as long as all of them), so one
    walk serves both."""
    spec = spec_for(language)
    queries = spec.queries()
    return "\n".join((spec.outline.tags(), *(queries.get(s, "") for s in OUTLINE_SECTIONS)))


@lru_cache(maxsize=8)
def _tags(language: Language) -> Query:
    return Query(TSLanguage(spec_for(language).grammar()), outline_patterns(language))


@lru_cache(maxsize=8)
def _typed(language: Language) -> tuple[re.Pattern[str], frozenset[int]]:
    """The typed-binding regex, each `{root}` its own group (any name, in one pass), and
    the numbers of those groups."""
    parts = spec_for(language).typed_binding.split("{root}")
    typed = re.compile("".join(
        part + (rf"(?P<root{i}>[A-Za-z_]\w*)" if i < len(parts) - 1 else "")
        for i, part in enumerate(parts)
    ))  # fmt: skip
    roots = frozenset(typed.groupindex[k] for k in typed.groupindex if k.startswith("root"))
    return typed, roots


def file_structure(
    language: Language, path: str, root: Node, source: bytes, paths: Sequence[SitePath],
    matches: Iterable[Captures] | None = None,
) -> FileStructure:
    """The structure of one parsed file: its outline, with the condition paths of its
    sites that the extractor found. `matches` are those of `outline_patterns` over `root`
    when the extractor's own walk found them; else the outline runs its query."""
    text = source.decode("utf-8", "replace")
    if matches is None:
        matches = (captures for _, captures in QueryCursor(_tags(language)).matches(root))
    defs, calls, writes, types, imported, bases, held = _outline(language, matches, source)
    read_groups = spec_for(language).outline.groupings
    groupings, collectors = read_groups(root, source) if read_groups else ((), ())
    return FileStructure(
        groupings=groupings,
        collectors=collectors,
        import_paths=_import_paths(language, path, root, source),
        path=path,
        paths=tuple(paths),
        defs=defs,
        calls=calls,
        writes=writes,
        types=types,
        imported=imported,
        bases=bases,
        held=held,
        typed=_typed_bindings(language, text),
        identifiers=frozenset(
            n for n in set(_IDENT.findall(text)) if len(n) <= MAX_NAME_CHARS
        ),
    )


def _import_paths(
    language: Language, path: str, root: Node, source: bytes
) -> tuple[tuple[str, str], ...]:
    """The names the file's top-level imports bind, with the paths they name
    (`Outline.import_paths`)."""
    spec = spec_for(language)
    read, kinds = spec.outline.import_paths, spec.outline.import_nodes
    if read is None:
        return ()
    return tuple(bound for child in root.named_children if child.type in kinds
                 for bound in read(_text(child, source), path))  # fmt: skip


def _outline(
    language: Language, matches: Iterable[Captures], source: bytes
) -> tuple[tuple[OutlineDef, ...], tuple[OutlineCall, ...], tuple[FieldWrite, ...],
           frozenset[str], frozenset[str], tuple[tuple[str, tuple[str, ...]], ...],
           tuple[tuple[str, str], ...]]:  # fmt: skip
    spec = spec_for(language)
    functions: dict[int, tuple[Node, Node]] = {}  # start byte -> (definition, its name)
    references: list[tuple[Node, Node]] = []  # (call, the name it calls)
    assigned: list[tuple[Node, Node, Node | None]] = []  # (write, field, object written)
    exports: set[str] | None = None  # the names the module's `__all__` lists, if it has one
    types: set[str] = set()  # the types the file defines
    imported: set[str] = set()  # the names its imports bind
    hidden: set[str] = set()  # those without its public mark (`struct Add3`)
    bases: dict[str, tuple[str, ...]] = {}  # a type -> the names of its bases
    held: set[tuple[str, str]] = set()  # (a type, the type of one of its class attributes)
    for captures in matches:
        names = captures.get("name")
        if not names:
            continue
        for node in captures.get(_TYPES, ()):
            types.add(_text(names[0], source))
            if spec.outline.bases:  # every class, with no bases too: the snapshot knows it
                listed = node.child_by_field_name(spec.outline.bases)
                bases.setdefault(_text(names[0], source),
                                 _base_names(listed, source) if listed else ())
            held |= {(_text(names[0], source), t) for t in _attribute_types(spec, node, source)}
            if spec.outline.public_marker is not None and not _marked(spec, node, source):
                hidden.add(_text(names[0], source))
        if captures.get(_IMPORTS):
            imported.add(_text(names[0], source))
        for node in captures.get(_EXPORTS, ()):
            exports = (exports or set()) | {
                _text(item, source).strip("'\"") for item in node.named_children}
        for key in _DEFINES:
            for node in captures.get(key, ()):
                functions.setdefault(node.start_byte, (node, names[0]))
        for node in captures.get(_CALLS, ()):
            if node.type not in spec.outline.not_calls:
                references.append((node, names[0]))
        for node in captures.get(_WRITES, ()):
            targets = captures.get("object")
            assigned.append((node, names[0], targets[0] if targets else None))
    ordered = sorted(functions.values(), key=lambda d: d[0].start_byte)
    defs = tuple(_definition(spec, node, name, source) for node, name in ordered)
    # A function defined inside another (a closure, a nested helper) is that one's own:
    # no user calls it by name.
    enclosing = _innermost(ordered, [node.start_byte for node, _ in ordered], inside=True)
    defs = tuple(replace(d, public=False, local=True,
                         returned=_returned(spec, d.name, ordered[outer][0], source))
                 if outer is not None else d
                 for d, outer in zip(defs, enclosing, strict=True))  # fmt: skip
    defs = _lazy_by_return(spec, defs, ordered, source)
    if spec.outline.unmarked_local:  # `fn f` with no `pub` at all: its module's own
        defs = tuple(replace(d, local=True) if not d.in_trait and not _has_marker(spec, node)
                     and not d.exposed else d
                     for d, (node, _) in zip(defs, ordered, strict=True))  # fmt: skip
    # A method of a type users cannot name (a private `struct` of this file, even in a
    # trait impl) is not theirs to call: they reach it through what builds the type.
    # Unless a mark exposes the method itself (pyo3's `#[pymethods]`: Python calls it).
    defs = tuple(replace(d, public=False) if d.public and d.owner in hidden
                 and not d.exposed else d for d in defs)  # fmt: skip
    if exports is not None:  # a name the module does not export is not its public API
        defs = tuple(replace(d, public=False) if d.public and (d.owner or d.name) not in exports
                     else d for d in defs)  # fmt: skip
    references.sort(key=lambda r: r[0].start_byte)
    assigned.sort(key=lambda w: w[0].start_byte)
    return (defs, _calls(ordered, defs, references, source, spec),
            _writes(ordered, defs, assigned, source), frozenset(types),
            frozenset(imported | (exports or set())), tuple(sorted(bases.items())),
            tuple(sorted(held)))  # fmt: skip


def _attribute_types(spec: LanguageSpec, node: Node, source: bytes) -> set[str]:
    """The classes of the objects a class body sets as class attributes (`_Validator`
    of `name: _Validator[str] = _Validator()`), by their last name."""
    pattern, body = spec.outline.class_attribute, node.child_by_field_name("body")
    if pattern is None or body is None:
        return set()
    found = (re.match(pattern, _text(child, source)) for child in body.named_children)
    return {m.group("type").rsplit(".", 1)[-1] for m in found if m}


def _base_names(listed: Node, source: bytes) -> tuple[str, ...]:
    """The last name of each base a type lists (`NodeVisitor` of `ast.NodeVisitor`,
    `Generic` of `Generic[T]`); keywords (`metaclass=ABCMeta`) are not bases."""
    out = []
    for child in listed.named_children:
        text = _text(child, source).split("[", 1)[0]
        if "=" not in text and (found := _OWNER_NAME.search(text)):
            out.append(found.group(1))
    return tuple(out)


def _marked(spec: LanguageSpec, node: Node, source: bytes) -> bool:
    """Whether a definition carries the language's public mark (`pub`, not `pub(crate)`;
    Java's `public` among its modifiers)."""
    outline = spec.outline
    children = [grand for child in node.children if child.type == outline.modifiers
                for grand in child.children] if outline.modifiers else []  # fmt: skip
    return any(c.type == outline.public_marker and (
        outline.public_text is None or _text(c, source) == outline.public_text)
        for c in (*node.children, *children))  # fmt: skip


def _lazy_by_return(
    spec: LanguageSpec, defs: tuple[OutlineDef, ...], ordered: list[tuple[Node, Node]],
    source: bytes,
) -> tuple[OutlineDef, ...]:  # fmt: skip
    """`defs`, where a function returns a call of a lazy free function of the file as its
    own value (`tokenize` returns `_tokenize(..)`, a generator), lazy as that one is."""
    pattern = spec.outline.returns_call
    lazy = {d.name: d.lazy for d in defs if d.lazy and d.owner is None}
    if pattern is None or not lazy:
        return defs
    returned = re.compile(pattern.replace("{name}", "(" + "|".join(map(re.escape, lazy)) + ")"))
    out = []
    for d, (node, _) in zip(defs, ordered, strict=True):
        found = None if d.lazy else returned.search(_text(node, source))
        out.append(replace(d, lazy=lazy[found.group(1)]) if found else d)
    return tuple(out)


def _returned(spec: LanguageSpec, name: str, outer: Node, source: bytes) -> bool:
    """Whether the function `outer` returns its nested function `name` as a value."""
    pattern = spec.outline.returns
    return pattern is not None and re.search(
        pattern.replace("{name}", re.escape(name)), _text(outer, source)) is not None


def _has_marker(spec: LanguageSpec, node: Node) -> bool:
    """Whether a definition carries the public marker in any form (`pub(crate)` too)."""
    return any(c.type == spec.outline.public_marker for c in node.children)


def _exposed_def(spec: LanguageSpec, node: Node, source: bytes) -> bool:
    """Whether a function, or a block holding it, is marked as exposed (`#[pymethods]`)."""
    at: Node | None = node
    while spec.outline.exposed_by and at is not None:
        if _exposed(spec, at, source):
            return True
        at = at.parent
    return False


def _exposed(spec: LanguageSpec, node: Node, source: bytes) -> bool:
    """Whether an attribute just above `node` exposes it (`#[pymethods] impl PyTensor`)."""
    names, attribute = spec.outline.exposed_by, spec.outline.attribute
    above = node.prev_named_sibling
    while names and above is not None and (above.type == attribute
                                           or above.type.endswith("comment")):
        found = _ATTRIBUTE_NAME.match(_text(above, source))
        if found and found.group(1) in names:
            return True
        above = above.prev_named_sibling
    return False


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _definition(spec: LanguageSpec, node: Node, name: Node, source: bytes) -> OutlineDef:
    """A function with its owner (the nearest enclosing owner block's name, generics
    dropped) and whether callers outside its file can reach it."""
    outline = spec.outline
    owner: str | None = None
    in_trait = False
    exposed = _exposed_def(spec, node, source)
    parent = node.parent
    while parent is not None:
        for block, name_field, trait_field in outline.owners:
            if parent.type != block:
                continue
            if owner is None and (named := parent.child_by_field_name(name_field)):
                found = _OWNER_NAME.search(_text(named, source).split("<", 1)[0])
                owner = found.group(1) if found else None
            if trait_field == "" or (trait_field and parent.child_by_field_name(trait_field)):
                in_trait = True
        parent = parent.parent
    own_name = _text(name, source)
    receiver = node.child_by_field_name(outline.receiver) if outline.receiver else None
    if owner is None and receiver is not None:
        types = _TYPE_NAME.findall(_text(receiver, source).split("[", 1)[0])
        owner = types[-1] if types else None
    if outline.exported_by_capital:
        public = own_name[:1].isupper() and (owner is None or owner[:1].isupper())
    elif outline.public_marker is not None:
        public = _marked(spec, node, source) or in_trait or exposed
    else:  # `_private`, but a dunder (`__init__`) is reached through its class; a
        # module's attribute hook (`__getattr__`, PEP 562) runs when an attribute is read
        dunder = own_name.startswith("__") and own_name.endswith("__")
        hook = owner is None and own_name in outline.attribute_hooks
        public = (dunder or not own_name.startswith("_")) and not hook \
            and not (owner or "").startswith("_")
    params, receiver_name = _parameters(spec, node, source)
    return OutlineDef(own_name, owner, node.start_point.row + 1, public, in_trait,
                      node.end_point.row + 1, params, receiver_name, _results(spec, node),
                      lazy=outline.lazy(node) if outline.lazy is not None else "",
                      exposed=exposed)


def _results(spec: LanguageSpec, node: Node) -> int | None:
    """How many values a definition returns, for a grammar whose definitions list them
    (the spec's `results` field: a list of several, or one type alone)."""
    field = spec.outline.results
    if field is None:
        return None
    result = node.child_by_field_name(field)
    if result is None:
        return 0
    if result.type != "parameter_list":
        return 1
    count = 0
    for declaration in result.named_children:
        if declaration.type not in spec.comment_nodes:
            count += max(1, len(declaration.children_by_field_name("name")))
    return count


def _parameters(
    spec: LanguageSpec, node: Node, source: bytes
) -> tuple[tuple[str, ...] | None, str | None]:
    """The names a definition's parameter list binds, in order, with `self` first for a
    receiver (Go's `func (c *T)` too: pages call it on a value), and the receiver's name
    as written."""
    found: list[str] = []
    receiver_name: str | None = None
    receiver = node.child_by_field_name(spec.outline.receiver) if spec.outline.receiver else None
    for child in receiver.named_children if receiver is not None else ():
        names = _bound_names(child, source)
        if names and child.type not in spec.comment_nodes:
            receiver_name = names[0]
            found.append("self")
    parameters = node.child_by_field_name("parameters")
    declarator = node.child_by_field_name("declarator")
    while parameters is None and declarator is not None:  # C's `int *f(int n)`: its declarator's
        parameters = declarator.child_by_field_name("parameters")
        declarator = declarator.child_by_field_name("declarator")
    for child in parameters.named_children if parameters is not None else ():
        if child.type not in spec.comment_nodes:
            found.extend(_bound_names(child, source))
    if receiver_name is None and found[:1] == ["self"]:
        receiver_name = "self"
    return (tuple(found) if parameters is not None else None), receiver_name


def _bound_names(parameter: Node, source: bytes) -> list[str]:
    """The names one parameter binds: itself when it is a name, else its `name` or
    `pattern` fields, else its first name (`x: int`, `*args`, `mut x`, `self`)."""
    if parameter.type in ("identifier", "self"):
        return [_text(parameter, source)]
    named = parameter.children_by_field_name("name") or parameter.children_by_field_name(
        "pattern") or parameter.children_by_field_name("declarator")  # C's `int *n`
    if named:
        return [n for child in named for n in _bound_names(child, source)][:8]
    for child in parameter.named_children:  # Java's `final String... names`: a declarator
        if child.child_by_field_name("name") is not None:
            return _bound_names(child, source)
    text = _text(parameter, source)
    first = _IDENT.search(text.split(":", 1)[0])
    if first is None:
        return []
    word = first.group(0)
    return ["self"] if "self" in text.split(":", 1)[0].split() or word == "self" else [word]


def _calls(
    functions: list[tuple[Node, Node]], defs: tuple[OutlineDef, ...],
    references: list[tuple[Node, Node]], source: bytes, spec: LanguageSpec,
) -> tuple[OutlineCall, ...]:  # fmt: skip
    """Each call with the innermost function it is written in (calls outside every
    function are left out), the owner written before its name (`Owner::name(`), its
    arguments and the handlers around it that catch and carry on; then the lookups by
    a name's prefix (`DISPATCH`), as calls of that prefix."""
    comments = spec.comment_nodes
    # (name, caller, qualifier, handlers) -> the arguments of the first such call; a call
    # caught here and not there is two entries, so that each place's handlers are known
    calls: dict[tuple[str, int, str, tuple[tuple[str, int], ...]],
                tuple[str, ...] | None] = {}  # fmt: skip
    fields: dict[tuple[str, int, str, tuple[tuple[str, int], ...]],
                 tuple[tuple[str, str], ...]] = {}  # fmt: skip
    more: dict[tuple[str, int, str, tuple[tuple[str, int], ...]],
               list[tuple[str, ...] | None]] = defaultdict(list)  # fmt: skip
    itself: set[tuple[str, int, str, tuple[tuple[str, int], ...]]] = set()
    read_fields = spec.outline.literal_fields
    callers = _innermost(functions, [call.start_byte for call, _ in references])
    for (call, name), caller in zip(references, callers, strict=True):
        if caller is None:
            continue
        called = _text(name, source)
        if called in NOT_CALLS:
            continue
        before = source[max(0, name.start_byte - 200) : name.start_byte]
        qualifier = _qualifier(before.decode("utf-8", "replace"))
        caught = swallowing_handlers(spec, call, source, functions[caller][0].start_byte)
        key = (called, caller, qualifier, caught)
        if called == defs[caller].name and (qualifier in ("", "super")
                                            or qualifier.startswith("self")):
            itself.add(key)  # a recursion, not `_engine.compile(..)` called from a `compile`
        if key not in calls:  # the first call of a name in a function gives its arguments
            calls[key] = _arguments(call, source, comments)
            if read_fields is not None and calls[key] is None:
                fields[key] = read_fields(call, source)
            continue
        if key in fields and read_fields is not None and read_fields(call, source) != fields[key]:
            fields[key] = ()  # two literals of one type that differ: which one runs is not known
        further = more[key]
        if len(further) < MAX_MORE:
            arguments = _arguments(call, source, comments)
            if arguments != calls[key] and arguments not in further:
                further.append(arguments)
        elif further[-1:] != [None]:
            further.append(None)  # and more: what they pass is not kept
    out = [OutlineCall(name, caller, qualifier, arguments, caught=caught,
                       fields=fields.get((name, caller, qualifier, caught), ()),
                       more=tuple(more.get((name, caller, qualifier, caught), ())),
                       kind=ITSELF if (name, caller, qualifier, caught) in itself else PLAIN)
           for (name, caller, qualifier, caught), arguments in calls.items()]  # fmt: skip
    found = dispatches(spec, source, [(d.start_byte, d.end_byte) for d, _ in functions])
    for (prefix, _), caller in zip(found, _innermost(functions, [a for _, a in found]),
                                    strict=True):  # fmt: skip
        if caller is not None and defs[caller].owner is not None:
            out.append(OutlineCall(prefix, caller, "self", None, kind=DISPATCH))
    return tuple(out)


MAX_ARGUMENTS = 12  # a call's arguments kept, each cut to MAX_ARGUMENT_CHARS
MAX_ARGUMENT_CHARS = 120


def _arguments(call: Node, source: bytes, comments: frozenset[str]) -> tuple[str, ...] | None:
    """The arguments of a call node with an `arguments` field, as written (comments out);
    None for anything else (a macro's tokens, a struct literal)."""
    listed = call.child_by_field_name("arguments")
    if listed is None:
        return None
    out = []
    for child in listed.named_children[:MAX_ARGUMENTS]:
        if child.type not in comments:
            out.append(" ".join(_text(child, source).split())[:MAX_ARGUMENT_CHARS])
    return tuple(out)


def _qualifier(before: str) -> str:
    """The name written just before `::` or `.` at the end of `before` (`Owner::`,
    `value.`), or "". A scan back from the end: a regex anchored at the end tries every
    start in the text, and this ran for each of candle's 38,000 calls."""
    text = before.rstrip()
    if text.endswith("::"):
        text = text[:-2].rstrip()
    elif text.endswith("."):
        text = text[:-1].rstrip()
    else:
        return ""
    if text[-1:] in ")]?":  # a method of what a call or an index gives
        found = _result_of(text.rstrip("?"))
        return "super" if found == "super()" else found  # the parent class's method
    start = len(text)
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    word = text[start:]
    while word and not (word[0] == "_" or ("a" <= word[0].lower() <= "z")):
        word = word[1:]  # an identifier starts with an ASCII letter or `_`
    edge = text[start - 6 : start - 5]  # what stands before a `self.` in front of the word
    if word and text[:start].endswith("self.") and not (edge.isalnum() or (edge in "_.:" and edge)):
        return f"self.{word}"  # a field of the receiver (`self._cond.wait()`), not a value
    return word


def _result_of(text: str) -> str:
    """The qualifier of a call on a computed value: the call that computes it
    (`storage_mut()` of `self.storage_mut().fill(`), the class a call builds
    (`ElementTree` of `ElementTree(element).write(`), else RESULT."""
    depth, at = 0, len(text)
    if not text.endswith(")"):
        return RESULT
    while at:
        at -= 1
        depth += {")": 1, "(": -1}.get(text[at], 0)
        if depth == 0:
            break
    start = at
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    word = text[start:at]
    if depth or not word[:1].isalpha():
        return RESULT
    return word if word[:1].isupper() else f"{word}()"  # `ElementTree(e).write(`: its own


def _writes(
    functions: list[tuple[Node, Node]], defs: tuple[OutlineDef, ...],
    assigned: list[tuple[Node, Node, Node | None]], source: bytes,
) -> tuple[FieldWrite, ...]:  # fmt: skip
    """Each assignment to a field of the receiver, with the function it is in: the
    object written through must be that function's first parameter (`self`, Go's `e`)
    unless the grammar marks the receiver itself (Rust's `self`)."""
    found: dict[tuple[str, int], FieldWrite] = {}
    writers = _innermost(functions, [node.start_byte for node, _, _ in assigned])
    for (node, name, target), writer in zip(assigned, writers, strict=True):
        if writer is None:
            continue
        receiver = defs[writer].receiver
        if target is not None and (receiver is None or _text(target, source) != receiver):
            continue
        field = _text(name, source)
        found.setdefault((field, writer), FieldWrite(field, writer, node.start_point.row + 1,
                                                     _assigned(node, source)))
    return tuple(found.values())


def _assigned(write: Node, source: bytes) -> str:
    """The value a plain assignment (`=`, not `+=`) writes, when it fits on one line."""
    left, right = write.child_by_field_name("left"), write.child_by_field_name("right")
    if left is None or right is None:
        return ""
    operator = source[left.end_byte : right.start_byte].decode(errors="replace").strip()
    value = _text(right, source)
    return value if operator == "=" and "\n" not in value and len(value) <= 80 else ""


def _innermost(
    functions: list[tuple[Node, Node]], positions: list[int], inside: bool = False
) -> list[int | None]:
    """For each byte position (in increasing order), the innermost function around it;
    `inside`: around it and starting before it (the positions are the functions' own)."""
    out: list[int | None] = []
    open_defs: list[int] = []  # indexes of the functions enclosing the current position
    next_def = 0
    for at in positions:
        last = at - 1 if inside else at  # the last start byte that opens a function around it
        while next_def < len(functions) and functions[next_def][0].start_byte <= last:
            _close(open_defs, functions, functions[next_def][0].start_byte)
            open_defs.append(next_def)
            next_def += 1
        _close(open_defs, functions, at)
        out.append(open_defs[-1] if open_defs else None)
    return out


def _close(open_defs: list[int], functions: list[tuple[Node, Node]], at: int) -> None:
    """Drop the functions that end at or before byte `at`."""
    while open_defs and functions[open_defs[-1]][0].end_byte <= at:
        open_defs.pop()


def _typed_bindings(language: Language, text: str) -> tuple[TypedBinding, ...]:
    """Every `name: Type` the file writes, with the line its match ends on."""
    typed, roots = _typed(language)
    found: list[TypedBinding] = []
    line, at = 1, 0
    for m in typed.finditer(text):
        line += text.count("\n", at, m.end())
        at = m.end()
        groups = m.groups()
        name = next((g for i, g in enumerate(groups, 1) if g and i in roots), None)
        type_name = next((g for i, g in enumerate(groups, 1) if g and i not in roots), None)
        if name and type_name:
            found.append(TypedBinding(name, type_name, line))
    return tuple(found)
