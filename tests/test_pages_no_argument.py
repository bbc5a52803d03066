"""A check no argument of the call decides (round-10 reviews): a method that reads only
its object's state, or a function that takes no argument at all, must not send the user
to "the inputs of your call"; the page says what does decide."""

from __future__ import annotations

from pathlib import Path

from errdex.contract import record_to_dict
from tests.builders import indexed_records

BUFFER = '''\
import os


class Buffer:
    stream = None  # set by the loader that makes it

    def value(self):
        if self.stream.closed:
            raise ValueError("value of a closed stream")
        return self.stream.read()


_current = {"daemon": False}


class Runner:
    def start(self):
        if _current["daemon"]:
            raise AssertionError("a daemon cannot start a runner")


def home():
    root = os.environ.get("BUF_HOME")
    if not root:
        raise RuntimeError("BUF_HOME is not set")
    return root
'''


def _solutions(tmp_path: Path) -> dict[str, list[str]]:
    records = indexed_records(tmp_path, {"buf/__init__.py": BUFFER}, "t/buf")
    return {r.template.message: record_to_dict(r)["explanation"]["solutions"]
            for r in records}


def test_a_check_on_the_objects_state_points_at_how_the_object_was_made(
    tmp_path: Path,
) -> None:
    first = _solutions(tmp_path)["value of a closed stream"][0]
    assert "inputs of your call" not in first, first
    assert first.startswith("Look at how the object you call `buf.Buffer.value` on was built "
                            "and what was called on it before"), first
    assert "`self.stream.closed`" in first


def test_a_function_without_arguments_is_decided_by_its_environment(tmp_path: Path) -> None:
    first = _solutions(tmp_path)["BUF_HOME is not set"][0]
    assert "inputs of your call" not in first, first
    assert first.startswith("`buf.home` takes no argument"), first
    assert "environment" in first


def test_a_method_reading_module_state_is_not_sent_to_its_object(tmp_path: Path) -> None:
    first = _solutions(tmp_path)["a daemon cannot start a runner"][0]
    assert first.startswith("`buf.Runner.start` takes no argument"), first
    assert "module's state" in first



DEVICE = """\
pub enum Device {
    Cpu,
    Cuda(usize),
}

impl Device {
    pub fn as_cuda(&self) -> Result<usize> {
        match self {
            Self::Cuda(d) => Ok(*d),
            Self::Cpu => bail!("expected a cuda device, got cpu"),
        }
    }
}
"""


def test_a_check_on_the_receiver_as_a_whole_points_at_how_it_was_made(tmp_path: Path) -> None:
    # `matches!(self, Self::Cpu)`: the device the user built decides, not "its environment"
    records = indexed_records(tmp_path, {"src/lib.rs": DEVICE}, "t/device")
    (first, *_) = record_to_dict(records[0])["explanation"]["solutions"]
    assert first.startswith("Look at how the object you call `Device::as_cuda` on was built"), first
    assert "environment" not in first
