"""The Rust a page writes compiles: its try/catch, put in the user's function that holds
the call's arguments, is built with the real rustc beside the library's code."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_pages_loops import _page, _repo

LIB = '''\
pub fn scale(xs: &mut [f32], k: usize) {
    assert!(k > 0, "the scale factor must be positive");
    for x in xs.iter_mut() {
        *x *= k as f32;
    }
}
'''

RUSTC = shutil.which("rustc")


@pytest.mark.skipif(RUSTC is None, reason="rustc is not installed")
def test_a_panic_s_try_catch_compiles_around_a_mutable_borrow(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    records = _repo(tmp_path_factory, {"Cargo.toml": '[package]\nname = "vol"\nversion = "0.1.0"\n',
                                       "src/lib.rs": LIB}, "t/scale")
    catch = _page(records, "the scale factor must be positive")["defensive"]["try_catch"]
    assert "scale(xs, k)" in catch
    source = tmp_path / "user.rs"
    source.write_text(LIB + "\npub fn user(xs: &mut [f32], k: usize) {\n" + catch + ";\n}\n")
    done = subprocess.run([str(RUSTC), "--edition", "2021", "--crate-type", "lib",
                           "--out-dir", str(tmp_path), str(source)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
