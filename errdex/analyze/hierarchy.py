"""The classes of a snapshot by name, and which derive from which: what the call graph
asks to tell whether a method call on an object of one class can run another class's
method (errdex.analyze.callgraph)."""

from __future__ import annotations

from collections import defaultdict


class Hierarchy:
    """Direct subclasses as the outlines list them; bases, descendants and relations
    worked out from them once asked."""

    def __init__(self) -> None:
        self.derived: dict[str, set[str]] = defaultdict(set)  # class -> its direct subclasses
        self.classes: set[str] = set()  # the classes whose bases the snapshot lists
        self._bases_of: dict[str, set[str]] = defaultdict(set)  # class -> its bases, once asked
        self._related_memo: dict[tuple[str, str], bool] = {}

    def bases(self) -> dict[str, set[str]]:
        if not self._bases_of:
            for base, subclasses in self.derived.items():
                for sub in subclasses:
                    self._bases_of[sub].add(base)
        return self._bases_of

    def related(self, one: str, other: str) -> bool:
        """Whether an object can be of both classes: one derives from the other, or a
        class derives from both (a mixin's `self.m(..)`), by name in the snapshot.
        A class the snapshot does not know the bases of may be anything."""
        if one == other or one not in self.classes or other not in self.classes:
            return True
        key = (one, other) if one < other else (other, one)
        if key not in self._related_memo:
            below = self.descendants(one) & self.descendants(other)
            self._related_memo[key] = bool(below) or one in self.ancestors(other) \
                or other in self.ancestors(one)
        return self._related_memo[key]

    def descendants(self, name: str) -> set[str]:
        found, todo = {name}, [name]
        while todo:
            for sub in self.derived.get(todo.pop(), ()):
                if sub not in found:
                    found.add(sub)
                    todo.append(sub)
        return found

    def ancestors(self, name: str) -> frozenset[str]:
        """A class's name with the names of every class it derives from in the snapshot."""
        found, todo, bases = {name}, [name], self.bases()
        while todo:
            for base in bases.get(todo.pop(), ()):
                if base not in found:
                    found.add(base)
                    todo.append(base)
        return frozenset(found)
