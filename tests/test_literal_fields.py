"""An op built with a struct literal reaches the code behind `if let Some(m) =
self.mask.as_ref()` only when its literal gives `mask` a value (round-11 candle review:
`mm_prefix_ranges must be a cuda tensor` listed `flash_attn_varlen`, whose literal sets
`mm_prefix_ranges: None`, as a way in). The public functions that leave the field `None`
are no entry points; the one that passes its own argument is."""

from __future__ import annotations

from pathlib import Path

from errdex.contract import record_from_dict, record_to_dict
from errdex.models import Record
from tests.builders import indexed_records

CORE = """\
use crate::{Layout, Result, Shape, Storage, Tensor};

pub trait CustomOp2 {
    fn cpu_fwd(&self, s1: &Storage, l1: &Layout, s2: &Storage, l2: &Layout)
        -> Result<(Storage, Shape)>;
}

impl Tensor {
    pub fn apply_op2<C: CustomOp2>(&self, rhs: &Self, c: C) -> Result<Self> {
        let (storage, shape) = self.storage().apply_op2(self.layout(), rhs, &c)?;
        Ok(from_storage(storage, shape))
    }
}
"""

BLEND = """\
use tcore::{CustomOp2, Layout, Result, Shape, Storage, Tensor};

struct Blend {
    weight: f32,
    mask: Option<Tensor>,
}

impl Blend {
    fn run(&self, l1: &Layout) -> Result<()> {
        if let Some(mask) = self.mask.as_ref() {
            if mask.rank() != 2 {
                tcore::bail!("blend: the mask must be a matrix")
            }
        }
        if l1.dims().is_empty() {
            tcore::bail!("blend: the input must not be a scalar")
        }
        if self.mask.is_some() && l1.dims().len() > 4 {
            tcore::bail!("blend: a masked input has at most 4 dims")
        }
        if self.weight < 0.0 {
            tcore::bail!("blend: the weight must not be negative")
        }
        Ok(())
    }
}

impl CustomOp2 for Blend {
    fn cpu_fwd(&self, s1: &Storage, l1: &Layout, s2: &Storage, l2: &Layout)
        -> Result<(Storage, Shape)> {
        self.run(l1)?;
        Ok((s1.clone(), l2.shape().clone()))
    }
}

/// Blends `a` into `b`.
pub fn blend(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let op = Blend { weight: 0.5, mask: None };
    a.apply_op2(b, op)
}

/// Blends `a` into `b` where `mask` says so.
pub fn blend_masked(a: &Tensor, b: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
    let op = Blend { weight: 0.5, mask: mask.cloned() };
    a.apply_op2(b, op)
}

/// Blends `a` into `b` under a mask it computes itself: whether the literal's field
/// holds a value is not written in it, so this stays a way in, with no argument named.
pub fn blend_scaled(a: &Tensor, b: &Tensor, scale: f32) -> Result<Tensor> {
    let m = a.ones_like()?;
    let op = Blend { weight: scale, mask: Some(m) };
    a.apply_op2(b, op)
}
"""

FILES = {"tcore/src/op.rs": CORE, "tnn/src/blend.rs": BLEND}


def _record(tmp_path: Path, start: str) -> Record:
    (record,) = [r for r in indexed_records(tmp_path, FILES, "t/repo")
                 if r.template.message.startswith(start)]
    return record


def test_a_literal_leaving_the_field_empty_never_reaches_the_check(tmp_path: Path) -> None:
    """`blend` builds `Blend { mask: None, .. }`: `if let Some(mask) = self.mask` never
    holds for it, so the mask's check is reached from `blend_masked` alone, and the page
    leads from it."""
    record = _record(tmp_path, "blend: the mask")
    assert record.facts is not None and record.explanation is not None
    points = record.facts.sites[0].entry_points
    assert [e.function for e in points] == ["tnn::blend::blend_masked",
                                            "tnn::blend::blend_scaled"]
    assert [e.set_from for e in points] == [(("mask", "mask"),), ()]
    assert "blend_masked" in record.explanation.summary
    assert "tnn::blend::blend`" not in record.explanation.summary
    assert ("The field `mask` it reads is set from the `mask` argument of "
            "`tnn::blend::blend_masked`.") in record.explanation.what_it_means
    fix = record.explanation.example_fix
    assert "blend(" not in (fix.before + fix.after).replace("blend_masked(", "")


def test_a_check_outside_the_branch_is_reached_from_both(tmp_path: Path) -> None:
    """The scalar check is on every path: both builders reach it."""
    record = _record(tmp_path, "blend: the input")
    assert record.facts is not None
    assert sorted(e.function for e in record.facts.sites[0].entry_points) == [
        "tnn::blend::blend", "tnn::blend::blend_masked", "tnn::blend::blend_scaled"]


def test_a_test_that_the_field_holds_a_value_needs_it_set_too(tmp_path: Path) -> None:
    """`if self.mask.is_some() && ..`: the same as `if let Some(..)` for the builders."""
    record = _record(tmp_path, "blend: a masked input")
    assert record.facts is not None
    assert "tnn::blend::blend" not in [e.function for e in record.facts.sites[0].entry_points]


def test_the_argument_that_sets_the_field_survives_the_stored_json(tmp_path: Path) -> None:
    """What the page says is a fact of the record: read back from its JSON, the entry
    point still says which of its parameters fills the field."""
    record = _record(tmp_path, "blend: the mask")
    again = record_from_dict(record_to_dict(record))
    assert again.facts is not None
    assert again.facts.sites[0].entry_points[0].set_from == (("mask", "mask"),)


def test_a_field_the_check_reads_from_a_callers_argument_is_that_argument(
    tmp_path: Path,
) -> None:
    """`self.weight < 0.0` on a `Blend` that `blend_scaled` builds from its `scale`: the
    user's argument decides, not "an object whose own state fails the check" (round 13
    candle #24: `Gather { ids_l, .. }` built by `CpuStorage::gather`)."""
    record = _record(tmp_path, "blend: the weight")
    assert record.facts is not None and record.explanation is not None
    scaled = [e for e in record.facts.sites[0].entry_points
              if e.function == "tnn::blend::blend_scaled"]
    assert [e.set_from for e in scaled] == [(("weight", "scale"),)]
    assert ("The field `weight` it reads is set from the `scale` argument of "
            "`tnn::blend::blend_scaled`.") in record.explanation.what_it_means
    assert "own state" not in record.explanation.trigger
