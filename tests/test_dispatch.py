"""Backend dispatch (issue 20, defect 6): a public method that hands the work to a
same-named method of another type (`Tensor::fill` -> `Storage::fill` -> a backend's
`MetalStorage::fill`, picked by a `match` on the storage's variant) is how users reach
the backend's checks; and a value named after its type (`storage.fill(..)`) is a call
of that type's method. The page names `Tensor::fill`, not the backend's trait method."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records

BACKEND = """\
pub trait BackendStorage {
    fn fill(&mut self, v: u32) -> Result<()>;
}
"""

CPU = """\
use crate::backend::BackendStorage;

pub struct CpuStorage {
    data: Vec<u32>,
}

impl BackendStorage for CpuStorage {
    fn fill(&mut self, v: u32) -> Result<()> {
        for x in self.data.iter_mut() {
            *x = v;
        }
        Ok(())
    }
}
"""

METAL = """\
use crate::backend::BackendStorage;

pub struct MetalStorage {
    dtype: DType,
}

impl BackendStorage for MetalStorage {
    fn fill(&mut self, v: u32) -> Result<()> {
        match self.dtype {
            DType::U32 => Ok(()),
            dtype => bail!("metal fill does not support {dtype:?}"),
        }
    }
}
"""

STORAGE = """\
use crate::cpu::CpuStorage;
use crate::metal::MetalStorage;

pub enum Storage {
    Cpu(CpuStorage),
    Metal(MetalStorage),
}

impl Storage {
    pub(crate) fn fill(&mut self, v: u32) -> Result<()> {
        match self {
            Storage::Cpu(storage) => storage.fill(v),
            Storage::Metal(storage) => storage.fill(v),
        }
    }
}
"""

TENSOR = """\
use crate::storage::Storage;

pub struct Tensor {
    storage: Arc<RwLock<Storage>>,
}

impl Tensor {
    fn storage_mut(&self) -> RwLockWriteGuard<'_, Storage> {
        self.storage.write().unwrap()
    }

    pub fn fill(&self, v: u32) -> Result<()> {
        self.storage_mut().fill(v)
    }

    pub fn ones(n: usize) -> Result<Self> {
        let mut storage = alloc(n)?;
        storage.fill(1)?;
        Ok(from_storage(storage))
    }
}
"""

GAUGE = """\
pub struct Gauge {
    level: u32,
}

impl Gauge {
    pub fn fill(&mut self, v: u32) -> Result<()> {
        if v > 100 {
            bail!("a gauge fills to 100 at most, not {v}")
        }
        self.level = v;
        Ok(())
    }
}
"""

FILES = {
    "core/src/backend.rs": BACKEND,
    "core/src/cpu.rs": CPU,
    "core/src/metal.rs": METAL,
    "core/src/storage.rs": STORAGE,
    "core/src/tensor.rs": TENSOR,
    "core/src/gauge.rs": GAUGE,
}


def _record(tmp_path: Path, start: str) -> Record:
    (record,) = [r for r in indexed_records(tmp_path, FILES, "t/repo")
                 if r.template.message.startswith(start)]
    return record


def test_a_backend_method_is_reached_from_the_public_method_that_dispatches_to_it(
    tmp_path: Path,
) -> None:
    record = _record(tmp_path, "metal fill")
    assert record.facts is not None and record.explanation is not None
    entries = [e.function for e in record.facts.sites[0].entry_points]
    # `Storage::fill` matches on the variant and calls the backend's `fill`; the tensor's
    # `fill` hands its work to the storage's, and `ones` calls it on a `storage`.
    assert "Tensor::fill" in entries
    assert "Tensor::ones" in entries
    assert "`Tensor::fill`" in record.explanation.summary or \
        "`Tensor::ones`" in record.explanation.summary
    assert "MetalStorage::fill" not in record.explanation.summary


def test_a_same_named_method_of_a_type_the_caller_never_names_is_not_reached(
    tmp_path: Path,
) -> None:
    """`Tensor::fill` delegates to something's `fill`, but tensor.rs never names a
    `Gauge`: the gauge's check is reached only by calling `Gauge::fill`."""
    record = _record(tmp_path, "a gauge fills")
    assert record.facts is not None
    entries = [e.function for e in record.facts.sites[0].entry_points]
    assert not any(e.startswith("Tensor::") for e in entries)


