"""A page's Rust snippets are code the user's call site can hold (review round 9, candle
#7, #13, #16, #19, #21): the validate guard reads the call's arguments, not the raising
function's locals (`hq` of `let (_, hq, _) = q.dims3()?` is `q.dim(1)?`), and falls back
to the catch form when a value exists only inside (`tensor_shape`); a check with `?` is a
function returning a `Result`; a lifted `matches!` of what the function took out of an
argument (its storage) is no check of the caller's; a wasm-bindgen `JsError` is caught in
JavaScript; a function that returns `()` gets no `?` or `match`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.analyze.check import unknown_names
from errdex.contract import record_to_dict
from errdex.store import SQLiteStore
from tests.builders import indexed_records

LIB = """\
pub mod attn;
pub mod store;
pub mod web;
pub mod worker;
"""

ATTN = """\
pub fn grouped_attn(q: &Tensor, v: &Tensor) -> Result<Tensor> {
    let (_total_q, hq, _d) = q.dims3()?;
    let (_total_v, hv, _dv) = v.dims3()?;
    if hq % hv != 0 {
        bail!("grouped attention: Hq={hq} not divisible by Hv={hv}")
    }
    Ok(q.clone())
}

pub fn gather_rows(rows: &Tensor) -> Result<usize> {
    fn cuda_fwd(rows: &Tensor) -> Result<usize> {
        let (rows, _) = rows.storage_and_layout();
        match &*rows {
            Storage::Cuda(c) => Ok(c.len()),
            _ => bail!("gather rows must be a cuda tensor"),
        }
    }
    cuda_fwd(rows)
}
"""

STORE = """\
pub struct VarStore {
    data: Mutex<HashMap<String, Tensor>>,
}

impl VarStore {
    pub fn fetch(&self, shape: Shape, path: &str) -> Result<Tensor> {
        let data = self.data.lock().unwrap();
        if let Some(tensor) = data.get(path) {
            let tensor_shape = tensor.shape();
            if &shape != tensor_shape {
                bail!("store: shape mismatch on {path}: {shape:?} <> {tensor_shape:?}")
            }
            return Ok(tensor.clone());
        }
        Ok(Tensor::zeros(shape))
    }
}
"""

WEB = """\
#[wasm_bindgen]
pub struct Model {
    inner: Inner,
}

#[wasm_bindgen]
impl Model {
    #[wasm_bindgen(constructor)]
    pub fn load(weights: Vec<u8>) -> Result<Model, JsError> {
        if weights.is_empty() {
            return Err(JsError::new("web: no weights were given"));
        }
        Ok(Model { inner: Inner::new(weights) })
    }
}
"""

WORKER = """\
pub struct Runner {
    link: Link,
}

impl Runner {
    pub fn handle_input(&mut self, msg: Input, id: HandlerId) {
        let output = match load(&msg) {
            Ok(model) => Ok(model),
            Err(err) => Err(format!("runner: model creation error {err:?}")),
        };
        self.link.respond(id, output);
    }
}
"""

QUANT = """\
pub trait GgmlType {
    fn to_float(xs: &[u8], ys: &mut [f32]);
}

pub struct BlockQ4;

impl GgmlType for BlockQ4 {
    fn to_float(xs: &[u8], ys: &mut [f32]) {
        let k = ys.len();
        debug_assert!(k % 32 == 0, "quant to_float: {k} is not divisible by 32");
        ys[0] = xs[0] as f32;
    }
}

pub struct Norm {
    eps: f64,
}

impl Norm {
    pub fn new(eps: f64) -> Result<Self, String> {
        let norm = Self { eps };
        norm.check()?;
        Ok(norm)
    }

    fn check(&self) -> Result<(), String> {
        if self.eps < 0. {
            return Err(format!("norm eps cannot be negative {}", self.eps));
        }
        Ok(())
    }
}

fn actual_index(t: &Tensor, dim: usize, index: i64) -> Result<usize> {
    let dim = t.dim(dim)?;
    if 0 <= index {
        let index = index as usize;
        if dim <= index {
            bail!("index {index} is too large for tensor dimension {dim}")
        }
        return Ok(index);
    }
    Ok(0)
}

pub fn item_at(t: &Tensor, index: i64) -> Result<usize> {
    actual_index(t, 0, index)
}

