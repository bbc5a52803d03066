"""Pages of code that is a program of its own (the candle round-7 review, "Examples lead
from their own functions"): a check in an example reads the flags the user types
(`args.model_path` of `fn run(args: Args)` is `--model-path`, a local set from
`args.model_path.is_some()` says whether it was given), the page leads from the command
that runs the example, not from its private `run`, and a build script's page says which
`cargo build` fails, with no code that calls its `main`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.analyze.check import check_store
from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

EXAMPLE = """\
use clap::Parser;

#[derive(Parser, Debug)]
#[command(author, version)]
struct Args {
    /// Where the weights are.
    #[arg(long)]
    model_path: Option<String>,
    #[arg(long = "n-steps", default_value_t = 4)]
    steps: usize,
    #[arg(short, long, default_value = "small")]
    which: String,
    input: String,
    #[arg(long)]
    cpu: bool,
    #[arg(long, value_enum, default_value = "v1")]
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
enum Kind {
    #[value(name = "v1")]
    First,
    SecondBig,
}

fn load(tokens: &[u32]) -> anyhow::Result<()> {
    if tokens.is_empty() {
        anyhow::bail!("no tokens to load")
    }
    Ok(())
}

fn run(args: Args) -> anyhow::Result<()> {
    let use_local = args.model_path.is_some();
    if args.steps == 0 {
        anyhow::bail!("the number of steps must be positive")
    }
    if args.which != "small" && args.which != "large" {
        anyhow::bail!("unknown model size {}", args.which)
    }
    if args.input.is_empty() {
        anyhow::bail!("an input file is needed")
    }
    let model_path = args.model_path.map(std::path::PathBuf::from);
    if use_local {
        let shards = std::fs::read_dir(".")?.count();
        if shards == 0 {
            anyhow::bail!("no local shards")
        }
        let weights = model_path.as_ref().unwrap().join("vae").join("w.safetensors");
        if !weights.exists() {
            anyhow::bail!("local weights not found")
        }
    }
    load(&[])?;
    let kind = args.kind;
    if kind == Kind::SecondBig {
        anyhow::bail!("the second kind is not supported on cpu")
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    run(args)
}
"""

BUILD = """\
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "cuda")]
    {
        let ptx = compile_kernels("kernels/*.cu")
            .expect("Failed to compile the kernels");
        ptx.write("out.rs").unwrap();
    }
}
"""

WASM = """\
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Model {}

#[wasm_bindgen]
impl Model {
    pub fn mask(&self, x: f64) -> Result<(), JsError> {
        if !(0.0..=1.0).contains(&x) {
            return Err(JsError::new("x must be in the unit range"));
        }
        Ok(())
    }
}

