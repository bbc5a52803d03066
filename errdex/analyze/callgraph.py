"""Entry points: the public functions and methods of a repository that reach a given
function, found by a name-based call graph a few levels deep.

Names, not types: a call `x.forward(...)` is an edge to every function called `forward`.
To keep that honest, a name defined in more than one file only counts callers in the
same file, or callers that name the owner (`Owner::name(`, `Owner.name(`). It reads the
files' text with regular expressions (no second parse) and never runs anything.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from errdex.languages import spec_for
from errdex.models import EntryPoint, Language, Site

_CALL = re.compile(r"\b([A-Za-z_]\w*)(?:::<[^>()]*>)?\s*\(")
_QUALIFIER = re.compile(r"([A-Za-z_]\w*)\s*(?:::|\.)$")
_NOT_CALLS = frozenset(
    "if while for match return fn def loop Some Ok Err Box Vec print len isinstance str int "
    "super self Self assert raise format vec panic bail".split()
)
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

    @property
    def qualified(self) -> str:
        if self.owner is None:
            return self.name
        return f"{self.owner}{self.separator}{self.name}"


class CallGraph:
    """Functions and who calls them, by name, over a set of files."""

    def __init__(self) -> None:
        self.defs: list[_Def] = []
        self.by_name: dict[str, list[int]] = defaultdict(list)
        self.files_of: dict[str, set[str]] = defaultdict(set)
        # callee name -> (caller def index, qualifier written before the name or "")
        self.callers: dict[str, set[tuple[int, str]]] = defaultdict(set)

    @classmethod
    def build(cls, files: Iterable[tuple[str, Language, str]]) -> CallGraph:
        graph = cls()
        for path, language, text in files:
            graph._add_file(path, language, text)
        return graph

    def _add_def(self, d: _Def) -> int:
        self.defs.append(d)
        index = len(self.defs) - 1
        self.by_name[d.name].append(index)
        self.files_of[d.name].add(d.path)
        return index

    def _add_file(self, path: str, language: Language, text: str) -> None:
        outline = spec_for(language).outline
        function = re.compile(outline.function)
        blocks = [(word, re.compile(pattern), trait) for word, pattern, trait in outline.blocks]
        # Open scopes: (indent, def index or None, owner name or None, trait impl?)
        scopes: list[tuple[int, int | None, str | None, bool]] = []
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if not stripped or stripped.startswith(("//", "#", "*", "/*")):
                continue
            indent = len(line) - len(line.lstrip())
            while scopes and scopes[-1][0] >= indent and not stripped.startswith(("}", ")")):
                scopes.pop()
            # the word is a cheap test before the regex
            m = function.match(line) if outline.def_word in line else None
            if m:
                owner = next((s[2] for s in reversed(scopes) if s[2]), None)
                name = m.group("name")
                if outline.public_by_marker:
                    exported = "exported" in m.re.groupindex and bool(m.group("exported"))
                    public = exported or any(s[3] for s in scopes)
                else:
                    public = not name.startswith("_") and not (owner and owner.startswith("_"))
                d = _Def(name, owner, path, number, public, outline.separator)
                index = self._add_def(d)
                scopes.append((indent, index, None, False))
                self._add_calls(line[m.end():], scopes)
                continue
            block = next((b for word, pattern, trait in blocks if word in line
                          and (b := pattern.match(line))), None)  # fmt: skip
            if block:
                trait = next(t for _, p, t in blocks if p is block.re)
                marked = "trait" in block.re.groupindex and bool(block.group("trait"))
                scopes.append((indent, None, block.group("owner"), marked or trait))
                continue
            if "(" in line:
                self._add_calls(line, scopes)

    def _add_calls(self, code: str, scopes: list[tuple[int, int | None, str | None, bool]]) -> None:
        caller = next((s[1] for s in reversed(scopes) if s[1] is not None), None)
        if caller is None:
            return
        for m in _CALL.finditer(code):
            name = m.group(1)
            if name not in _NOT_CALLS and name != self.defs[caller].name:
                before = code[max(0, m.start() - 40) : m.start()]
                q = _QUALIFIER.search(before) if before.endswith((".", ":")) else None
                self.callers[name].add((caller, q.group(1) if q else ""))

    def _callers_of(self, target: _Def) -> list[int]:
        ambiguous = len(self.files_of[target.name]) > 1
        out = []
        for caller, qualifier in self.callers.get(target.name, ()):
            c = self.defs[caller]
            named = bool(target.owner) and qualifier == target.owner
            if not ambiguous or c.path == target.path or named:
                out.append(caller)
        return sorted(out, key=lambda i: (self.defs[i].path, self.defs[i].line))

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
