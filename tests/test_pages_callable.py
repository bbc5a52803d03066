"""A page's code calls only what a user can call (issue 20, round-8 candle review defect 4),
and a device backend's code is said to run on that device (defect 6).

Snippets never call a private type's method, a function nested in another, or a private
`const fn`; a function that returns the error itself (`fn with_dir(self, ..) -> Self` on
the error type) is not called with `?`/`match .. Ok(v)`: the page calls its public caller
when one is known, else none. A JS `try { await f() }` is not offered around a function
whose promise chain ends in `.catch(..)`. Backend storage code says "On a Metal device",
other gated code "In builds with(out) the `x` feature", as the summary's first words."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records

LIB = """\
#[cfg(feature = "metal")]
pub mod backend;
pub mod ops;
pub mod error;

#[cfg(feature = "metal")]
pub fn warm_cache(n: usize) -> Result<usize> {
    if n > 64 {
        bail!("cache warm-up wants at most 64 entries, got {n}")
    }
    Ok(n)
}

#[cfg(feature = "cuda")]
pub fn gather_rows(xs: &Tensor) -> Result<usize> {
    fn cuda_fwd(xs: &Tensor) -> Result<usize> {
        match &*xs.storage() {
            Storage::Cuda(c) => Ok(c.len()),
            _ => bail!("gather input must be a cuda tensor"),
        }
    }
    cuda_fwd(xs)
}

#[cfg(feature = "mkl")]
pub fn mkl_gemm(k: usize) -> Result<usize> {
    if k == 0 {
        bail!("gemm inner size must not be zero")
    }
    Ok(k)
}
"""

BACKEND = """\
pub struct MetalStorage {
    count: usize,
}

impl MetalStorage {
    pub fn scale(&self, dtype: DType) -> Result<usize> {
        if !matches!(dtype, DType::F32 | DType::F16) {
            bail!("metal scale {dtype:?} not implemented")
        }
        Ok(self.count)
    }
}
"""

OPS = """\
struct Squash;

impl CustomOp1 for Squash {
    #[cfg(feature = "metal")]
    fn metal_fwd(&self, layout: &Layout) -> Result<usize> {
        if !layout.is_contiguous() {
            bail!("strided squash is not implemented")
        }
        Ok(0)
    }
}

pub fn squash(xs: &Tensor) -> Result<Tensor> {
    xs.apply_op1(Squash)
}

pub fn rotate(xs: &[f32]) -> Result<usize> {
    fn step(src: &[f32]) -> Result<usize> {
        if src.len() % 2 != 0 {
            bail!("rotate wants an even length")
        }
        Ok(src.len())
    }
    step(xs)
}

const fn slot_of(id: u32) -> usize {
    if id > 9 {
        panic!("slot id out of the table")
    }
    id as usize
}
"""

ERROR = """\
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("in directory {dir:?}: {inner}")]
    InDir { inner: Box<Error>, dir: std::path::PathBuf },
    #[error("{0}")]
    Msg(String),
}

impl Error {
    pub fn with_dir<P: AsRef<std::path::Path>>(self, p: P) -> Self {
        Self::InDir { inner: Box::new(self), dir: p.as_ref().to_path_buf() }
    }
}
"""

FILES = {"core/src/lib.rs": LIB, "core/src/backend.rs": BACKEND, "core/src/ops.rs": OPS,
         "core/src/error.rs": ERROR}

UTILS = """\
export async function fetchTitle(name) {
  return fetch(`https://example.org/t/${name}`)
    .then((r) => r.json())
    .then((data) => {
      if (data.title === undefined) {
        throw new Error("No title in the reply");
      }
      return data.title;
    })
    .catch((error) => console.error("Error:", error));
}

export async function fetchBody(name) {
  const r = await fetch(`https://example.org/b/${name}`);
  if (!r.ok) {
    throw new Error("No body in the reply");
  }
  return r.text();
}
"""


def _by_message(tmp_path: Path, files: dict[str, str]) -> dict[str, Record]:
    return {r.template.message: r for r in indexed_records(tmp_path, files, "t/repo")}


def _code(record: Record) -> list[str]:
    """The code lines (not comments) of the page's example fix and defensive snippets."""
    e = record.explanation
    assert e is not None and e.defensive is not None
    texts = [e.example_fix.before, e.example_fix.after, e.defensive.validate,
             e.defensive.try_catch] if e.example_fix else []
    return [line for text in texts for line in text.splitlines()
            if line.strip() and not line.strip().startswith("//")]


def test_no_snippet_calls_a_private_type_a_nested_fn_or_a_const_fn(tmp_path: Path) -> None:
    records = _by_message(tmp_path, FILES)
    record = records["slot id out of the table"]
    code = _code(record)
    assert not any("slot_of(" in line for line in code), code
    assert record.explanation is not None and record.explanation.example_fix is not None
    assert "internal (not public)" in record.explanation.example_fix.before
    # A private op's method is run by the public function applying the op: that is the call.
    code = _code(records["strided squash is not implemented"])
    assert not any("metal_fwd" in line for line in code), code
    assert any("squash(xs)?;" in line for line in code), code


