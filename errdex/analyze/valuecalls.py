"""What the call graph's backend dispatch (`CallGraph._on_values_of`) reads of a method
name, worked out once per name: each method of that name asks again (`forward` of
hundreds of model types in candle), and each ask read every call of the name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from errdex.analyze.calldefs import Def, words

_Calls = dict[tuple[str, ...], list[tuple[int, str]]]


class ValueCalls:
    """The calls and owner words of each method name, made on first ask."""

    def __init__(self) -> None:
        self._calls: dict[str, _Calls] = {}
        self._owners: dict[str, set[str]] = {}

    def calls(self, name: str, callers: Mapping[str, set[tuple[int, str]]],
              defs: Sequence[Def]) -> _Calls:  # fmt: skip
        """The calls of `name` (caller index, qualifier) on a lowercase value that is not
        the caller's own object, by the value's last word (`storage` of
        `self.storage_mut()`)."""
        found = self._calls.get(name)
        if found is None:
            found = self._calls[name] = {}
            for c, qualifier in callers.get(name, ()):
                if qualifier[:1].islower() and qualifier not in ("self", defs[c].receiver):
                    found.setdefault(words(qualifier)[-1:], []).append((c, qualifier))
        return found

    def owner_words(self, name: str, by_name: Mapping[str, list[int]],
                    defs: Sequence[Def]) -> set[str]:  # fmt: skip
        """The words of every type that defines a method `name`."""
        found = self._owners.get(name)
        if found is None:
            owners = {defs[i].owner for i in by_name.get(name, ())} - {None}
            found = self._owners[name] = {w for o in owners for w in words(o or "")}
        return found
