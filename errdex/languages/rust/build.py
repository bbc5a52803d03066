"""What a crate leaves out of its build, as its own files say: `#[cfg(test)] mod x;`
keeps `x`'s file out of every build but the tests (errdex.extract.unbuilt drops it)."""

from __future__ import annotations

import posixpath

_MODULE_FILES = ("lib.rs", "main.rs", "mod.rs")


def module_files(path: str, name: str) -> tuple[str, str]:
    """The two files `mod name;` in `path` may load: `name.rs` or `name/mod.rs`, beside a
    `lib.rs`/`main.rs`/`mod.rs`, or in the folder named after any other module file."""
    folder, file = posixpath.split(path)
    if file not in _MODULE_FILES:
        folder = posixpath.join(folder, file.removesuffix(".rs"))
    return (posixpath.join(folder, f"{name}.rs"), posixpath.join(folder, name, "mod.rs"))