pub fn later(xs: &[u8]) -> usize {
    if xs.is_empty() {
        todo!("later: empty inputs are not handled yet")
    }
    xs.len()
}
"""

FILES = {"kit/src/lib.rs": LIB + "pub mod quant;\n", "kit/src/attn.rs": ATTN,
         "kit/src/store.rs": STORE, "kit/src/web.rs": WEB, "kit/src/worker.rs": WORKER,
         "kit/src/quant.rs": QUANT}


def _pages(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {r.template.message.split(":")[0]: record_to_dict(r)["explanation"]
            for r in indexed_records(tmp_path, FILES, "acme/kit")}


def test_a_local_is_written_as_the_argument_it_is_read_from(tmp_path: Path) -> None:
    code = _pages(tmp_path)["grouped attention"]["defensive"]
    assert code["validate"].startswith("if q.dim(1)? % v.dim(1)? != 0 {\n"), code["validate"]
    assert "hq" not in code["validate"].split("\n")[0]
    # `Option`s of `.ok()` have no `%`: a check that can fail returns a Result
    assert "-> Result<bool> {\n    Ok(q.dim(1)? % v.dim(1)? == 0)\n}" in code["type_guard"]


def test_a_value_only_the_function_has_is_not_checked_before_the_call(
    tmp_path: Path,
) -> None:
    code = _pages(tmp_path)["store"]["defensive"]
    assert "tensor_shape {" not in code["validate"], code["validate"]
    assert "catch the error instead" in code["validate"]
    assert "fn is_" in code["type_guard"]  # the error by its text, not a check on locals


def test_a_pattern_on_what_the_function_took_out_is_not_the_callers(tmp_path: Path) -> None:
    code = _pages(tmp_path)["gather rows must be a cuda tensor"]["defensive"]
    assert "matches!" not in code["validate"], code["validate"]
    assert "matches!" not in code["type_guard"]


def test_a_js_error_is_caught_in_javascript(tmp_path: Path) -> None:
    code = _pages(tmp_path)["web"]["defensive"]
    for snippet in (code["try_catch"], code["type_guard"]):  # JsError has no Display
        assert "to_string()" not in snippet and "std::error::Error" not in snippet, snippet
    assert 'e.message.includes("web: no weights were given")' in code["try_catch"]
    assert code["try_catch"].count("try {") == 1


def test_check_reads_the_javascript_a_js_error_is_caught_in(tmp_path: Path) -> None:
    records = indexed_records(tmp_path, FILES, "acme/kit")
    with SQLiteStore(tmp_path / "index.sqlite") as store:
        vocabulary = store.vocabulary("acme/kit")
    web = record_to_dict(next(r for r in records if r.template.message.startswith("web")))
    # `function`, `instanceof`, `message` are JavaScript's, not invented names
    assert unknown_names(web, vocabulary) == []
    invented = {**web["explanation"], "summary": "Declare it `auto` first"}  # C's word
    assert [u.name for u in unknown_names(web, vocabulary, invented)] == ["auto"]


def test_a_panic_is_caught_by_its_text_whether_formatted_or_literal(tmp_path: Path) -> None:
    # `todo!("..")` panics with a `&str`, `panic!("{k}")` with a `String`: the catch reads both
    catch = _pages(tmp_path)["not yet implemented"]["defensive"]["try_catch"]
    assert "p.downcast_ref::<String>().map(String::as_str)" in catch, catch
    assert ".or_else(|| p.downcast_ref::<&str>().copied())" in catch
    assert 'if !text.contains("not yet implemented: later: empty inputs' in catch
    assert "std::panic::resume_unwind(p);" in catch


def test_a_public_trait_methods_debug_assert_on_its_argument_is_the_callers(
    tmp_path: Path,
) -> None:
    page = _pages(tmp_path)["quant to_float"]
    assert "Nothing to change on your side" not in page["solutions"][0], page["solutions"]
    assert "computed itself" not in page["what_it_means"]
    assert "debug builds only" in page["what_it_means"]
    assert "ys" in page["summary"], page["summary"]


def test_a_helpers_check_on_what_the_constructor_stored_is_not_the_objects_history(
    tmp_path: Path,
) -> None:
    # `Norm::new(eps)` builds the object and `check` reads `self.eps`: the argument decides
    first = _pages(tmp_path)["norm eps cannot be negative {}"]["solutions"][0]
    assert "Look at how the object" not in first, first


def test_a_parameter_bound_again_before_the_check_is_not_the_argument(tmp_path: Path) -> None:
    # `let dim = t.dim(dim)?`: the check reads dimension 0's size, not the `0` `item_at` passes
    page = _pages(tmp_path)["index {index} is too large for tensor dimension {dim}"]
    assert "must be less than 0" not in page["summary"], page["summary"]
    assert "`index` must be less than 0" not in page["what_it_means"]


VISION = """\
pub struct Qwen3VLModel {
    depth: usize,
}

pub struct LLaVA {
    depth: usize,
}

impl Qwen3VLModel {
    pub fn forward(&self, videos: Option<u32>, grid: Option<u32>) -> Result<u32> {
        if videos.is_some() && grid.is_none() {
            bail!("videos require a grid")
        }
        Ok(self.depth as u32)
    }
}

impl LLaVA {
    pub fn merge(&self, other: &Self, scale: usize) -> Result<usize> {
        if other.width() != scale * 2 {
            bail!("merge scale mismatch")
        }
        Ok(scale)
    }

    pub fn encode(&self, width: usize) -> Result<usize> {
        if width == 0 {
            bail!("width must not be 0")
        }
        Ok(width * self.depth)
    }
}
"""


def test_a_method_of_a_type_named_with_capitals_is_called_on_a_value(tmp_path: Path) -> None:
    """`Qwen3VLModel::forward(&self, ..)` is called as `qwen3_vl_model.forward(..)`, not as
    a path without its receiver, which does not compile (round 12 candle #15)."""
    pages = {r.template.message: record_to_dict(r)["explanation"]
             for r in indexed_records(tmp_path, {"vis/src/lib.rs": VISION}, "acme/vis")}
    before = pages["videos require a grid"]["example_fix"]["before"]
    assert before.startswith("qwen3_vl_model.forward(videos, grid)?;"), before
    assert pages["width must not be 0"]["example_fix"]["before"].startswith("llava.encode(")
    # A free function's parameter has no `Self`: it is the method's own type.
    guard = pages["merge scale mismatch"]["defensive"]["type_guard"]
    assert "other: &LLaVA" in guard and "Self" not in guard, guard
