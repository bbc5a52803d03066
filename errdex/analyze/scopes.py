"""What names are in scope where, for the call graph (errdex.analyze.callgraph): which
definitions a call written somewhere can reach by the name it writes.

- A function defined inside another is seen only there: the calls of its name in the
  function it is written in (and in the functions nested in that one) are its calls;
  the same name called anywhere else is some other function.
- A bare call of a name the caller's own scopes bind (a nested function, a parameter)
  is not a call of the file's definition of that name.
- An item its language keeps in its module when unmarked (`Outline.unmarked_local`:
  Rust's `fn f`, no `pub`) is called only from that module and the modules inside it.
- A call through a name the caller's file imports (`Linear::new(..)` after `use
  candle_nn::Linear;`) goes to the definition that import names, when it names one of
  the candidates better than the others (a re-export through a parent module counts;
  a crate imported under another name names none, and then nothing is ruled out).

Built from the outlines alone, like the graph; it reads no file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from errdex.analyze.calldefs import Def

MAX_REEXPORTS = 4  # `pub use` steps followed from an imported path to what it names


class Scopes:
    """The enclosing definition of each definition, what each one binds, and each file's
    imports, over the graph's definitions (indexes into its `defs`)."""

    def __init__(self) -> None:
        self.outer: list[int | None] = []  # def index -> the def it is written in
        # def index -> the names of the plain functions written directly inside it
        self.nested: dict[int, set[str]] = defaultdict(set)
        self.imports: dict[str, dict[str, str]] = {}  # path -> name bound -> path named
        self.importers: dict[str, set[str]] = defaultdict(set)  # name -> files importing it
        self.by_module: dict[str, dict[str, str]] = {}  # module -> its files' imports
        # a name passed as a value (`self._apply(cast)`) -> (the def passing it, the name
        # of the call it is passed to; "" when the def returns it)
        self.passed_by: dict[str, set[tuple[int, str]]] = defaultdict(set)
        self._names: list[str] = []  # def index -> its name
        self._owners: list[str | None] = []  # def index -> its owner

    def add_file(
        self, path: str, module: str, defs: Sequence[Def], first: int,
        import_paths: Sequence[tuple[str, str]] = (),
    ) -> None:  # fmt: skip
        """The file's definitions (`defs`, in the order they start, the first being def
        `first` of the graph) and the names its imports bind."""
        open_defs: list[int] = []
        for offset, d in enumerate(defs):
            while open_defs and not _spans(defs[open_defs[-1]], d):
                open_defs.pop()
            outer = open_defs[-1] if open_defs else None
            self.outer.append(first + outer if outer is not None else None)
            if outer is not None and defs[outer].owner == d.owner:
                self.nested[first + outer].add(d.name)
            if d.end_line >= d.line:
                open_defs.append(offset)
        self._names.extend(d.name for d in defs)
        self._owners.extend(d.owner for d in defs)
        if import_paths:
            self.imports[path] = dict(import_paths)
            if module:
                self.by_module.setdefault(module, {}).update(import_paths)
            for name, _ in import_paths:
                self.importers[name].add(path)

    def handed_on(self, target: int, defined: Mapping[str, object]) -> list[int]:
        """The function a nested function is written in, when that function (or one
        nested in it) returns it or passes it to a function of the snapshot (`defined`:
        the names defined): what runs it does so for that call. Handed to what the
        snapshot does not define (`property(get, set)`, `setattr`), it is only stored."""
        outer = self.outer[target] if target < len(self.outer) else None
        if outer is None or self._owners[outer] != self._owners[target]:
            return []
        passing = self.passed_by.get(self._names[target], set())
        return [outer] if any(self._within(p, outer) and (not to or to in defined)
                              for p, to in passing) else []

    def reaches(self, defs: Sequence[Def], target: int, caller: int, qualifier: str) -> bool:
        """Whether the call of the target's name in `caller`, through `qualifier` ("" for
        a bare call), may run `target` as far as scopes tell."""
        t, c = defs[target], defs[caller]
        outer = self.outer[target] if target < len(self.outer) else None
        # A plain nested function is called bare where it is written; a method of a
        # class defined in a function is called on its objects, wherever they go.
        if outer is not None and defs[outer].owner == t.owner:
            return c.path == t.path and self._within(caller, outer) and qualifier == ""
        if t.local and outer is None and not _in_module(c, t):
            return False
        return not (qualifier == "" and self._shadowed(defs, caller, t.name))

    def unnamed(self, defs: Sequence[Def], index: int) -> bool:
        """Whether users cannot call the definition by any name: a function nested in
        another, an item kept in its module; not a method of a class defined in a
        function (its objects may be handed to anyone)."""
        outer = self.outer[index] if index < len(self.outer) else None
        return defs[index].local and (outer is None or defs[outer].owner == defs[index].owner)

    def _within(self, caller: int, outer: int) -> bool:
        at: int | None = caller
        while at is not None:
            if at == outer:
                return True
            at = self.outer[at] if at < len(self.outer) else None
        return False

    def _shadowed(self, defs: Sequence[Def], caller: int, name: str) -> bool:
        """Whether a bare `name` in `caller` is bound by the caller's own scopes: a
        function nested in it or in one it is written in, or one of their parameters."""
        at: int | None = caller
        while at is not None:
            if name in self.nested.get(at, ()) or name in (defs[at].params or ()):
                return True
            at = self.outer[at] if at < len(self.outer) else None
        return False

    def agrees(
        self, defs: Sequence[Def], path: str, qualifier: str, target: int,
        candidates: Sequence[int], named: bool = False,
    ) -> bool:  # fmt: skip
        """Whether a call through `qualifier` (or, "", of the target's bare name) in the
        file `path` may go to `target` rather than to another of `candidates` (the
        definitions it could name): the file imports no such name, or its import names
        the target at least as well as any other candidate. `named`: only when the
        file imports the name and that import names the target so."""
        bound = self.imports.get(path, {}).get(qualifier or defs[target].name)
        if bound is None or target not in candidates:
            return not named
        bound = self._reexported(bound, defs[target].separator)
        scores = {i: _score(bound, _named(defs[i], qualifier), defs[i].separator)
                  for i in candidates}  # fmt: skip
        best = max(scores.values())
        if not best:
            return not named
        # a new caller only when the import names the target alone
        return scores[target] == best and (not named or list(scores.values()).count(best) == 1)

    def _reexported(self, bound: str, separator: str) -> str:
        """The path an imported path names once the modules that re-export it are
        followed (`candle_nn::rms_norm` is `candle_nn::layer_norm::rms_norm` when
        `candle_nn`'s files `use` it so), a few steps at most."""
        for _ in range(MAX_REEXPORTS):
            parent, _, name = bound.rpartition(separator)
            further = self.by_module.get(parent, {}).get(name)
            if not parent or further is None or further == bound:
                return bound
            bound = further
        return bound


