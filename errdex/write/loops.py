"""A check inside a loop over the caller's values (`for name in [typename] + field_names:`):
the requirement holds for each item in turn, said as such."""

from __future__ import annotations

from collections.abc import Sequence, Set

from errdex.analyze import facts
from errdex.analyze.origins import Origin


def items_of(origins: Sequence[Origin], own: Set[str]) -> tuple[Origin, ...]:
    """The loop items the check reads whose collection is built from `own` values alone
    (the function's parameters, a config the caller set), each once (`name.ctx` and
    `name.name` read the one item `name`)."""
    return tuple({o.name: o for o in origins if o.how == "item" and (roots := facts.value_roots(
        [n for n in facts.names_in(o.expression) if not class_like(n)], o.expression, own))
        and roots <= own}.values())  # fmt: skip


def class_like(name: str) -> bool:
    """A class or a constant (`nodes.Name` of `node.find_all(nodes.Name)`,
    `_State.CREATED`), not a value of the caller's."""
    return name.split(".")[-1].lstrip("_")[:1].isupper()


def for_each(text: str | None, items: Sequence[Origin], quantifier: str = "every"
             ) -> str | None:
    """`text` (a requirement; with `quantifier` "some", its violation) quantified over the
    loop items it speaks of."""
    if text is None or not items:
        return text
    joint = "," if ";" in text else ""  # after a list of conditions: it spans them all
    return text + joint + "".join(f" for {quantifier} `{o.name}` in `{o.expression}`"
                                  for o in items)


def names_an_item(origins: Sequence[Origin], expression: str) -> bool:
    """`expression` reads a loop's item: a tip about passing it (annotate it, convert it)
    speaks of a name the caller never holds."""
    read = set(facts.names_in(expression))
    return any(o.how == "item" and o.name in read for o in origins)
