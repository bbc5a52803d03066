"""Custom ops (issue 20, round-8 candle review defect 2): a public function builds a
private op value and hands it to `xs.apply_op1(op)` / `q.apply_op3(k, v, op)`, which run
the op's `cpu_fwd`/`cuda_fwd`/`metal_fwd`. The page leads from the public function the
user calls, not from the op's trait method, and says the op's layout checks on the
tensors the user passed."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records

CORE_OP = """\
use crate::{Layout, Result, Shape, Storage, Tensor};

pub trait CustomOp1 {
    fn cpu_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)>;
    fn metal_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)>;
}

pub trait CustomOp3 {
    fn cpu_fwd(&self, s1: &Storage, l1: &Layout, s2: &Storage, l2: &Layout,
               s3: &Storage, l3: &Layout) -> Result<(Storage, Shape)>;
}

impl Tensor {
    pub fn apply_op1<C: CustomOp1>(&self, c: C) -> Result<Self> {
        let (storage, shape) = self.storage().apply_op1(self.layout(), &c)?;
        Ok(from_storage(storage, shape))
    }

    pub fn apply_op3_no_bwd<C: CustomOp3>(&self, t2: &Self, t3: &Self, c: &C) -> Result<Self> {
        let (storage, shape) = self.storage().apply_op3(self.layout(), t2, t3, c)?;
        Ok(from_storage(storage, shape))
    }

    /// Runs any op the caller hands in.
    pub fn run_any<C: CustomOp1>(&self, c: C) -> Result<Self> {
        self.apply_op1(c)
    }
}
"""

NN_OPS = """\
use tcore::{CustomOp1, CustomOp3, Layout, Result, Shape, Storage, Tensor};

struct Squash;

impl CustomOp1 for Squash {
    fn cpu_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        Ok((storage.clone(), layout.shape().clone()))
    }

    fn metal_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        if !layout.is_contiguous() {
            tcore::bail!("metal squash needs a contiguous input")
        }
        Ok((storage.clone(), layout.shape().clone()))
    }
}

/// Squashes every value into (0, 1).
pub fn squash(xs: &Tensor) -> Result<Tensor> {
    xs.apply_op1(Squash)
}

pub struct Mix {
    pub scale: f32,
}

impl Mix {
    fn check(&self, l1: &Layout, l2: &Layout) -> Result<()> {
        if l1.dims() != l2.dims() {
            tcore::bail!("mix: the inputs differ in shape")
        }
        Ok(())
    }
}

impl CustomOp3 for Mix {
    fn cpu_fwd(&self, s1: &Storage, l1: &Layout, s2: &Storage, l2: &Layout,
               s3: &Storage, l3: &Layout) -> Result<(Storage, Shape)> {
        self.check(l1, l2)?;
        if !l3.is_contiguous() {
            tcore::bail!("mix: the weights must be contiguous")
        }
        Ok((s1.clone(), l1.shape().clone()))
    }
}

/// Mixes `a` and `b` by `w`.
pub fn mix(a: &Tensor, b: &Tensor, w: &Tensor) -> Result<Tensor> {
    let op = Mix { scale: 1.0 };
    a.apply_op3_no_bwd(b, w, &op)
}

fn same_kind(s1: &Storage, s2: &Storage) -> Result<()> {
    if !matches!((s1, s2), (Storage::F32(s1), Storage::F32(s2))) {
        tcore::bail!("pair: both storages must be f32")
    }
    Ok(())
}

pub fn pair(a: &Storage, b: &Storage) -> Result<()> {
    same_kind(a, b)
}
"""

# Another crate's op, with a `metal_fwd` of its own and a public builder: `squash` never
# applies it, and it never reaches `Squash`'s check.
OTHER = """\
use tcore::{CustomOp1, Layout, Result, Shape, Storage, Tensor};

pub struct Clamp {
    pub max: f32,
}

impl CustomOp1 for Clamp {
    fn cpu_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        Ok((storage.clone(), layout.shape().clone()))
    }

    fn metal_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        if self.max < 0.0 {
            tcore::bail!("metal clamp needs a non-negative max")
        }
        Ok((storage.clone(), layout.shape().clone()))
    }
}

pub fn clamp(xs: &Tensor, max: f32) -> Result<Tensor> {
    xs.apply_op1(Clamp { max })
}

pub struct Floor;

impl CustomOp1 for Floor {
    fn cpu_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        fn inner(storage: &Storage, l: &Layout) -> Result<(Storage, Shape)> {
            if l.dims().is_empty() {
                tcore::bail!("cpu floor needs a tensor of rank 1 or more")
            }
            Ok((storage.clone(), l.shape().clone()))
        }
        inner(storage, layout)
    }

    fn metal_fwd(&self, storage: &Storage, layout: &Layout) -> Result<(Storage, Shape)> {
        Ok((storage.clone(), layout.shape().clone()))
    }
}

