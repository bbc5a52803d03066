"""Entry points: the public functions and methods of a repository that reach a given
function, found by a name-based call graph a few levels deep.

Names, not types: a call `x.forward(...)` is an edge to every function called `forward`.
To keep that honest, a name defined in more than one file only counts callers in the
same file, or callers that name the owner (`Owner::name(`, `Owner.name(`). It is built
from the outlines the extraction made of each file; it reads no file and runs nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from errdex.analyze import caught
from errdex.analyze.applied import Applications
from errdex.analyze.callargs import arguments_passed, by_value
from errdex.analyze.calldefs import Def as _Def
from errdex.analyze.calldefs import last_part, passed_on, root, top, words
from errdex.analyze.fields import LiteralFields
from errdex.analyze.hierarchy import Hierarchy
from errdex.analyze.scopes import Scopes
from errdex.analyze.valuecalls import ValueCalls
from errdex.analyze.visibility import is_private_module, named_by, package_entries
from errdex.extract.structure import DISPATCH, ITSELF, RESULT, FileStructure
from errdex.languages import spec_for
from errdex.languages.spec import AppliedOp
from errdex.models import EntryPoint, Language, Site

_REFERENCE = re.compile(r"(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)")  # `self._connect_sock`
Args = tuple[str, ...]  # a call's arguments as written
MAX_DEPTH = 3
# Past MAX_DEPTH the search goes on to this depth while it found no public caller, or
# only private modules' (`re._parser.parse`: users call `re.compile`, seven calls up).
MAX_PRIVATE_DEPTH = 8
MAX_ENTRY_POINTS = 6
MAX_HOMES = 2  # files defining a delegated-to method (a backend and its stand-in)
MAX_BUILDERS = 3  # an op type is built where it is applied: by a few functions, not dozens


class CallGraph:
    """Functions and who calls them, by name, over a set of files."""

    def __init__(self) -> None:
        self.defs: list[_Def] = []
        self.by_name: dict[str, list[int]] = defaultdict(list)
        self.files_of: dict[str, set[str]] = defaultdict(set)
        # callee name -> (caller def index, qualifier written before the name or "")
        self.callers: dict[str, set[tuple[int, str]]] = defaultdict(set)
        # the same calls by (callee name, caller's path) and by (callee name, qualifier):
        # the only ones that may call a name several files define (`new`: 4,000 calls)
        self.callers_in: dict[tuple[str, str], set[tuple[int, str]]] = defaultdict(set)
        self.callers_through: dict[tuple[str, str], set[tuple[int, str]]] = defaultdict(set)
        # qualifier -> callers of its functions (`Owner::new(..)`, `Owner::from(..)`; not its
        # variants, `CpuStorage::F4(..)`: a data type is built everywhere, an op where used)
        self.by_qualifier: dict[str, set[int]] = defaultdict(set)
        # (callee name, caller def index) -> the qualifier and arguments of its first call,
        # and of each of its calls there (None: no argument list)
        self.arguments: dict[tuple[str, int], tuple[str, tuple[str, ...]]] = {}
        self.calls: dict[tuple[str, int], list[tuple[str, Args | None]]] = defaultdict(list)
        # (owner, method name) -> its definitions: where `self.m(..)` of an owner goes
        self.methods: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.mentions: dict[str, frozenset[str]] = {}  # path -> the identifiers it uses
        self.types_in: dict[str, frozenset[str]] = {}  # path -> the types it defines
        self._types: frozenset[str] = frozenset()  # all of them, once asked
        self.module_names: set[str] = set()  # the top-level modules (`os`, `candle_core`)
        # (path, line) of the definitions in private modules that no package re-exports
        self.private_defs: set[tuple[str, int]] = set()
        # (caller def index, prefix): `getattr(self, "visit_" + name)` calls each method of
        # the caller's class, or of a class derived from it, whose name has that prefix
        self.dispatchers: dict[str, set[tuple[int, str]]] = defaultdict(set)  # by owner
        self.hierarchy = Hierarchy()  # the classes and which derive from which
        # Definitions users cannot call by name: their own or their owner's name is private
        # (`_parse`, `_Validator.x`); a function of a private module that no file imports
        # by name is one too (`email._header_value_parser.get_mailbox`)
        self.hidden: set[int] = set()
        self.imported: set[str] = set()  # the names any file's imports bind
        # names passed as a value (`partial(self._connect_sock, ..)`, a callback): what
        # runs them later is not a call the outline saw
        self.passed: set[str] = set()
        # (path, line) of a definition -> its callers found through an object's class (a prefix
        # lookup, a base's `self.m(..)`, a public base's method), after those that call it
        self.virtual: dict[tuple[str, int], set[int]] = {}
        self.holders: dict[str, set[str]] = defaultdict(set)  # class -> classes holding one
        self.descriptor: tuple[str, str] = ("", "")  # (`__get__`, `getattr`) when known
        # (callee name, caller def index) -> the handlers around each of its calls there
        # that catch and carry on (one tuple per call; () for a call nothing catches)
        self.caught: dict[tuple[str, int], list[tuple[tuple[str, int], ...]]] = \
            defaultdict(list)
        self._found: dict[int, list[int]] = {}  # def index -> its callers, once asked
        self._at: dict[tuple[str, int], int] = {}  # (path, line) -> def index, once asked
        # the calls that apply an op value (`xs.apply_op1(Sigmoid)`): the callers of the
        # trait methods of its type (errdex.analyze.applied)
        self.applications = Applications()
        self._in_path: dict[str, list[int]] = defaultdict(list)  # path -> its defs, once asked
        self.scopes = Scopes()  # what each call's name can reach where it is written
        self._values = ValueCalls()  # what `_on_values_of` reads of a name, once asked
        self.fields = LiteralFields()  # what struct literals set, what paths need set

    @classmethod
    def build(cls, files: Iterable[tuple[str, Language, FileStructure]]) -> CallGraph:
        """The graph of every file's outline (errdex.extract.outline, made by the worker
        that extracted the file: nothing is read or parsed again here)."""
        graph, files = cls(), list(files)
        entries = package_entries(files)
        for path, language, structure in files:
            graph.mentions[path], graph.types_in[path] = structure.identifiers, structure.types
            spec = spec_for(language)
            prefix = spec.outline.private_prefix
            private = bool(prefix) and is_private_module(path, prefix or "")
            if spec.outline.descriptor_get and spec.outline.dynamic_read:
                graph.descriptor = (spec.outline.descriptor_get, spec.outline.dynamic_read)
            graph.imported |= structure.imported
            if spec.outline.needed_field is not None and spec.outline.absent is not None:
                graph.fields.presence[path] = (structure, spec.outline.needed_field,
                                               spec.outline.absent)
            graph._add_file(path, spec.outline.separator, spec.module_path(path), structure,
                            private=private, entries=entries if private else {},
                            prefix=prefix or "",
                            constructors=spec.outline.constructors,
                            instantiation=spec.outline.instantiation,
                            applied=spec.outline.applied, borrow=spec.reference_prefix)
        return graph

    def _add_file(
        self, path: str, separator: str, module: str, structure: FileStructure,
        private: bool = False, entries: Mapping[str, frozenset[str]] | None = None,
        constructors: frozenset[str] = frozenset(), instantiation: frozenset[str] = frozenset(),
        prefix: str = "", applied: tuple[AppliedOp, ...] = (), borrow: str | None = None,
    ) -> None:  # fmt: skip
        """`entries`: the names each package entry of a private module's packages holds
        (module -> names): a free function one of them names is called by that package."""
        first = len(self.defs)
        if module and separator not in module:
            self.module_names.add(module)
        for d in structure.defs:
            # A function or class of a private module that its package re-exports is
            # named by the package (`tomllib.loads`); the others are the private ones.
            shown = named_by(module, separator, d.owner or d.name, entries or {})
            if private and shown == module:
                self.private_defs.add((path, d.line))
            shown = module if d.owner else shown
            self.defs.append(_Def(d.name, d.owner, path, d.line, d.public, separator,
                                  d.in_trait, module, d.params, d.receiver,
                                  d.end_line, shown, d.name in constructors,
                                  d.name in instantiation, d.local, d.lazy))  # fmt: skip
            index = len(self.defs) - 1
            if prefix and (d.name.startswith(prefix) or (d.owner or "").startswith(prefix)) \
                    and not d.name.startswith(prefix * 2):  # `_x`, `_Owner.x`; not `__init__`
                self.hidden.add(index)
            self.by_name[d.name].append(index)
            self.files_of[d.name].add(path)
            if d.owner:
                self.methods[(d.owner, d.name)].add(index)
        self.scopes.add_file(path, module, self.defs[first:], first, structure.import_paths)
        for offset, d in enumerate(structure.defs):
            outer = self.scopes.outer[first + offset]
            if d.returned and outer is not None:  # handed on to its function's caller
                self.passed.add(d.name)
                self.scopes.passed_by[d.name].add((outer, ""))
        for holder, held in structure.held:
            self.holders[held].add(holder)
        for name, bases in structure.bases:
            self.hierarchy.classes.add(name)
            for base in bases:
                if base != name:
                    self.hierarchy.derived[base].add(name)
        applying = {name: op for op in applied for name in op.calls}
        for call in structure.calls:
            at = (call.name, first + call.caller)
            if call.kind != DISPATCH:
                self.calls[at] += [(call.qualifier, a) for a in (call.arguments, *call.more)]
            if call.kind == ITSELF:
                continue  # what it passes itself, for errdex.analyze.fixedargs; no edge
            if call.fields:
                self.fields.literals[at] = call.fields
            if call.name in applying and call.arguments:
                self.applications.add(first + call.caller, applying[call.name], call.qualifier,
                                      call.arguments, separator == "::" and
                                      call.qualifier[:1].isupper(), borrow)  # fmt: skip
            if call.kind == DISPATCH:
                owner = structure.defs[call.caller].owner
                if owner:
                    self.dispatchers[owner].add((first + call.caller, call.name))
                continue
            self.caught[at].append(call.caught)
            edge = (first + call.caller, call.qualifier)
            self.callers[call.name].add(edge)
            self.callers_in[(call.name, path)].add(edge)
            if call.qualifier:
                self.callers_through[(call.name, call.qualifier)].add(edge)
            for argument in call.arguments or ():
                if named := _REFERENCE.fullmatch(argument):
                    self.passed.add(named.group(1))
                    self.scopes.passed_by[named.group(1)].add((first + call.caller, call.name))
            if call.arguments is not None:
                self.arguments.setdefault(at, (call.qualifier, call.arguments))
            if call.qualifier and not call.qualifier.endswith(RESULT) \
                    and not call.name[:1].isupper():
                self.by_qualifier[call.qualifier].add(first + call.caller)

    def callers_of(self, index: int) -> list[int]:
        """The callers of definition `index`, worked out once: every site of a function
        and every record above it asks again (candle: 5,682 asks of 1,883 sites)."""
        found = self._found.get(index)
        if found is None:
            found = self._found[index] = self._find_callers(self.defs[index], index)
        return found

    def _find_callers(self, target: _Def, index: int) -> list[int]:
        outer = self._outer(index) if target.in_trait else None
        if outer is not None and self.defs[outer].owner == target.owner:
            # A function nested in a trait method (`fn inner` in `RotaryEmbI::cpu_fwd`) is
            # no method of the impl: only the method it is written in calls it by name.
            calls = self.callers_in.get((target.name, target.path), ())
            return [outer] if any(c == outer for c, _ in calls) else []
        if target.in_trait and target.owner:
            # A trait's method name is shared by every impl (`fwd`, `load`, `convert`):
            # callers by that name call some impl, not this one. Only the free functions
            # that build this type are known to reach it; else none is.
            found = self._builders_of(target.owner) if target.public \
                else self._hidden_callers(target)
            applying = {a.caller for a in self.applications.of(self, index)}
            return sorted(set(found) | applying | self._on_values_of(target),
                          key=lambda i: (self.defs[i].path, self.defs[i].line))
        if len(self.files_of[target.name]) > 1:
            # A name several files define: the calls in the target's own file, and those
            # through its owner or module (`Owner::new(`, `_parser.parse(`).
            named = target.owner or last_part(target)
            # In its own file too, a call through another type is that type's function
            # (`Cursor::new(..)` beside `VoxtralModel::new`).
            edges = {(c, q) for c, q in self.callers_in.get((target.name, target.path), ())
                     if not self._through_type(self.defs[c], q) or q in (named, "Self")}
            if named:
                # `MLP::new(..)` in a file with a `MLP` of its own calls that one
                homes = self._named_through(target, named)
                others = {self.defs[i].path for i in homes} - {target.path}
                # and one after `use candle_nn::Linear;` calls candle_nn's `Linear::new`
                edges = edges | {(c, q) for c, q in self.callers_through.get(
                    (target.name, named), ()) if self.defs[c].path not in others
                    and self.scopes.agrees(self.defs, self.defs[c].path, q, index, homes)}
            if target.owner is None:  # `sdpa(..)` after `use crate::ops::sdpa;`
                edges |= self._imported_bare(target, index)
            edges |= {(c, "") for c in self._on_values_of(target)}
        else:
            edges = self.callers.get(target.name, set())
        # A nested function its own function hands on (`self._apply(cast)`) runs for it
        out = self.scopes.handed_on(index, self.by_name)
        for caller, qualifier in edges:
            c = self.defs[caller]
            if c.name == target.name and qualifier.endswith(RESULT):
                continue  # `_safe_super(Mock, self).__init__(..)`: dispatch only (_on_values_of)
            if not self.scopes.reaches(self.defs, index, caller, qualifier):
                continue  # a nested function called elsewhere, a parameter of that name
            if self._runs_own_method(c, qualifier, target):
                continue  # `self.m(..)` runs the caller's own type's `m`, not this one
            if target.owner and self._on_something_else(c, qualifier, target):
                continue
            if qualifier == "self" and c.owner and target.owner and \
                    not self.hierarchy.related(c.owner, target.owner):
                continue  # `self.visit(..)` of `NodeTransformer` is no `_Unparser.visit`
            out.append(caller)
        if target.instantiated and target.owner:
            out.extend(self._instantiations(target))
        if target.owner:
            # Through the object's class, not a call written to it: a user reaches them
            # only with an object of the target's class (`NodeVisitor.visit` runs
            # `_Unparser.visit_Raise` for the `_Unparser` that `ast.unparse` builds)
            virtual = [*self.dispatched_by(target), *self._inherited_self_calls(target),
                       *self._declared_by_bases(target), *self._attribute_readers(target)]
            self.virtual[(target.path, target.line)] = set(virtual)
            out.extend(virtual)
        return sorted(set(out), key=lambda i: (self.defs[i].path, self.defs[i].line))

    def _named_through(self, target: _Def, named: str) -> list[int]:
        """The definitions a call `named::<target's name>(..)` may run: the methods of
        that owner, or the free functions of modules whose last part it is."""
        if target.owner is not None:
            return sorted(self.methods.get((named, target.name), ()))
        return [i for i in self.by_name.get(target.name, ())
                if self.defs[i].owner is None and last_part(self.defs[i]) == named]

    def _imported_bare(self, target: _Def, index: int) -> set[tuple[int, str]]:
        """The bare calls of a free function's name in the files that import it by a
        path naming it best among the functions of that name."""
        paths = self.scopes.importers.get(target.name, set()) - {target.path}
        if not paths:
            return set()
        homes = [i for i in self.by_name.get(target.name, ()) if self.defs[i].owner is None]
        return {(c, q) for path in paths for c, q in self.callers_in.get((target.name, path), ())
                if not q and self.scopes.agrees(self.defs, path, "", index, homes, named=True)}

    def _outer(self, index: int) -> int | None:
        """The definition that the definition `index` is written in, if any (innermost)."""
        if not self._in_path:
            for i, d in enumerate(self.defs):
                self._in_path[d.path].append(i)
        d = self.defs[index]
        around = [i for i in self._in_path.get(d.path, ()) if i != index
                  and self.defs[i].line < d.line <= self.defs[i].end_line]
        return max(around, key=lambda i: self.defs[i].line, default=None)

    def _through_type(self, caller: _Def, qualifier: str) -> bool:
        """Whether a call's qualifier names a type: capitalized, and written as a path
        (`Cursor::new(..)`) or a type the snapshot defines (`Thread.__init__(self)`); not a
        capitalized local (`M.set(..)` of `M = self.get(key, Morsel())`)."""
        if not qualifier[:1].isupper():
            return False
        if not self._types:
            self._types = frozenset().union(*self.types_in.values())
        return caller.separator == "::" or qualifier in self._types

    def _on_values_of(self, target: _Def) -> set[int]:
        """The calls of the target's name, in other files, on a value named like its owner
        (`self.storage_mut().fill(..)` of a `Storage`; `storage.fill(v)` in the arm of
        `Storage`'s `Metal` variant, a `MetalStorage`; not `Error::from(..)`, a type's own):
        backend dispatch, when the caller's file names the owner and defines no type of
        that name, and the owner's method is defined in few files, beside the owner
        (`Attention::forward` of fifty models: which one is unknown)."""
        owner = target.owner
        homes = {self.defs[i].path for i in self.methods.get((owner or "", target.name), ())}
        if not owner or len(homes) > MAX_HOMES or not any(
                owner in self.types_in.get(home, frozenset()) for home in homes):
            return set()  # a type of another crate (`impl Backend for HashMap<..>`)
        kind = words(owner)[-1:]
        # The words that tell the owner from the other types of the method (`metal` of
        # `QMetalStorage` beside `QCudaStorage`): a caller named with one (`metal_fwd`)
        # dispatches to that other type (the owner's own words are taken out)
        elsewhere = self._values.owner_words(target.name, self.by_name, self.defs) - {
            *words(owner), *words(target.name)}  # `FeedForward` says nothing of `forward`
        found = set()
        for c, _ in self._values.calls(target.name, self.callers, self.defs).get(kind, ()):
            d = self.defs[c]
            if d.path not in homes and not elsewhere.intersection(words(d.name)) \
                    and owner in self.mentions.get(d.path, frozenset()) \
                    and owner not in self.types_in.get(d.path, frozenset()):
                found.add(c)
        return found

    def dispatched_by(self, target: _Def) -> list[int]:
        """The methods that look `target` up by a prefix of its name on their own object
        (`getattr(self, "visit_" + name)`): of its own class, or of a class it derives
        from, by name, in the snapshot (`ast.NodeVisitor.visit` for a `visit_Name` of a
        `NodeVisitor` subclass)."""
        owners = self.ancestors(target.owner or "")
        found = [c for owner in owners for c, prefix in self.dispatchers.get(owner, ())
                 if target.name.startswith(prefix) and self.defs[c] is not target]
        runs = {o for c in found for o in self._override(target.owner or "", c)}
        return sorted(o for o in runs if self.defs[o] is not target)

    def _attribute_readers(self, target: _Def) -> list[int]:
        """What runs a descriptor's `__get__`: reading the attribute of a class whose
        body sets it to one (`name = _Validator()` in `Metadata`). Only the reads by a
        computed name in that class's own methods are known (`getattr(ins, key)` in
        `Metadata.from_raw`): a read by its name (`metadata.name`) is anyone's."""
        hook, read = self.descriptor
        if not hook or target.name != hook:
            return []
        holders = self.holders.get(target.owner or "", set())
        return [c for c, _ in self.callers.get(read, ()) if self.defs[c].owner in holders]

    def _declared_by_bases(self, target: _Def) -> list[int]:
        """The public methods of the same name on the classes a private class derives
        from: users call the method through the base they know (`transport.write(..)`
        of `WriteTransport` runs `_SelectorSocketTransport.write`)."""
        if target.public or not (target.owner or "").startswith("_"):
            return []
        bases = self.ancestors(target.owner or "") - {target.owner}
        return [i for base in bases for i in self.methods.get((base, target.name), ())
                if self.defs[i].public]

    def _inherited_self_calls(self, target: _Def) -> list[int]:
        """`self.m(..)` written in a method of a class the target's class derives from,
        with no `m` of its own there: on an object of the target's class it runs the
        target (`CodeGenerator.visit_Output` calling `self._output_child_to_const` runs
        `NativeCodeGenerator`'s)."""
        bases = self.ancestors(target.owner or "") - {target.owner}
        if not bases:
            return []
        # Even one the target's class overrides: the override may call `super().m(..)`
        # (`IsolatedAsyncioTestCase.run` -> `TestCase.run`), which the outline cannot see.
        return [c for c, q in self.callers.get(target.name, ())
                if q == "self" and self.defs[c].owner in bases]

    def _override(self, owner: str, dispatcher: int) -> set[int]:
        """What runs for the dispatcher's name on an object of class `owner`: the
        nearest definition of that name from `owner` up to the dispatcher's class
        (`_Unparser.visit`, which users reach through `ast.unparse`, rather than the
        `NodeVisitor.visit` it hands on to); the dispatcher itself when none overrides it."""
        name, level, seen = self.defs[dispatcher].name, [owner], {owner}
        bases = self.hierarchy.bases()
        while level:
            own = {i for cls in level for i in self.methods.get((cls, name), ())}
            if own:
                return own
            level = [b for cls in level for b in bases.get(cls, ()) if b not in seen]
            seen.update(level)
        return {dispatcher}

    def _on_something_else(self, caller: _Def, qualifier: str, target: _Def) -> bool:
        """Whether a call to a method's name is surely on something of another type: a
        module (`os.close(..)` is no loop's `close`), or a field of the caller's own
        object when the method is its own type's (`self._cond.wait()` in `Barrier`)."""
        if qualifier in self.module_names and qualifier != target.owner \
                and qualifier not in (caller.params or ()):
            return True  # `barrier.wait(..)` of a parameter `barrier` may be this one
        own = tuple(f"{r}." for r in ("self", caller.receiver) if r)
        return caller.owner == target.owner and qualifier.startswith(own)

    def _runs_own_method(self, caller: _Def, qualifier: str, target: _Def) -> bool:
        """Whether a call on the caller's own receiver (`self.m(..)`, Go's `c.m(..)`)
        runs a method `m` of the caller's own type other than `target`: the type
        defines one (in the caller's file, where several types share the owner's name)."""
        if caller.owner is None or qualifier not in ("self", "Self", caller.receiver):
            return False
        own = [self.defs[i] for i in self.methods.get((caller.owner, target.name), ())]
        same_file = [d for d in own if d.path == caller.path]
        return bool(own) and target not in (same_file or own)

    def _instantiations(self, target: _Def) -> list[int]:
        """The calls of the class itself, which run its `__init__`: through its module
        (`_expand.Expander(..)`), or bare in its own file (`Popen(..)` in its module's `run`).
        A bare call elsewhere may be another class of that name: `StringIO(..)` after
        `from io import StringIO` is the C one, not `_pyio.StringIO`."""
        owner = target.owner or ""
        module = target.module.rsplit(target.separator, 1)[-1]
        through = {module} if module else set()
        return [c for c, q in self.callers.get(owner, ())
                if (q in through or (not q and self.defs[c].path == target.path))
                and self.defs[c] is not target]

    def _hidden_callers(self, target: _Def) -> list[int]:
        """What runs a trait method of a type its file hides: the functions of the file
        that build a value and apply it (`sdpa` builds an `Sdpa` for `apply_op3`); but a
        constructor that builds one keeps it in its own object (`BeitVisionTransformer::new`
        stores a `PatchEmbed`), and the methods calling it through a field of that object
        run it (`self.patch_embed.forward(xs)`)."""
        found = set(self._builders_of(target.owner or "", hidden_in=target.path))
        stored = {c for c in found if self.defs[c].constructs and self.defs[c].owner}
        if stored:
            owners = {self.defs[c].owner for c in stored}
            found -= stored
            found |= {c for c, qualifier in self.callers_in.get((target.name, target.path), ())
                      if self.defs[c].owner in owners and qualifier.startswith(
                          tuple(f"{r}." for r in ("self", self.defs[c].receiver) if r))}
        return sorted(found, key=lambda i: (self.defs[i].path, self.defs[i].line))

    def _builders_of(self, owner: str, hidden_in: str | None = None) -> list[int]:
        """The free functions that build a value of `owner` (a literal `Owner { .. }`, a
        call `Owner(..)` or `Owner::new(..)`) and so run its trait methods: an op built
        and applied in one call (`sdpa` builds an `Sdpa` for `apply_op3`). Methods that
        build one (an allocator, a device's constructor) hand it back instead: the
        trait method's callers by name reach it then. A hidden type (one its file
        does not make public: `hidden_in` is that file) is built only there, where it is
        applied, however many places those are."""
        found = {c for c, _ in self.callers.get(owner, ())} | self.by_qualifier.get(owner, set())
        if hidden_in is not None:  # any function of its file: the type is applied there
            found = {c for c in found if self.defs[c].path == hidden_in}
        elif len(found) > MAX_BUILDERS:
            return []  # a type built all over (a storage, a tensor) is no op built for one use
        else:
            found = {c for c in found if self.defs[c].owner is None}
        return sorted(found, key=lambda i: (self.defs[i].path, self.defs[i].line))

    def start(self, site: Site) -> int | None:
        """The definition that holds the site (the innermost one); else the nearest: two
        `f`s of two impls are apart by lines, and the nearer start may be the next one."""
        if not site.function:
            return None
        short = re.split(r"::|\.", site.function)[-1]
        starts = [i for i in self.by_name.get(short, ()) if self.defs[i].path == site.path]
        holding = [i for i in starts if self.defs[i].line <= site.line <= self.defs[i].end_line]
        return max(holding, key=lambda i: self.defs[i].line) if holding else \
            min(starts, key=lambda i: abs(self.defs[i].line - site.line), default=None)

    def caught_by_callers(
        self, site: Site, catches: Callable[[str, frozenset[str]], bool]
    ) -> tuple[str, ...]:
        """Where the library catches the site's error above its function
        (errdex.analyze.caught): the handlers' "path:line"; () unless all calls do."""
        return caught.by_callers(self, site, catches)

    def ancestors(self, name: str) -> frozenset[str]:
        """A class's name with the names of every class it derives from in the snapshot."""
        return self.hierarchy.ancestors(name)

    def entry_points(self, site: Site) -> tuple[EntryPoint, ...]:
        """Public callers of the site's function, nearest first, up to MAX_DEPTH levels."""
        start = self.start(site)
        if start is None:
            return ()
        seen, frontier = {start}, [start]
        found: list[EntryPoint] = []
        # The receiver's fields the site's path needs to hold a value, and the methods of
        # its type that reach it on the same value: a function building that value with
        # one of those fields left empty (`Op { mask: None, .. }`) never gets there.
        needed, absent = self.fields.needed(site, self.defs[start])
        read = self.fields.read(site, self.defs[start])  # set from a caller's argument, too
        owner = self.defs[start].owner
        own = {start} if needed or read else set()
        indirect: set[tuple[str, int]] = set()  # entries reached through a virtual edge
        through: dict[int, tuple[str, ...]] = {}  # what each direct caller passes
        for depth in range(1, MAX_PRIVATE_DEPTH + 1):
            if depth > MAX_DEPTH and found and not all(map(self._private, found)):
                break
            nxt = []
            for index in frontier:
                for caller in self.callers_of(index):
                    if caller in seen or (depth > MAX_DEPTH and by_value(self, index, caller)):
                        continue  # that far up, only calls surely to it are followed
                    seen.add(caller)
                    d = self.defs[caller]
                    set_from: tuple[tuple[str, str], ...] = ()
                    if index in own:
                        if d.owner == owner:
                            own.add(caller)
                        elif self.fields.leaves_empty(owner or "", caller, needed, absent):
                            continue
                        else:
                            set_from = self.fields.set_from(owner or "", d, caller,
                                                            needed | read)
                    nxt.append(caller)
                    if caller in self.virtual.get((self.defs[index].path,
                                                   self.defs[index].line), ()):
                        indirect.add((d.path, d.line))
                    given = self._given(index, caller, depth, through)
                    if d.public and not self.applications.of(self, caller):
                        found.append(EntryPoint(d.qualified, d.path, d.line, depth, given,
                                                d.params if given is not None else None,
                                                set_from, lazy=d.lazy))  # fmt: skip
            if sum(not self._private(e) for e in found) >= MAX_ENTRY_POINTS or not nxt:
                break
            frontier = nxt[:50]  # a hub function would otherwise pull in the whole crate
        # What users call first: a function of a private module only when nothing else is;
        # at one depth, the site's own file, then its package, before others that call it.
        home = top(site.path)
        found.sort(key=lambda e: (self._private(e), e.depth, (e.path, e.line) in indirect,
                                  e.path != site.path, top(e.path) != home))
        return tuple(found[:MAX_ENTRY_POINTS])

    def _given(self, index: int, caller: int, depth: int,
               through: dict[int, tuple[str, ...]]) -> tuple[str, ...] | None:
        """What `caller` passes the site's function, in its own terms (for
        errdex.write.lifted): its arguments (a custom op's: what the call applying it
        passes); one more hop up, only through an op's method (`flash_attn_varlen` applies
        the op whose `cuda_fwd` calls `self.cuda_fwd_t(q, q_l, ..)`), which hands its
        storages and layouts on as they came: a function called by name may rebind a
        parameter before it passes it on, and the outline cannot say."""
        if depth == 1:
            given = arguments_passed(self, self.defs[index], caller)
            given = self.applications.arguments(self, index, caller) if given is None \
                else given
            if given is not None:
                through[caller] = given
            return given
        applied = self.applications.arguments(self, index, caller) \
            if depth == 2 and index in through else None
        return None if applied is None else passed_on(through[index], self.defs[index], applied)

    def builds(self, entry: EntryPoint, owner: str) -> bool:
        """Whether the entry point's own body builds a value of `owner` from one of its
        own parameters (`_Context(expected)` in `expect_failure(expected)`): a call of the
        class whose arguments name a parameter of the entry point."""
        if not self._at:
            self._at = {(d.path, d.line): i for i, d in enumerate(self.defs)}
        index = self._at.get((entry.path, entry.line))
        found = self.arguments.get((owner, index)) if index is not None else None
        if index is None or found is None:
            return False
        params = set(self.defs[index].params or ()) - {"self", "cls"}
        return any(root(argument) in params for argument in found[1])

    def _private(self, entry: EntryPoint) -> bool:
        return (entry.path, entry.line) in self.private_defs