def test_a_nested_fn_is_called_through_its_public_caller(tmp_path: Path) -> None:
    code = _code(_by_message(tmp_path, FILES)["rotate wants an even length"])
    assert any("rotate(xs)?;" in line for line in code), code
    assert not any("step(" in line for line in code), code


def test_a_public_function_is_still_called(tmp_path: Path) -> None:
    records = _by_message(tmp_path, FILES)
    code = _code(records["cache warm-up wants at most 64 entries, got {n}"])
    assert any("warm_cache(" in line for line in code), code


def test_an_error_constructor_is_not_called_as_a_result(tmp_path: Path) -> None:
    record = _by_message(tmp_path, FILES)["in directory {dir:?}: {inner}"]
    code = _code(record)
    assert not any("with_dir(" in line for line in code), code
    assert record.explanation is not None and record.explanation.example_fix is not None
    assert "returns this error itself (not a Result)" in record.explanation.example_fix.before


def test_a_promise_chain_ending_in_catch_gets_no_try_catch(tmp_path: Path) -> None:
    records = _by_message(tmp_path, {"web/utils.js": UTILS})
    settled = records["No title in the reply"].explanation
    assert settled is not None and settled.defensive is not None
    assert "try {" not in settled.defensive.try_catch
    assert "ends its promise chain with .catch(..) (web/utils.js:10)" in \
        settled.defensive.try_catch
    thrown = records["No body in the reply"].explanation
    assert thrown is not None and thrown.defensive is not None
    assert "try {\n  await fetchBody(name);" in thrown.defensive.try_catch


def test_backend_storage_code_says_on_which_device(tmp_path: Path) -> None:
    records = _by_message(tmp_path, FILES)
    summary = records["metal scale {dtype:?} not implemented"].explanation
    assert summary is not None
    assert summary.summary.startswith("On a Metal device, `dtype` must match"), summary.summary
    assert "in builds" not in summary.summary
    squash = records["strided squash is not implemented"].explanation
    assert squash is not None and squash.summary.startswith("On a Metal device, ")


def test_other_gated_code_says_which_builds(tmp_path: Path) -> None:
    records = _by_message(tmp_path, FILES)
    warm = records["cache warm-up wants at most 64 entries, got {n}"].explanation
    assert warm is not None
    assert warm.summary.startswith("In builds with the `metal` feature, "), warm.summary
    assert not warm.summary.endswith(")"), warm.summary  # a condition, not a suffix
    gemm = records["gemm inner size must not be zero"].explanation
    assert gemm is not None  # mkl names no device
    assert gemm.summary.startswith("In builds with the `mkl` feature, "), gemm.summary
    # a nested fn named for the device runs for a tensor on any device: it is the build
    nested = records["gather input must be a cuda tensor"].explanation
    assert nested is not None
    assert nested.summary.startswith("In builds with the `cuda` feature, "), nested.summary
    plain = records["rotate wants an even length"].explanation
    assert plain is not None and "builds" not in plain.summary and "device" not in plain.summary


BINDINGS = """\
#[pyclass(name = "Tensor")]
struct PyTensor(Tensor);

#[pymethods]
impl PyTensor {
    /// Subtract two tensors.
    fn __sub__(&self, rhs: &PyTensor) -> PyResult<Self> {
        if rhs.0.rank() != self.0.rank() {
            return Err(PyValueError::new_err("sub wants tensors of one rank"));
        }
        Ok(self.clone())
    }
}

pub trait Quantize {
    fn from_float_imatrix(xs: &[f32]) {
        panic!("from_float_imatrix is unimplemented for this type")
    }
}
"""


def test_what_users_reach_without_a_pub_of_its_own_is_not_called_internal(
    tmp_path: Path,
) -> None:
    """A `#[pymethods]` method is Python's to call (`a - b`), and a public trait's method
    has no `pub` of its own: neither page says no call of yours names it (the round-9
    candle review found 45 such pages)."""
    records = _by_message(tmp_path, {"py/src/lib.rs": BINDINGS})
    for message in ("sub wants tensors of one rank",
                    "from_float_imatrix is unimplemented for this type"):
        fix = records[message].explanation
        assert fix is not None and fix.example_fix is not None
        assert "internal (not public)" not in fix.example_fix.before, message


PARSE_PY = """\
__all__ = ["urlsplit"]


def urlsplit(url):
    return url


def splituser(host):
    if host is None:
        raise ValueError("splituser needs a host")
    return host
"""


def test_a_python_function_outside_all_is_still_called(tmp_path: Path) -> None:
    """`urllib.parse.splituser` is not in `__all__`, yet users call it: the snippet does."""
    record = _by_message(tmp_path, {"web/parse.py": PARSE_PY})["splituser needs a host"]
    assert any("splituser(" in line for line in _code(record)), _code(record)
