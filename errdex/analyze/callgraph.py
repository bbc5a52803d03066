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
from collections.abc import Iterable
from dataclasses import dataclass

from errdex.extract.structure import FileStructure
from errdex.languages import spec_for
from errdex.models import EntryPoint, Language, Site

MAX_DEPTH = 3
MAX_ENTRY_POINTS = 6


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

    @property
    def qualified(self) -> str:
        """A method by its owner (`Tensor::reshape`: called on a value), a free function
        by its module (`candle_nn::ops::sdpa`, `json.loads`): as users write the call."""
        if self.owner is None:
            return f"{self.module}{self.separator}{self.name}" if self.module else self.name
        return f"{self.owner}{self.separator}{self.name}"


class CallGraph:
    """Functions and who calls them, by name, over a set of files."""

    def __init__(self) -> None:
        self.defs: list[_Def] = []
        self.by_name: dict[str, list[int]] = defaultdict(list)
        self.files_of: dict[str, set[str]] = defaultdict(set)
        # callee name -> (caller def index, qualifier written before the name or "")
        self.callers: dict[str, set[tuple[int, str]]] = defaultdict(set)
        # qualifier -> callers that name it (`Owner::new(..)`, `Owner::from(..)`)
        self.by_qualifier: dict[str, set[int]] = defaultdict(set)

    @classmethod
    def build(cls, files: Iterable[tuple[str, Language, FileStructure]]) -> CallGraph:
        """The graph of every file's outline (errdex.extract.outline, made by the worker
        that extracted the file: nothing is read or parsed again here)."""
        graph = cls()
        for path, language, structure in files:
            spec = spec_for(language)
            graph._add_file(path, spec.outline.separator, spec.module_path(path), structure)
        return graph

    def _add_file(self, path: str, separator: str, module: str, structure: FileStructure) -> None:
        first = len(self.defs)
        for d in structure.defs:
            self.defs.append(_Def(d.name, d.owner, path, d.line, d.public, separator,
                                  d.in_trait, module))  # fmt: skip
            index = len(self.defs) - 1
            self.by_name[d.name].append(index)
            self.files_of[d.name].add(path)
        for call in structure.calls:
            self.callers[call.name].add((first + call.caller, call.qualifier))
            if call.qualifier:
                self.by_qualifier[call.qualifier].add(first + call.caller)

    def _callers_of(self, target: _Def) -> list[int]:
        if target.in_trait and target.owner:
            builders = self._builders_of(target.owner)
            if builders:
                return builders
        ambiguous = len(self.files_of[target.name]) > 1
        out = []
        for caller, qualifier in self.callers.get(target.name, ()):
            c = self.defs[caller]
            named = bool(target.owner) and qualifier == target.owner
            if not ambiguous or c.path == target.path or named:
                out.append(caller)
        return sorted(out, key=lambda i: (self.defs[i].path, self.defs[i].line))

    def _builders_of(self, owner: str) -> list[int]:
        """The free functions that build a value of `owner` (a literal `Owner { .. }`, a
        call `Owner(..)` or `Owner::new(..)`) and so run its trait methods: an op built
        and applied in one call (`sdpa` builds an `Sdpa` for `apply_op3`). Methods that
        build one (an allocator, a device's constructor) hand it back instead: the
        trait method's callers by name reach it then."""
        found = {c for c, _ in self.callers.get(owner, ())} | self.by_qualifier.get(owner, set())
        found = {c for c in found if self.defs[c].owner is None}
        return sorted(found, key=lambda i: (self.defs[i].path, self.defs[i].line))

    def entry_points(self, site: Site) -> tuple[EntryPoint, ...]:
        """Public callers of the site's function, nearest first, up to MAX_DEPTH levels."""
        if not site.function:
            return ()
        short = re.split(r"::|\.", site.function)[-1]
        starts = [i for i in self.by_name.get(short, ()) if self.defs[i].path == site.path]
        start = min(starts, key=lambda i: abs(self.defs[i].line - site.line), default=None)
        if start is None:
            return ()
        seen, frontier, found = {start}, [start], []
        for depth in range(1, MAX_DEPTH + 1):
            nxt = []
            for index in frontier:
                for caller in self._callers_of(self.defs[index]):
                    if caller in seen:
                        continue
                    seen.add(caller)
                    nxt.append(caller)
                    d = self.defs[caller]
                    if d.public:
                        found.append(EntryPoint(d.qualified, d.path, d.line, depth))
            if len(found) >= MAX_ENTRY_POINTS or not nxt:
                break
            frontier = nxt[:50]  # a hub function would otherwise pull in the whole crate
        return tuple(found[:MAX_ENTRY_POINTS])
