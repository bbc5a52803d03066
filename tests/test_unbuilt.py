"""Code no build compiles is not indexed (issue 20, round 6: 5 of 20 candle pages were
such code): a Rust module declared `#[cfg(test)] mod tests;` is test code, however deep
(`src/ops/checks.rs` of `#[cfg(test)] mod checks;` in `src/ops.rs`)."""

from __future__ import annotations

from pathlib import Path

from errdex.extract.unbuilt import NOT_BUILT
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store.sqlite import SQLiteStore
from tests.builders import indexed_records

CHECK = 'pub fn check(n: usize) {{\n    if n == 0 {{\n        panic!("{}");\n    }}\n}}\n'


def _messages(tmp_path: Path, files: dict[str, str]) -> set[str]:
    return {r.template.message for r in indexed_records(tmp_path, files, "acme/kit")}


def test_a_cfg_test_module_file_is_not_library_code(tmp_path: Path) -> None:
    found = _messages(tmp_path, {
        "Cargo.toml": "[package]\nname = \"kit\"\n",
        "src/lib.rs": "pub mod ops;\n#[cfg(test)]\nmod tests;\n",
        "src/ops.rs": CHECK.format("ops: n must not be zero") + "#[cfg(test)]\nmod checks;\n",
        "src/tests.rs": CHECK.format("tests: only a test reaches this"),
        "src/ops/checks.rs": CHECK.format("checks: only a test reaches this"),
    })
    assert found == {"ops: n must not be zero"}


# A vendored C++ source beside the CUDA ones a build script compiles is not built
# (round 7 candle #16: candle-flash-attn-v3/hkernel/flash_api.cpp, 70 records), while a
# crate whose script scans a folder builds every file under it (candle-kernels).
CPP = ('void check_{0}(int n) {{\n    if (n < 0) {{\n'
       '        throw std::runtime_error("{0}: n < 0");\n    }}\n}}\n')
NAMED = '''const KERNEL_FILES: &[&str] = &[
    "api.cu",
    // "fp8.cu",
];
fn main() {
    let files: Vec<_> = KERNEL_FILES.iter().map(|f| PathBuf::from("kern").join(f)).collect();
    cc::Build::new().cuda(true).files(files).compile("kern");
}
'''
SCANNED = '''fn main() {
    let b = KernelBuilder::new().source_dir("src").exclude(&["moe_*.cu"]).build_ptx();
    let c = KernelBuilder::default().source_files(vec!["extra/moe_one.cu"]).build_lib("moe");
}
'''
GLOBBED = 'fn main() {\n    cc::Build::new().files(glob::glob("kernels/*.cu")).compile("x");\n}\n'
COMPUTED = 'fn main() {\n    for e in std::fs::read_dir(dir()).unwrap() { build(e); }\n}\n'


def _index(tmp_path: Path, files: dict[str, str]) -> tuple[set[str], int]:
    root = tmp_path / "repo"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo="acme/kit"))
    with SQLiteStore(tmp_path / "index.sqlite") as store:
        summary = index_snapshot(snapshot, store, workers=1)
        found = {store.record(row.id).template.message for row in store.records("acme/kit")}
    return found, dict(summary.skipped).get(NOT_BUILT, 0)


def test_a_build_script_compiles_only_the_sources_it_names(tmp_path: Path) -> None:
    found, not_built = _index(tmp_path, {
        "Cargo.toml": "[package]\nname = \"kit\"\n",
        "src/lib.rs": "pub fn f() {}\n",
        "build.rs": NAMED,
        "kern/api.cu": CPP.format("api"),
        "kern/api.cpp": CPP.format("torch_binding"),  # vendored, never compiled
        "kern/fp8.cu": CPP.format("fp8"),  # named only in a comment
        "kern/common.cuh": CPP.format("header"),  # a header a built file may include
    })
    assert found == {"api: n < 0", "header: n < 0"}
    assert not_built == 2


def test_a_scanned_folder_a_glob_and_named_files_are_all_built(tmp_path: Path) -> None:
    found, not_built = _index(tmp_path, {
        "Cargo.toml": "[workspace]\nmembers = [\"kernels\", \"ex\"]\n",
        "kernels/Cargo.toml": "[package]\nname = \"kernels\"\n",
        "kernels/build.rs": SCANNED,
        "kernels/src/lib.rs": "pub fn f() {}\n",
        "kernels/src/affine.cu": CPP.format("affine"),
        "kernels/src/deep/moe_gguf.cu": CPP.format("deep"),
        "kernels/extra/moe_one.cu": CPP.format("named"),
        "kernels/extra/moe_two.cu": CPP.format("unnamed"),
        "ex/Cargo.toml": "[package]\nname = \"ex\"\n",
        "ex/build.rs": GLOBBED,
        "ex/kernels/a.cu": CPP.format("globbed"),
        "ex/kernels/b.cpp": CPP.format("not globbed"),
    })
    assert found == {f"{n}: n < 0" for n in ("affine", "deep", "named", "globbed")}
    assert not_built == 2


def test_what_a_script_reads_from_a_computed_folder_or_its_own_build_is_kept(
    tmp_path: Path,
) -> None:
    found, not_built = _index(tmp_path, {
        "a/Cargo.toml": "[package]\nname = \"a\"\n",
        "a/build.rs": COMPUTED,
        "a/k/x.cu": CPP.format("computed"),
        "b/Cargo.toml": "[package]\nname = \"b\"\n",
        "b/build.rs": 'fn main() {\n    cc::Build::new().file("c/one.c").compile("b");\n}\n',
        "b/native/CMakeLists.txt": "add_library(v v.cpp)\n",
        "b/native/v.cpp": CPP.format("cmake"),
        "c/Cargo.toml": "[package]\nname = \"c\"\n",  # no build script: kept
        "c/k.cu": CPP.format("no script"),
    })
    assert found == {f"{n}: n < 0" for n in ("computed", "cmake", "no script")}
    assert not_built == 0
