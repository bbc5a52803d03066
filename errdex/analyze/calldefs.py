"""The definitions the call graph is made of, as it sees them, and the name helpers it
reads calls with (errdex.analyze.callgraph)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORD = re.compile(r"^\s*[A-Za-z_]\w*\s*[=:](?![=:])\s*")  # `key=` (`key:` in Rust fields)
NOT_NAMES = frozenset({"mut", "ref", "get", "as", "to", "inner", "self", "deref", "borrow",
                        "lock", "read", "write", "unwrap"})  # words naming no type


@dataclass(frozen=True)
class Def:
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
    local: bool = False  # seen by name only near where it is written (OutlineDef.local)
    lazy: str = ""  # what a call of it gives instead of running it (OutlineDef.lazy)

    @property
    def qualified(self) -> str:
        """A method by its owner (`Tensor::reshape`: called on a value), a free function
        by its module (`candle_nn::ops::sdpa`, `json.loads`): as users write the call."""
        if self.owner is None:
            module = self.shown or self.module
            return f"{module}{self.separator}{self.name}" if module else self.name
        return f"{self.owner}{self.separator}{self.name}"


@lru_cache(maxsize=4096)
def words(name: str) -> tuple[str, ...]:
    """The lowercase words of a name (`QMetalStorage`, `storage_mut()`): q, metal, storage."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower())
                 if w and w not in NOT_NAMES)


def root(argument: str) -> str:
    """The name an argument's value starts with (`spec` of `spec.name`, of `key=spec`)."""
    value = _KEYWORD.sub("", argument, count=1).lstrip("*&")
    found = _IDENT.match(value)
    return found.group(0) if found else ""


def top(path: str) -> str:
    """The first folder of a path, or a top-level file's name without its suffix."""
    return path.split("/", 1)[0].rsplit(".", 1)[0]


def last_part(target: Def) -> str:
    """The last part of a free function's module, as a call through it writes it
    (`_parser` of `re._parser`); "" for a method or an unknown module."""
    if target.owner is not None or not target.module:
        return ""
    return target.module.rsplit(target.separator, 1)[-1]


RECEIVERS = ("self", "cls")
VARIES = "…"  # an argument a caller's calls pass differently (`true` in one, `false` in one)
# `name=value`, as a call passes an argument by name
_NAMED_ARGUMENT = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)\s*(.+)", re.S)
LITERAL = re.compile(r"-?\d[\w.]*|true|false|True|False|None|nil|null")


def passed_on(inner: tuple[str, ...], middle: Def,
              outer: tuple[str, ...]) -> tuple[str, ...] | None:
    """What `middle` passes on (`inner`, written with its own parameters) said with what
    its caller gave those parameters (`outer`, in order after the receiver): only when
    each is one of them, not a field of the caller's own object, or a literal; else None."""
    own = [p for p in middle.params or () if p not in RECEIVERS]
    values = dict(zip(own, outer, strict=False))
    out = []
    for argument in inner:
        plain = argument.strip().lstrip("&")
        if plain in values and not re.search(r"\b(?:self|Self)\b", values[plain]):
            out.append(values[plain])
        elif LITERAL.fullmatch(plain) or plain == VARIES:
            out.append(argument)
        else:
            return None
    return tuple(out)


def passed_to(own: Sequence[str], params: Sequence[str],
              arguments: Sequence[str]) -> dict[str, str] | None:
    """Parameter -> the argument passed for it: positional in order (a receiver passed
    as the first argument, `Type::m(x, ..)`, skipped), then `name=value`; None when an
    argument is spread (`*args`, `..rest`)."""
    args = list(arguments)
    if any(a.startswith(("*", "..")) for a in args):
        return None
    positional = [a for a in args if not _NAMED_ARGUMENT.fullmatch(a)]
    if params[:1] and params[0] in RECEIVERS and len(positional) == len(own) + 1:
        positional = positional[1:]
    out = dict(zip(own, positional, strict=False))
    for arg in args:
        named = _NAMED_ARGUMENT.fullmatch(arg)
        if named and named.group(1) in own:
            out[named.group(1)] = named.group(2).strip()
    return out
