"""The custom-op traits of Rust tensor libraries (candle's `CustomOp1/2/3`, `InplaceOp1/2/3`)
as the call graph's `AppliedOp` table, read from `ops.toml` (data): which tensor methods
apply an op value and which of its methods they run."""

from __future__ import annotations

import tomllib
from importlib import resources

from errdex.languages.spec import AppliedOp


def applied_ops() -> tuple[AppliedOp, ...]:
    """Every `[[op]]` of `ops.toml`."""
    data = tomllib.loads(resources.files(__package__).joinpath("ops.toml").read_text())
    return tuple(AppliedOp(trait=op["trait"], calls=frozenset(op["calls"]),
                           runs=frozenset(op["runs"]), operands=int(op["operands"]),
                           per_operand=int(op["per_operand"]))
                 for op in data["op"])  # fmt: skip