pub fn floor(xs: &Tensor) -> Result<Tensor> {
    xs.apply_op1(Floor)
}
"""

FILES = {
    "tcore/src/custom_op.rs": CORE_OP,
    "tnn/src/ops.rs": NN_OPS,
    "tother/src/clamp.rs": OTHER,
}


def _record(tmp_path: Path, start: str) -> Record:
    (record,) = [r for r in indexed_records(tmp_path, FILES, "t/repo")
                 if r.template.message.startswith(start)]
    return record


def _entries(record: Record) -> list[str]:
    assert record.facts is not None
    return [e.function for e in record.facts.sites[0].entry_points]


def test_a_private_ops_backend_check_is_reached_from_the_function_applying_it(
    tmp_path: Path,
) -> None:
    """`squash(xs)` is `xs.apply_op1(Squash)`: its `metal_fwd` check is the user's
    `squash` call's, said on `xs`, not a call of the private `Squash::metal_fwd`."""
    record = _record(tmp_path, "metal squash")
    assert record.explanation is not None
    assert _entries(record) == ["tnn::ops::squash"]
    summary = record.explanation.summary
    assert "`tnn::ops::squash`" in summary
    assert "Squash::metal_fwd" not in summary
    assert "`xs` must be contiguous" in summary
    # `squash` never calls the op's method itself: the op is applied for it.
    assert "directly" not in record.explanation.what_it_means
    assert "`tnn::ops::squash` (" in record.explanation.what_it_means


def test_an_op_bound_to_a_local_is_reached_from_the_function_applying_it(
    tmp_path: Path,
) -> None:
    """`let op = Mix { .. }; a.apply_op3_no_bwd(b, w, &op)`: the op's third layout is
    `w`'s. `Mix::cpu_fwd` itself (a public type's trait method) is not the way in."""
    record = _record(tmp_path, "mix: the weights")
    assert record.explanation is not None
    assert _entries(record) == ["tnn::ops::mix"]
    summary = record.explanation.summary
    assert "`tnn::ops::mix`" in summary and "Mix::cpu_fwd" not in summary
    assert "`w` must be contiguous" in summary


def test_a_helper_of_an_op_leads_from_the_function_applying_it(tmp_path: Path) -> None:
    """`Mix::check`, called from `Mix::cpu_fwd`: two calls up, the user's `mix`."""
    record = _record(tmp_path, "mix: the inputs")
    assert record.explanation is not None
    assert "tnn::ops::mix" in _entries(record)
    assert "Mix::cpu_fwd" not in _entries(record)
    assert "`tnn::ops::mix`" in record.explanation.summary


def test_a_helper_s_check_of_an_op_is_said_on_the_tensors_the_user_passed(
    tmp_path: Path,
) -> None:
    """`mix(a, b, w)` applies `Mix`, whose `cpu_fwd` passes its layouts on to `check(l1,
    l2)`: two hops up, the shapes compared are those of the user's `a` and `b`."""
    record = _record(tmp_path, "mix: the inputs")
    assert record.explanation is not None
    assert record.explanation.summary.startswith(
        "`a` and `b` must have the same shape when calling `tnn::ops::mix`")
    assert "reaches `check` with `a` as `l1`, `b` as `l2`" in record.explanation.what_it_means


def test_a_name_a_pattern_binds_is_not_replaced_by_the_caller_s_argument(
    tmp_path: Path,
) -> None:
    """`matches!((s1, s2), (Storage::F32(s1), ..))` binds `s1` again inside the pattern:
    `pair(a, b)` passes `a` for the first `s1` only, so the page must not write
    `Storage::F32(a)`, a pattern that binds the user's own name."""
    record = _record(tmp_path, "pair: both storages")
    assert record.explanation is not None
    assert "F32(a)" not in record.explanation.what_it_means
    assert "F32(a)" not in record.explanation.summary


def test_an_op_is_reached_only_from_what_applies_a_value_of_its_type(tmp_path: Path) -> None:
    """`Clamp::metal_fwd` is reached from `clamp`, which applies a `Clamp`; not from
    `squash`, which applies another op's `metal_fwd`, nor from `Tensor::run_any`, which
    applies whatever op its caller hands in."""
    record = _record(tmp_path, "metal clamp")
    assert _entries(record) == ["tother::clamp::clamp"]
    squash = _record(tmp_path, "metal squash")
    assert not any("run_any" in e or "clamp" in e for e in _entries(squash))


def test_a_function_nested_in_an_ops_method_leads_from_the_function_applying_it(
    tmp_path: Path,
) -> None:
    """`fn inner` written in `Floor::cpu_fwd` is no method of the impl: `cpu_fwd` calls
    it, and `floor` applies the op."""
    record = _record(tmp_path, "cpu floor needs")
    assert record.explanation is not None
    assert _entries(record) == ["tother::clamp::floor"]
    assert "`tother::clamp::floor`" in record.explanation.summary
    assert "inner" not in record.explanation.summary
