"""Custom ops: the functions that hand a value of a type to a method that runs the type's
trait methods (`xs.apply_op1(Sigmoid)` runs `Sigmoid::metal_fwd`), as the call graph's
callers of those methods (errdex.analyze.callgraph), with the values the method's
parameters are: the applying call's receiver and its arguments before the op.

Which methods apply and which trait methods they run is the language's table
(`Outline.applied`); this module knows no language. A value is known by what the call
writes: a type (`Sigmoid`, `&RmsNorm { eps }`, `Elu::new(2.)`), a local the caller builds
from a type that implements the trait (`let op = FlashAttn { .. }; q.apply_op3(k, v, op)`),
or, for a value of unknown type that is not a parameter (a generic op handed in), the one
type of the caller's file that implements the trait (`QMatMul::forward` applies the
`QTensor` its variant holds). Nothing else: a same-named method of another type is not
reached.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from errdex.analyze.calldefs import root, top, words
from errdex.extract.structure import RESULT
from errdex.languages.spec import AppliedOp

if TYPE_CHECKING:
    from errdex.analyze.callgraph import CallGraph

# A value written as its type: `Sigmoid`, `&RmsNorm { eps }`, `candle::Elu::new(2.)`, `Add3(..)`
_TYPE = re.compile(r"(?:[a-z_]\w*::)*([A-Z]\w*)\s*(?:$|\{|\(|::\s*[a-z_]\w*\s*\()")


@dataclass(frozen=True)
class Application:
    """One call that applies an op value: in def `caller`, of the table's `op`."""

    caller: int
    op: AppliedOp
    value: str  # the op as written, its borrow marks dropped
    operands: tuple[str, ...]  # the values the op's methods get, in order ("": unknown)


class Applications:
    """The calls that apply an op value, and the types they apply, once asked."""

    def __init__(self) -> None:
        self.calls: list[Application] = []
        self._by_owner: dict[str, list[Application]] | None = None
        self._homes: dict[str, set[str]] = {}  # type -> the files defining it

    def add(self, caller: int, op: AppliedOp, qualifier: str, arguments: tuple[str, ...],
            through_type: bool, borrow: str | None) -> None:  # fmt: skip
        """A call of one of `op.calls` with these arguments; `through_type`: called on
        the type (`Tensor::apply_op2(&a, &b, op)`), its receiver passed first."""
        if not arguments:
            return

        def plain(value: str) -> str:
            value = re.sub(borrow, "", value).strip() if borrow else value.strip()
            return value if re.fullmatch(r"[A-Za-z_][\w.]*", value) else ""

        if through_type:
            given = [plain(a) for a in arguments[:-1]]
        else:
            receiver = qualifier if qualifier and not qualifier.endswith(RESULT) else ""
            given = [plain(receiver), *(plain(a) for a in arguments[:-1])]
        self.calls.append(Application(caller, op, plain(arguments[-1]) or
                                      re.sub(borrow or "^$", "", arguments[-1]).strip(),
                                      tuple(given[:op.operands])))  # fmt: skip

    def of(self, graph: CallGraph, target: int) -> list[Application]:
        """The calls that apply a value of the target's owner to a method running the
        target (a trait method the owner's file implements the op's trait for)."""
        d = graph.defs[target]
        if not d.in_trait or not d.owner or not self.calls:
            return []
        found = [a for a in self._resolved(graph).get(d.owner, ())
                 if d.name in a.op.runs and a.op.trait in graph.mentions.get(d.path, ())]
        if len(self._homes_of(graph, d.owner)) > 1:  # two crates' `FlashAttn`: its own crate's
            found = [a for a in found if top(graph.defs[a.caller].path) == top(d.path)]
        return found

    def arguments(self, graph: CallGraph, target: int, caller: int) -> tuple[str, ...] | None:
        """What `caller`'s application passes for the target's parameters after its
        receiver, in order, as far as the operands are known; None when it applies none."""
        params = [p for p in graph.defs[target].params or () if p != "self"]
        for a in self.of(graph, target):
            if a.caller != caller:
                continue
            out = []
            for i in range(len(params)):
                k = i // a.op.per_operand
                if k >= len(a.operands) or not a.operands[k]:
                    break
                out.append(a.operands[k])
            return tuple(out) if out else None
        return None

    def _homes_of(self, graph: CallGraph, owner: str) -> set[str]:
        if not self._homes:
            for path, types in graph.types_in.items():
                for t in types:
                    self._homes.setdefault(t, set()).add(path)
        return self._homes.get(owner, set())

    def _resolved(self, graph: CallGraph) -> dict[str, list[Application]]:
        if self._by_owner is not None:
            return self._by_owner
        # type -> (its file, the op traits its file names) for each implementing type
        implementers: dict[str, set[str]] = defaultdict(set)  # trait -> types
        in_file: dict[tuple[str, str], set[str]] = defaultdict(set)  # (path, trait) -> types
        runs = {name for a in self.calls for name in a.op.runs}
        for d in graph.defs:
            if d.in_trait and d.owner and d.name in runs:
                for trait in {a.op.trait for a in self.calls}:
                    if trait in graph.mentions.get(d.path, ()):
                        implementers[trait].add(d.owner)
                        in_file[(d.path, trait)].add(d.owner)
        self._by_owner = defaultdict(list)
        for a in self.calls:
            for owner in self._types_of(graph, a, implementers[a.op.trait], in_file):
                self._by_owner[owner].append(a)
        return self._by_owner

    @staticmethod
    def _types_of(graph: CallGraph, a: Application, implementers: set[str],
                  in_file: dict[tuple[str, str], set[str]]) -> set[str]:  # fmt: skip
        """The types the application's value is of, as far as the code says."""
        written = _TYPE.match(a.value)
        if written:
            return {written.group(1)}
        caller = graph.defs[a.caller]
        name = root(a.value)
        if not name or (name in (caller.params or ()) and name not in ("self", caller.receiver)):
            return set()  # an op handed in by the caller's own caller: any op
        built = {t for t in implementers
                 if any(c == a.caller for c, _ in graph.callers.get(t, ()))
                 or a.caller in graph.by_qualifier.get(t, ())}  # fmt: skip
        if built:
            return built
        local = in_file.get((caller.path, a.op.trait), set())
        said = set(words(a.value)) - {"self", "as", "ref"}
        named = {t for t in local if said & set(words(t))}
        return named or (local if len(local) == 1 else set())