RUNNERS = '''\
class Runner:
    def __init__(self, loop=None):
        if loop is False:
            raise TypeError("a runner needs a loop or None")
        self._closed = False

    def close(self):
        if self._closed:
            raise RuntimeError("runner is already closed")
        self._closed = True


class Base:
    def __init__(self, size):
        if size < 0:
            raise ValueError("size must not be negative")
        self.size = size


class Child(Base):
    def __init__(self, size):
        _safe_super(Child, self).__init__(size)
'''

CASES = '''\
from pkg.runners import Runner


class Case:
    def __init__(self):
        self._runner = Runner()

    def run(self):
        self._runner.close()
'''


def test_a_value_named_after_its_class_is_a_call_of_that_class(tmp_path: Path) -> None:
    """`self._runner.close()` in another module, which imports `Runner`: the case's
    `run` is a way into `Runner.close`."""
    files = {"pkg/__init__.py": "", "pkg/runners.py": RUNNERS, "pkg/cases.py": CASES}
    (record,) = [r for r in indexed_records(tmp_path, files, "t/repo")
                 if r.template.message.startswith("runner is already")]
    assert record.facts is not None
    assert "Case.run" in [e.function for e in record.facts.sites[0].entry_points]


def test_a_parent_call_is_no_call_of_every_method_of_that_name(tmp_path: Path) -> None:
    """`_safe_super(Child, self).__init__(size)` runs `Base.__init__`, not `Runner`'s:
    a method handing its work to a same-named method of a computed value is followed
    only to a type that value is named after."""
    files = {"pkg/__init__.py": "", "pkg/runners.py": RUNNERS}
    records = indexed_records(tmp_path, files, "t/repo")
    (built,) = [r for r in records if r.template.message.startswith("a runner needs")]
    assert built.facts is not None
    assert not any("Child" in e.function for e in built.facts.sites[0].entry_points)


TREES = '''\
class Tree:
    def write(self, out):
        if out is None:
            raise ValueError("a tree needs somewhere to write")


class Other:
    def write(self, out):
        return out


def tostring(element):
    return Tree(element).write(None)
'''


def test_a_method_of_an_object_built_on_the_spot_is_its_class_method(tmp_path: Path) -> None:
    """`Tree(element).write(..)` calls `Tree.write`: `tostring` is the way in."""
    files = {"pkg/__init__.py": "", "pkg/trees.py": TREES, "pkg/others.py": "def write(x): pass\n"}
    (record,) = [r for r in indexed_records(tmp_path, files, "t/repo")
                 if r.template.message.startswith("a tree needs")]
    assert record.facts is not None
    assert "pkg.trees.tostring" in [e.function for e in record.facts.sites[0].entry_points]


QUANTIZED = """\
use crate::qcuda::QCudaStorage;
use crate::qmetal::QMetalStorage;

pub struct QTensor {
    storage: QStorage,
}

impl QTensor {
    pub fn cuda_fwd(&self, storage: &QCudaStorage) -> Result<()> {
        storage.fwd(self)
    }

    pub fn metal_fwd(&self, storage: &QMetalStorage) -> Result<()> {
        storage.fwd(self)
    }
}
"""

QCUDA = """\
pub struct QCudaStorage {
    dtype: GgmlDType,
}

impl QCudaStorage {
    pub fn fwd(&self, t: &QTensor) -> Result<()> {
        if self.dtype == GgmlDType::Q8_1 {
            bail!("unsupported dtype for quantized matmul {:?}", self.dtype)
        }
        Ok(())
    }
}
"""

QMETAL = """\
pub struct QMetalStorage {
    dtype: GgmlDType,
}

impl QMetalStorage {
    pub fn fwd(&self, t: &QTensor) -> Result<()> {
        Ok(())
    }
}
"""


def test_a_caller_named_for_another_backend_is_not_a_way_into_this_one(
    tmp_path: Path,
) -> None:
    """`QTensor::metal_fwd` calls a `storage.fwd(..)` too, but it is the Metal one's: the
    round-8 review found `QTensor::metal_fwd` listed as a way into CUDA code."""
    files = {"core/src/quantized.rs": QUANTIZED, "core/src/qcuda.rs": QCUDA,
             "core/src/qmetal.rs": QMETAL}
    (record,) = [r for r in indexed_records(tmp_path, files, "t/repo")
                 if r.template.message.startswith("unsupported dtype")]
    assert record.facts is not None
    entries = [e.function for e in record.facts.sites[0].entry_points]
    assert "QTensor::cuda_fwd" in entries
    assert "QTensor::metal_fwd" not in entries
