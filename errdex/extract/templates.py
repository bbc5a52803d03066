"""Building message templates from what an extractor parsed, the same way for every
language: literal text around holes, each hole given a readable, unique name.

Extractors parse their language's format syntax into `Piece`s; this module only names
the holes and assembles the `Template`. It knows no language's syntax.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.models import Placeholder, Template

# Words that sit before a hole without naming it ("expected {} but got {}").
_STOPWORDS = frozenset(
    "a an and are as at be but by for from got found has have in into is it not of on or "
    "than that the to was were when where which while with expected received given "
    "provided use using unknown invalid unsupported".split()
)
_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,19})\s*[:=]?\s*[\[(<'\"`]?$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PREFIXES = ("self.", "this.", "&mut ", "&", "*")


@dataclass(frozen=True)
class Hole:
    expression: str  # the source expression that fills the hole ("" if unknown)
    spec: str = ""  # the format spec as written (":?", "!r", "%d")
    name: str | None = None  # a name the format itself gives (`{name}`, `%(name)s`)


Piece = str | Hole


def _strip_expression(expression: str) -> str:
    text = expression.strip()
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text = text[len(prefix) :].strip()
                changed = True
    return text


def _identifier_from(expression: str) -> str | None:
    text = re.sub(r"\(\s*\)", "", _strip_expression(expression))
    text = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_")
    text = re.sub(r"_+", "_", text)
    if not text or text[0].isdigit():
        return None
    return text[:30].rstrip("_") or None


def _name_for(hole: Hole, before: str) -> tuple[str | None, bool]:
    """The hole's name, and whether it came from the label word in the text."""
    if hole.name and not hole.name.isdigit():
        return _identifier_from(hole.name), False
    stripped = _strip_expression(hole.expression)
    if _IDENT.match(stripped):
        return stripped, False
    label = _LABEL.search(before)
    if label and label.group(1).lower() not in _STOPWORDS and not label.group(1).isdigit():
        return label.group(1), True
    return _identifier_from(hole.expression), False


def build_template(message: str, pieces: Sequence[Piece]) -> Template:
    """Join adjacent literals, give every hole a unique name, and build the Template.

    Names come, in order of preference, from the format itself (`{dtype}`), a plain
    identifier expression (`dtype`, `self.dtype`), the word labelling the hole in the
    text ("k {:?}" -> `k`, unless two holes share the label), the expression made into
    an identifier (`k_l.shape()` -> `k_l_shape`), and last `arg<i>`.
    """
    literals: list[str] = [""]
    holes: list[Hole] = []
    for piece in pieces:
        if isinstance(piece, str):
            literals[-1] += piece
        else:
            holes.append(piece)
            literals.append("")
    named = [_name_for(hole, literals[i]) for i, hole in enumerate(holes)]
    labels = [name for name, from_label in named if from_label]
    used: dict[str, int] = {}
    placeholders: list[Placeholder] = []
    for i, hole in enumerate(holes):
        name, from_label = named[i]
        if from_label and labels.count(name) > 1:
            # "rank ({}) ... rank ({})": the label can't tell them apart; the code can.
            name = _identifier_from(hole.expression) or name
        name = name or f"arg{i}"
        count = used.get(name, 0) + 1
        used[name] = count
        unique = name if count == 1 else f"{name}_{count}"
        placeholders.append(Placeholder(name=unique, expression=hole.expression, spec=hole.spec))
    return Template(message=message, literals=tuple(literals), placeholders=tuple(placeholders))