fn main() {}
"""

LIBRARY = """\
pub fn scale(factor: usize) -> Result<usize> {
    if factor == 0 {
        bail!("the scale factor must not be zero")
    }
    Ok(factor)
}
"""


def _index(root: Path) -> dict[str, dict[str, Any]]:
    files = {"demo/examples/zimg/main.rs": EXAMPLE, "kern/build.rs": BUILD,
             "kern/src/lib.rs": LIBRARY,
             "web/src/bin/m.rs": WASM}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/programs"))
    with SQLiteStore(root.parent / "pages.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {row.message: record_to_dict(store.record(row.id))
                for row in store.records("t/programs")}


def _page(records: dict[str, dict[str, Any]], start: str) -> dict[str, Any]:
    (found,) = [r for message, r in records.items() if message.startswith(start)]
    page: dict[str, Any] = found["explanation"]
    return page


def _code(page: dict[str, Any]) -> str:
    fix, defensive = page["example_fix"], page["defensive"]
    return "\n".join([fix["before"], fix["after"], defensive["validate"],
                      defensive["type_guard"], defensive["try_catch"]])


def test_a_check_on_a_field_of_a_parameter_typed_as_the_parser_is_its_flag(
        tmp_path: Path) -> None:
    records = _index(tmp_path / "repo")
    # `#[arg(long = "n-steps", default_value_t = 4)] steps` read through `fn run(args: Args)`
    page = _page(records, "the number of steps")
    assert page["summary"] == ("`--n-steps` must not be 0 when running `cargo run --example "
                               "zimg --` (`--n-steps` defaults to `4`)")
    assert page["solutions"][0] == ("Run `cargo run --example zimg --` with command-line flags "
                                    "for which `--n-steps` is not 0 (`--n-steps` defaults to "
                                    "`4`).")
    # `#[arg(short, long)]`: its long name; a field with neither is positional
    assert "`--which`" in _page(records, "unknown model size")["summary"]
    assert _page(records, "an input file")["summary"].startswith(
        "the positional argument `<input>` must not be empty when running")


def test_a_local_set_from_a_flag_says_whether_the_flag_was_given(tmp_path: Path) -> None:
    records = _index(tmp_path / "repo")
    page = _page(records, "no local shards")
    assert page["summary"].startswith(
        "Running `cargo run --example zimg --` when `--model-path` is given fails a check in "
        "its `run`: `shards` must not be 0")
    assert "it runs only when `--model-path` is given" in page["solutions"][0]
    assert "use_local" not in page["summary"] + " ".join(page["solutions"])
    # A path built from the flag's value is a file under the flag
    page = _page(records, "local weights not found")
    assert page["summary"] == (
        "the file `vae/w.safetensors` under `--model-path` must exist when running `cargo run "
        "--example zimg --` (checked only when `--model-path` is given)")


def test_an_example_s_own_function_is_reached_by_running_the_example(tmp_path: Path) -> None:
    page = _page(_index(tmp_path / "repo"), "no tokens to load")
    assert page["summary"].startswith("Running `cargo run --example zimg --` fails a check in "
                                      "its `load`")
    assert "Calling `load`" not in page["summary"] + page["trigger"]
    code = _code(page)
    assert "load(" not in code and "run(" not in code  # no call of the example's functions
    assert page["example_fix"]["before"].startswith("cargo run --example zimg -- ...")
    assert not any("Add a test that calls" in p for p in page["prevention"])


def test_a_build_script_fails_the_build_under_its_feature(tmp_path: Path) -> None:
    records = _index(tmp_path / "repo")
    page = _page(records, "Failed to compile the kernels")
    assert page["summary"].startswith(
        "Building with `cargo build -p kern --features cuda` fails: cargo runs the build "
        "script kern/build.rs")
    assert "in builds with" not in page["summary"]  # the command names the feature
    code = _code(page)
    assert "catch_unwind" not in code and "main(" not in code
    assert not any("calls `main`" in p for p in page["prevention"])
    assert any("only with the feature(s) `cuda`" in s for s in page["solutions"])
    # The library's own code is still a call the user makes.
    assert _page(records, "the scale factor")["summary"].startswith(
        "`factor` must not be 0 when calling `scale`")


def test_a_flag_s_enum_value_is_said_as_the_user_types_it(tmp_path: Path) -> None:
    """`let kind = args.kind;` holds `--kind`; `Kind::SecondBig` of a `ValueEnum` is typed
    `second-big`, `#[value(name = "v1")]` names the other."""
    page = _page(_index(tmp_path / "repo"), "the second kind")
    assert page["summary"].startswith("`--kind` must differ from `second-big` when running "
                                      "`cargo run --example zimg --` (`--kind` defaults to "
                                      "`v1`)")


def test_a_web_assembly_binary_is_not_a_program_the_user_runs(tmp_path: Path) -> None:
    page = _page(_index(tmp_path / "repo"), "x must be in the unit range")
    assert "cargo run" not in page["summary"] + " ".join(page["solutions"])


SCRIPT = """\
import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-jobs", "-j", dest="jobs", type=int, default=1)
    parser.add_argument("--max_len", type=int, default=max(8, 4))
    parser.add_argument("source")
    args = parser.parse_args()
    if args.jobs < 1:
        raise ValueError("at least one job is needed")
    if args.max_len > 100:
        raise ValueError("the length is capped")
    if not args.source:
        raise ValueError("a source is needed")
"""


def test_an_argparse_option_is_said_as_declared(tmp_path: Path) -> None:
    """`dest="jobs"` of `--n-jobs`: `args.jobs` is `--n-jobs`; `--max_len` keeps its `_`;
    a bare name is positional."""
    root = tmp_path / "py"
    (root / "tool").mkdir(parents=True)
    (root / "tool" / "cli.py").write_text(SCRIPT)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/script"))
    with SQLiteStore(tmp_path / "py.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        records = {row.message: record_to_dict(store.record(row.id))
                   for row in store.records("t/script")}
    assert _page(records, "at least one job")["summary"].startswith(
        "`--n-jobs` must be at least 1 when running the program (`--n-jobs` defaults to `1`)")
    assert _page(records, "the length is capped")["summary"].startswith(
        "`--max_len` must be at most 100 when running the program")
    assert "the positional argument `<source>`" in _page(records, "a source is")["summary"]


def test_a_programs_shell_lines_cite_no_unknown_names(tmp_path: Path) -> None:
    """`errdex check` reads a program's code sections as the shell commands they are:
    `cargo`, `grep -qF`, `--model-path` and `# fails: ..` are no names of the library."""
    _index(tmp_path / "repo")
    with SQLiteStore(tmp_path / "pages.sqlite") as store:
        report = check_store(store, "t/programs")
    assert report["records"] >= 4 and report["unknown"] == []
