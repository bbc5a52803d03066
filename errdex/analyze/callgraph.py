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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from errdex.analyze.visibility import is_private_module, named_by, package_entries
from errdex.extract.structure import RESULT, FileStructure
from errdex.languages import spec_for
from errdex.models import EntryPoint, Language, Site

_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORD = re.compile(r"^\s*[A-Za-z_]\w*\s*[=:](?![=:])\s*")  # `key=` (`key:` in Rust fields)
MAX_DEPTH = 3
# Past MAX_DEPTH the search goes on, to this depth, while every public caller it found
# lives in a private module (`re._parser.parse`): users call `re.compile`, seven calls up.
MAX_PRIVATE_DEPTH = 8
MAX_ENTRY_POINTS = 6
MAX_HOMES = 2  # files defining a delegated-to method (a backend and its stand-in)
_NOT_NAMES = frozenset({"mut", "ref", "get", "as", "to", "inner", "self", "deref", "borrow",
                        "lock", "read", "write", "unwrap"})  # words naming no type
MAX_BUILDERS = 3  # an op type is built where it is applied: by a few functions, not dozens


@dataclass(frozen=True)
class _Def:
    name: str
    owner: str | None
    path: str
    line: int
    public: bool
    separator: str  # between owner and name, as the language writes a qualified name
    in_trait: bool = False  # a trait impl's method: reached through a value of `owner`
    module: str = ""  # the module users name a free function by ("" when unknown)
    params: tuple[str, ...] | None = None
    receiver: str | None = None  # the name its own receiver goes by (`self`, Go's `c`)
    end_line: int = 0
    shown: str = ""  # the module users name it by, when a package re-exports it (`tomllib`)
    constructs: bool = False  # a constructor of its owner (spec.outline.constructors)
    instantiated: bool = False  # run by calling its class (spec.outline.instantiation)

    @property
    def qualified(self) -> str:
        """A method by its owner (`Tensor::reshape`: called on a value), a free function
        by its module (`candle_nn::ops::sdpa`, `json.loads`): as users write the call."""
        if self.owner is None:
            module = self.shown or self.module
            return f"{module}{self.separator}{self.name}" if module else self.name
        return f"{self.owner}{self.separator}{self.name}"


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
        # (callee name, caller def index) -> the qualifier and arguments of its first call
        self.arguments: dict[tuple[str, int], tuple[str, tuple[str, ...]]] = {}
        # (owner, method name) -> its definitions: where `self.m(..)` of an owner goes
        self.methods: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.mentions: dict[str, frozenset[str]] = {}  # path -> the identifiers it uses
        self.types_in: dict[str, frozenset[str]] = {}  # path -> the types it defines
        self.module_names: set[str] = set()  # the top-level modules (`os`, `candle_core`)
        # (path, line) of the definitions in private modules that no package re-exports
        self.private_defs: set[tuple[str, int]] = set()
        self._found: dict[int, list[int]] = {}  # def index -> its callers, once asked
        self._at: dict[tuple[str, int], int] = {}  # (path, line) -> def index, once asked

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
            graph._add_file(path, spec.outline.separator, spec.module_path(path), structure,
                            private=private, entries=entries if private else {},
                            constructors=spec.outline.constructors,
                            instantiation=spec.outline.instantiation)
        return graph

    def _add_file(
        self, path: str, separator: str, module: str, structure: FileStructure,
        private: bool = False, entries: Mapping[str, frozenset[str]] | None = None,
        constructors: frozenset[str] = frozenset(), instantiation: frozenset[str] = frozenset(),
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
                                  d.name in instantiation))  # fmt: skip
            index = len(self.defs) - 1
            self.by_name[d.name].append(index)
            self.files_of[d.name].add(path)
            if d.owner:
                self.methods[(d.owner, d.name)].add(index)
        for call in structure.calls:
            edge = (first + call.caller, call.qualifier)
            self.callers[call.name].add(edge)
            self.callers_in[(call.name, path)].add(edge)
            if call.qualifier:
                self.callers_through[(call.name, call.qualifier)].add(edge)
            if call.arguments is not None:
                self.arguments.setdefault((call.name, first + call.caller),
                                          (call.qualifier, call.arguments))
            if call.qualifier and not call.qualifier.endswith(RESULT) \
                    and not call.name[:1].isupper():
                self.by_qualifier[call.qualifier].add(first + call.caller)


    def _callers_of(self, index: int) -> list[int]:
        """The callers of definition `index`, worked out once: every site of a function
        and every record above it asks again (candle: 5,682 asks of 1,883 sites)."""
        found = self._found.get(index)
        if found is None:
            found = self._found[index] = self._find_callers(self.defs[index])
        return found

    def _find_callers(self, target: _Def) -> list[int]:
        if target.in_trait and target.owner:
            # A trait's method name is shared by every impl (`fwd`, `load`, `convert`):
            # callers by that name call some impl, not this one. Only the free functions
            # that build this type are known to reach it; else none is.
            found = self._builders_of(target.owner) if target.public \
                else self._hidden_callers(target)
            return sorted(set(found) | self._on_values_of(target),
                          key=lambda i: (self.defs[i].path, self.defs[i].line))
        if len(self.files_of[target.name]) > 1:
            # A name several files define: the calls in the target's own file, and those
            # through its owner or module (`Owner::new(`, `_parser.parse(`).
            named = target.owner or _last_part(target)
            # In its own file too, a call through another type is that type's function
            # (`Cursor::new(..)` beside `VoxtralModel::new`).
            edges = {(c, q) for c, q in self.callers_in.get((target.name, target.path), ())
                     if not q[:1].isupper() or q in (named, "Self")}
            if named:
                # `MLP::new(..)` in a file with a `MLP` of its own calls that one
                others = {self.defs[i].path for i in self.methods.get((named, target.name), ())}
                others.discard(target.path)
                edges = edges | {(c, q) for c, q in self.callers_through.get(
                    (target.name, named), ()) if self.defs[c].path not in others}
            edges |= {(c, "") for c in self._on_values_of(target)}
        else:
            edges = self.callers.get(target.name, set())
        out = []
        for caller, qualifier in edges:
            c = self.defs[caller]
            if c.name == target.name and qualifier.endswith(RESULT):
                continue  # `_safe_super(Mock, self).__init__(..)`: dispatch only (_on_values_of)
            if self._runs_own_method(c, qualifier, target):
                continue  # `self.m(..)` runs the caller's own type's `m`, not this one
            if target.owner and self._on_something_else(c, qualifier, target):
                continue
            out.append(caller)
        if target.instantiated and target.owner:
            out.extend(self._instantiations(target))
        return sorted(set(out), key=lambda i: (self.defs[i].path, self.defs[i].line))

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
        kind = _words(owner)[-1:]
        found = set()
        for c, qualifier in self.callers.get(target.name, ()):
            d = self.defs[c]
            if d.path not in homes and qualifier[:1].islower() \
                    and _words(qualifier)[-1:] == kind and qualifier not in ("self", d.receiver) \
                    and owner in self.mentions.get(d.path, frozenset()) \
                    and owner not in self.types_in.get(d.path, frozenset()):
                found.add(c)
        return found

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

    def _arguments(self, target: _Def, caller: int) -> tuple[str, ...] | None:
        """The arguments `caller` passes to `target`, when the call is surely to it: a
        free function called bare or through its module (`ops::sdpa(`), a method called
        on its owner (`Owner::m(`) or on the caller's own receiver of the same type
        (`self.m(`). A name alone (`x.read(`) may be any type's method."""
        found = self.arguments.get((target.name, caller))
        if found is None:
            return None
        qualifier, arguments = found
        c = self.defs[caller]
        if not qualifier and c.path == target.path and c.line < target.line <= c.end_line:
            return arguments  # a function nested in its caller, called by its own name
        if target.owner is None:
            sure = qualifier in ("", _last_part(target))
        else:
            sure = qualifier == target.owner or (
                qualifier in ("self", "Self", c.receiver) and c.owner == target.owner)
        return arguments if sure else None

    def entry_points(self, site: Site) -> tuple[EntryPoint, ...]:
        """Public callers of the site's function, nearest first, up to MAX_DEPTH levels."""
        if not site.function:
            return ()
        short = re.split(r"::|\.", site.function)[-1]
        starts = [i for i in self.by_name.get(short, ()) if self.defs[i].path == site.path]
        # The definition that holds the site (the innermost one); else the nearest: two
        # `f`s of two impls are apart by lines, and the nearer start may be the next one.
        holding = [i for i in starts if self.defs[i].line <= site.line <= self.defs[i].end_line]
        start = max(holding, key=lambda i: self.defs[i].line) if holding else \
            min(starts, key=lambda i: abs(self.defs[i].line - site.line), default=None)
        if start is None:
            return ()
        seen, frontier = {start}, [start]
        found: list[EntryPoint] = []
        for depth in range(1, MAX_PRIVATE_DEPTH + 1):
            if depth > MAX_DEPTH and not (found and all(map(self._private, found))):
                break
            nxt = []
            for index in frontier:
                for caller in self._callers_of(index):
                    if caller in seen:
                        continue
                    seen.add(caller)
                    nxt.append(caller)
                    d = self.defs[caller]
                    if d.public:
                        # A direct caller's arguments: the site's checks on its parameters
                        # can be said on the caller's (errdex.write.pagefacts).
                        given = self._arguments(self.defs[index], caller) if depth == 1 \
                            else None
                        found.append(EntryPoint(d.qualified, d.path, d.line, depth,
                                                arguments=given,
                                                parameters=d.params if given is not None
                                                else None))
            if sum(not self._private(e) for e in found) >= MAX_ENTRY_POINTS or not nxt:
                break
            frontier = nxt[:50]  # a hub function would otherwise pull in the whole crate
        # What users call first: a function of a private module only when nothing else is;
        # at one depth, the site's own file, then its package, before others that call it.
        home = _top(site.path)
        found.sort(key=lambda e: (self._private(e), e.depth, e.path != site.path,
                                  _top(e.path) != home))
        return tuple(found[:MAX_ENTRY_POINTS])

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
        return any(_root(argument) in params for argument in found[1])

    def _private(self, entry: EntryPoint) -> bool:
        return (entry.path, entry.line) in self.private_defs


@lru_cache(maxsize=4096)
def _words(name: str) -> tuple[str, ...]:
    """The lowercase words of a name (`MetalStorage`, `storage_mut()`): metal, storage."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower())
                 if w and w not in _NOT_NAMES)


def _root(argument: str) -> str:
    """The name an argument's value starts with (`spec` of `spec.name`, of `key=spec`)."""
    value = _KEYWORD.sub("", argument, count=1).lstrip("*&")
    found = _IDENT.match(value)
    return found.group(0) if found else ""


def _top(path: str) -> str:
    """The first folder of a path, or a top-level file's name without its suffix."""
    return path.split("/", 1)[0].rsplit(".", 1)[0]


def _last_part(target: _Def) -> str:
    """The last part of a free function's module, as a call through it writes it
    (`_parser` of `re._parser`); "" for a method or an unknown module."""
    if target.owner is not None or not target.module:
        return ""
    return target.module.rsplit(target.separator, 1)[-1]
