"""Two kinds of page that must not send the user to their arguments (round-9 reviews):

- an internal invariant, where the code says the case cannot happen (`assert False` at
  the end of a chain over the object's own state, an "internal error" message, a
  comment): no argument causes it, it is a bug to report, and the failure class says
  "Internal invariant violated" too;
- a check on what a loader read from a file or a model (a header's magic, a node of a
  model): the file is malformed, truncated or of an unsupported version or variant.
"""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records

SORTER = '''\
_OUT = -1
_DONE = -2


class Sorter:
    def __init__(self):
        self._info = {}

    def finish(self, key):
        if (info := self._info.get(key)) is None:
            raise ValueError(f"key {key!r} was never added")
        stat = info.count
        if stat != _OUT:
            if stat >= 0:
                raise ValueError(f"key {key!r} is not ready")
            elif stat == _DONE:
                raise ValueError(f"key {key!r} was already finished")
            else:
                assert False, f"key {key!r}: unknown state {stat}"
        info.count = _DONE


def pick(mode):
    if mode == "r":
        return 1
    elif mode == "w":
        return 2
    else:
        assert False, f"pick: bad mode {mode!r}"


class Dummy:
    def join(self):
        assert False, "cannot join a dummy worker"
'''

KERNELS = """\
pub fn total(xs: &[f32], flag: u8) -> Result<f32> {
    let n = xs.len();
    let m = n * 2;
    if m % 2 != 0 {
        bail!("internal error: odd doubled length {m}")
    }
    Ok(xs.iter().sum())
}
"""

LOADER = """\
pub struct Header {
    pub version: u32,
}

pub fn read_header<R: std::io::Read>(reader: &mut R) -> Result<Header> {
    let magic = reader.read_u32::<LittleEndian>()?;
    if magic != 0x46554747 {
        bail!("bad magic {magic:08x}")
    }
    Ok(Header { version: 3 })
}
"""

MODEL = """\
pub fn simple_eval(graph: &Graph) -> Result<Vec<Tensor>> {
    let mut out = vec![];
    for node in graph.node.iter() {
        match node.op_type.as_str() {
            "Relu" => out.push(relu(node)?),
            "AveragePool" => {
                let dilations = get_attr(node, "dilations")?;
                if dilations.iter().any(|&v| v != 1) {
                    bail!("AvgPool with dilation != 1, {dilations:?}")
                }
                out.push(pool(node)?)
            }
            op_type => bail!("unsupported op_type {op_type} for op {node:?}"),
        }
    }
    Ok(out)
}
"""


def _by_message(records: list[Record], start: str) -> Record:
    (found,) = [r for r in records if r.template.message.startswith(start)]
    return found


def _text(record: Record) -> str:
    page = record.explanation
    assert page is not None
    return " ".join([page.summary, *page.solutions, page.trigger])


def test_an_assert_false_at_the_end_of_a_chain_over_own_state_is_a_bug_to_report(
    tmp_path: Path,
) -> None:
    records = indexed_records(tmp_path, {"sorter.py": SORTER}, "t/sorter")
    record = _by_message(records, "key {key!r}: unknown state")
    page = record.explanation
    assert page is not None
    assert "internal invariant" in page.summary
    assert page.solutions[0].startswith("Nothing to change on your side: no argument of your "
                                        "call to `sorter.Sorter.finish` causes this")
    assert "the smallest input that reproduces it" in page.solutions[0]
    # the method changes the object's state: threads sharing it are a cause to rule out
    assert any("several threads" in s for s in page.solutions)
    assert page.trigger.startswith("No argument of your call to `sorter.Sorter.finish`")
    assert "with arguments that make the check" not in page.trigger
    assert not any(s.startswith("Trace the values") for s in page.solutions)
    assert record.failure_class is not None
    assert record.failure_class.title == "Internal invariant violated"


def test_an_assert_false_on_the_caller_s_own_argument_stays_the_caller_s(
    tmp_path: Path,
) -> None:
    records = indexed_records(tmp_path, {"sorter.py": SORTER}, "t/sorter")
    # the chain is over `mode`, the argument: the caller picks the branch
    assert "internal invariant" not in _text(_by_message(records, "pick: bad mode"))
    # alone in a method, `assert False` is how the method refuses every call
    assert "internal invariant" not in _text(_by_message(records, "cannot join a dummy"))


def test_an_internal_error_message_on_the_library_s_own_values_is_a_bug(
    tmp_path: Path,
) -> None:
    records = indexed_records(tmp_path, {"src/lib.rs": KERNELS}, "t/kernels")
    text = _text(_by_message(records, "internal error: odd doubled length"))
    assert "internal invariant of t/kernels" in text
    assert "Change `" not in text


def test_a_check_on_a_file_s_header_says_the_file_is_malformed(tmp_path: Path) -> None:
    records = indexed_records(tmp_path, {"src/gguf_file.rs": LOADER}, "t/loader")
    page = _by_message(records, "bad magic").explanation
    assert page is not None
    assert page.summary.startswith("Calling `read_header` fails a check on the GGUF file it "
                                   "reads")
    assert ("the GGUF file is malformed, truncated, or of a version or variant this code "
            "does not read") in page.solutions[0]
    assert page.trigger.startswith("Calling `read_header` on a GGUF file that fails the check")
    assert not any(s.startswith("Trace the values") for s in page.solutions)


def test_a_check_in_a_model_node_s_arm_names_the_node(tmp_path: Path) -> None:
    files = {"candle-onnx/src/eval.rs": MODEL}
    records = indexed_records(tmp_path, files, "t/project")
    page = _by_message(records, "AvgPool with dilation").explanation
    assert page is not None
    assert "an `AveragePool` node of your ONNX model" in page.summary
    assert page.solutions[0].startswith("`simple_eval` rejects an `AveragePool` node of your "
                                        "ONNX model")
    assert "with an `AveragePool` node that fails the check" in page.trigger
    unsupported = _by_message(records, "unsupported op_type").explanation
    assert unsupported is not None
    assert unsupported.summary.startswith("Your ONNX model has a node of a type `simple_eval` "
                                          "does not support")
    assert ("project's ONNX evaluator does not support at this commit"
            in unsupported.solutions[0])


COVERED = """\
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (x, y) = (a.dtype(), b.dtype());
    match (x, y) {
        (DType::F32, DType::F32) => Ok(a.clone()),
        _ => {
            // This should be covered by the dtype check above.
            bail!("dtype mismatch in add, lhs: {x:?}, rhs: {y:?}")
        }
    }
}
"""


def test_a_comment_that_says_it_cannot_happen_decides_page_and_class_alike(
    tmp_path: Path,
) -> None:
    records = indexed_records(tmp_path, {"src/lib.rs": COVERED}, "t/covered")
    record = _by_message(records, "dtype mismatch in add")
    assert "internal invariant of t/covered" in _text(record)
    # the message's words alone would say "Dtype mismatch": the code's comment wins
    assert record.failure_class is not None
    assert record.failure_class.title == "Internal invariant violated"
