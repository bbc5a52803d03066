"""What a crate leaves out of its build, as its own files say: `#[cfg(test)] mod x;`
keeps `x`'s file out of every build but the tests (errdex.extract.unbuilt drops it)."""

from __future__ import annotations

import posixpath
import re

_MODULE_FILES = ("lib.rs", "main.rs", "mod.rs")


def module_files(path: str, name: str) -> tuple[str, str]:
    """The two files `mod name;` in `path` may load: `name.rs` or `name/mod.rs`, beside a
    `lib.rs`/`main.rs`/`mod.rs`, or in the folder named after any other module file."""
    folder, file = posixpath.split(path)
    if file not in _MODULE_FILES:
        folder = posixpath.join(folder, file.removesuffix(".rs"))
    return (posixpath.join(folder, f"{name}.rs"), posixpath.join(folder, name, "mod.rs"))


_CFG = re.compile(r"^#\[\s*cfg\s*\((?P<condition>.*)\)\s*\]$", re.S)


def cfg_condition(attribute: str) -> str | None:
    """The build condition of a `#[cfg(..)]` attribute as written, spaces tidied
    (`feature = "metal"`, `not(feature = "cuda")`); None for any other attribute, and for
    `test` (left out of the library, not a condition of it)."""
    found = _CFG.match(attribute.strip())
    if found is None:
        return None
    condition = " ".join(found.group("condition").split())
    return None if condition == "test" else condition


_FEATURE = re.compile(r'^(?P<not>not\()?feature\s*=\s*"(?P<name>[^"]+)"\)?$')


def describe_condition(condition: str) -> str:
    """A build condition as a page says it after "in builds": "with the `metal`
    feature", "without the `cuda` feature", "where `cfg(target_os = "macos")` holds"."""
    found = _FEATURE.match(condition)
    if found is None or bool(found.group("not")) != condition.endswith(")"):
        return f"where `cfg({condition})` holds"
    word = "without" if found.group("not") else "with"
    return f"{word} the `{found.group('name')}` feature"
