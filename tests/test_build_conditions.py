"""Code only some builds compile (issue 20, defect 8: "true on Metal only, which the page
does not say"): a site under `#[cfg(feature = "metal")]`, on its item or on the `mod`
declaration that brings its file (or its folder) into the crate, says so in its summary."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records

LIB = """\
#[cfg(feature = "metal")]
pub mod metal;
pub mod plain;

pub fn host_only(n: usize) -> Result<usize> {
    #[cfg(not(feature = "cuda"))]
    {
        if n > 8 {
            bail!("more than 8 lanes need the cuda build, got {n}")
        }
    }
    Ok(n)
}
"""

METAL = """\
pub mod kernels;

pub fn launch(width: usize) -> Result<()> {
    if width % 32 != 0 {
        bail!("metal launch width must be a multiple of 32, got {width}")
    }
    Ok(())
}
"""

KERNELS = """\
pub fn pick(name: &str) -> Result<()> {
    if name.is_empty() {
        bail!("metal kernel name is empty")
    }
    Ok(())
}
"""

PLAIN = """\
pub fn check(n: usize) -> Result<()> {
    if n == 0 {
        bail!("plain check wants a positive n")
    }
    Ok(())
}
"""

FILES = {"core/src/lib.rs": LIB, "core/src/metal.rs": METAL,
         "core/src/metal/kernels.rs": KERNELS, "core/src/plain.rs": PLAIN}


def _records(tmp_path: Path) -> dict[str, Record]:
    return {r.template.message.split(" ")[0] + " " + r.template.message.split(" ")[1]: r
            for r in indexed_records(tmp_path, FILES, "t/repo")}


def test_a_gated_module_and_its_submodules_say_which_builds_have_them(tmp_path: Path) -> None:
    records = _records(tmp_path)
    for key in ("metal launch", "metal kernel"):
        record = records[key]
        assert record.facts is not None and record.explanation is not None
        assert record.facts.sites[0].built_when == ('feature = "metal"',)
        assert record.explanation.summary.startswith("On a Metal device, "), key  # its own file


def test_a_gated_block_says_so_and_ungated_code_says_nothing(tmp_path: Path) -> None:
    records = _records(tmp_path)
    lanes = records["more than"]
    assert lanes.explanation is not None
    assert lanes.explanation.summary.startswith("In builds without the `cuda` feature, ")
    plain = records["plain check"]
    assert plain.facts is not None and plain.explanation is not None
    assert plain.facts.sites[0].built_when == ()
    assert "in builds" not in plain.explanation.summary


ALIASED_LIB = """\
#[cfg(feature = "gpu")]
pub mod gpu_backend;
pub mod stub_backend;
mod stub_probe;

#[cfg(feature = "gpu")]
pub use gpu_backend as backend;
#[cfg(not(feature = "gpu"))]
pub use stub_backend as backend;
#[cfg(not(feature = "gpu"))]
mod probe {
    pub use super::stub_probe::*;
}
"""

STUB = """\
pub fn open_device(ordinal: usize) -> Result<()> {
    Err(Error::NotCompiledWithGpu)
}

pub fn stub_ready(n: usize) -> Result<()> {
    if n > 0 {
        bail!("the stub backend has no devices, asked for {n}")
    }
    Ok(())
}
"""

PROBE = """\
pub fn probe_all(n: usize) -> Result<()> {
    if n != 0 {
        bail!("the stub probe finds nothing, asked for {n}")
    }
    Ok(())
}
"""


def test_a_module_used_only_under_a_negated_cfg_says_which_builds(tmp_path: Path) -> None:
    """`pub mod stub_backend;` is declared for every build, but only the `pub use ..`
    under `#[cfg(not(feature = "gpu"))]` names it: its code runs in builds without the
    feature (the round-8 candle review's #1: the dummy CUDA backend)."""
    records = {r.template.message.split(",")[0]: r for r in indexed_records(
        tmp_path, {"core/src/lib.rs": ALIASED_LIB, "core/src/stub_backend.rs": STUB,
                   "core/src/stub_probe.rs": PROBE}, "t/repo")}
    for key in ("the stub backend has no devices", "the stub probe finds nothing"):
        record = records[key]
        assert record.facts is not None and record.explanation is not None
        assert record.facts.sites[0].built_when == ('not(feature = "gpu")',), key
        assert record.explanation.summary.startswith(
            "In builds without the `gpu` feature, "), record.explanation.summary
        assert record.explanation.solutions[0].startswith(
            "Build `core` with its `gpu` feature: this code is compiled only without it")


ARMS = """\
pub fn upload(device: &Device, data: &[u8]) -> Result<Storage> {
    let storage = match device {
        Device::Cpu => Storage::Cpu(data.to_vec()),
        #[cfg(feature = "gpu")]
        Device::Gpu(gpu) => Storage::Gpu(gpu.upload(data)?),
        #[cfg(not(feature = "gpu"))]
        Device::Gpu(_) => {
            return Err(Error::Msg("gpu support not compiled".to_string()));
        }
    };
    Ok(storage)
}
"""


def test_a_match_arm_under_a_negated_cfg_says_to_build_with_the_feature(tmp_path: Path) -> None:
    """`#[cfg(not(feature = "gpu"))] Device::Gpu(_) => Err(..)`: the arm is compiled only
    without the feature; the fix is to build with it (round 11 candle #6, "Metal support
    not compiled", read as a contradictory pattern requirement before)."""
    (record,) = indexed_records(tmp_path, {"core/src/upload.rs": ARMS}, "t/repo")
    assert record.facts is not None and record.explanation is not None
    assert record.facts.sites[0].built_when == ('not(feature = "gpu")',)
    assert record.explanation.summary.startswith("In builds without the `gpu` feature, ")
    assert record.explanation.solutions[0] == (
        "Build `core` with its `gpu` feature: this code is compiled only without it, in place "
        "of the code that handles this case (`cargo build --features gpu`, or `features = "
        "[\"gpu\"]` on the `core` dependency in your Cargo.toml).")
    # The `gpu` arm is not in the builds this arm is in: no "must match `Device::Gpu(gpu)`"
    assert "Device::Gpu(gpu)" not in record.explanation.summary, record.explanation.summary
    assert [step.text for step in record.facts.sites[0].reached] == [
        "`device` is none of `Device::Cpu`"]
