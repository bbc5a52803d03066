"""The input a site's check is on when its code reads a file or a model: a GGUF file's
header, a pickle's opcodes, a node of an ONNX model. What fails there is the bytes read
(a file malformed, truncated, or of a version or variant the code does not read), not an
argument of the user's call, and the page must say so.

The inputs and where their readers live are data (`errdex/rules/inputs.toml`); this
module only loads and applies them. It reads nothing but the site and the conditions
that lead to it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from errdex.errors import ConfigError
from errdex.models import PathStep, Site


@dataclass(frozen=True)
class InputKind:
    name: str  # "GGUF file"
    paths: tuple[re.Pattern[str], ...]
    functions: tuple[re.Pattern[str], ...]
    node: str | None  # the field a `match` arm switches on ("op_type")
    part: str  # "node"
    reader: str | None  # "ONNX evaluator"


@dataclass(frozen=True)
class ReadInput:
    """The input a site's check is on: its kind, and for a part picked by a `match` arm
    the arm's values (`("ScatterND",)`); `unhandled` when the site is the arm for the
    parts no other arm handles (an op the reader does not support)."""

    kind: InputKind
    parts: tuple[str, ...] = ()
    unhandled: bool = False


def _kind(entry: dict[str, Any], index: int) -> InputKind:
    try:
        return InputKind(
            name=str(entry["name"]),
            paths=tuple(re.compile(str(p)) for p in entry["paths"]),
            functions=tuple(re.compile(str(p)) for p in entry.get("functions", [])),
            node=str(entry["node"]) if "node" in entry else None,
            part=str(entry.get("part", "part")),
            reader=str(entry["reader"]) if "reader" in entry else None,
        )
    except (KeyError, ValueError, TypeError, re.error) as exc:
        raise ConfigError(f"built-in inputs: input {index + 1} is invalid: {exc}") from None


@cache
def kinds() -> tuple[InputKind, ...]:
    text = resources.files("errdex").joinpath("rules").joinpath("inputs.toml").read_text()
    return tuple(_kind(e, i) for i, e in enumerate(tomllib.loads(text).get("input", [])))


_VALUE = re.compile(r'"([^"\\]+)"')


def read_input(site: Site, reached: Sequence[PathStep], guard: str | None) -> ReadInput | None:
    """The input the site's check is on, when its function reads one."""
    function = site.function or ""
    kind = next((k for k in kinds() if any(p.search(site.path) for p in k.paths)
                 and (not k.functions or any(p.search(function) for p in k.functions))),
                None)  # fmt: skip
    if kind is None:
        return None
    if kind.node is None:
        return ReadInput(kind)
    field = re.compile(rf"\b{re.escape(kind.node)}\b")
    # The arm of one part, said last among the arms before it: "`node.op_type.as_str()`
    # does not match `"Add"`; ..; `node.op_type.as_str()` matches `"ScatterND"`".
    for step in reversed(reached):
        said = re.search(r"`([^`]*)` matches `([^`]*)`\s*$", step.text)
        if step.kind == "arm" and said is not None and field.search(said.group(1)):
            return ReadInput(kind, parts=tuple(_VALUE.findall(said.group(2))))
    if guard and field.search(guard):  # the check is on the part's type itself
        return ReadInput(kind, unhandled=True)
    return ReadInput(kind)