def _spans(outer: Def, inner: Def) -> bool:
    return outer.line <= inner.line <= outer.end_line and inner is not outer


def _in_module(caller: Def, target: Def) -> bool:
    """Whether the caller is in the target's module or a module inside it (its file, when
    the module is not known)."""
    if not target.module:
        return caller.path == target.path
    return caller.module == target.module or \
        caller.module.startswith(target.module + target.separator)


def _named(d: Def, qualifier: str) -> str:
    """The path of what a call through `qualifier` names to reach `d`: its owner's path
    (`candle_nn::linear::Linear`), its module's (`candle_nn::ops`), or its own."""
    module = d.module
    sep = d.separator
    if qualifier and d.owner == qualifier:
        return f"{module}{sep}{d.owner}" if module else d.owner
    if qualifier:
        return module
    return f"{module}{sep}{d.name}" if module else d.name


def _score(bound: str, named: str, separator: str) -> int:
    """How well an import's path names a definition's path: 3 the same; 2 the same last
    name through a module the definition is inside of (a re-export: `candle_nn::Linear`
    of `candle_nn::linear::Linear`); 1 the same last name in the same package; else 0."""
    if not named:
        return 0
    if bound == named:
        return 3
    bound_parts, named_parts = bound.split(separator), named.split(separator)
    if bound_parts[-1] != named_parts[-1]:
        return 0
    parent = separator.join(bound_parts[:-1])
    if parent and named.startswith(parent + separator):
        return 2
    return 1 if bound_parts[0] == named_parts[0] else 0
