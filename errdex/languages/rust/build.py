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

# Features that name a device backend: code of that backend (named for it, or in its own
# files) runs for values on that device, which a build with the feature merely allows.
_DEVICES = {"metal": "Metal", "cuda": "CUDA", "vulkan": "Vulkan", "wgpu": "WebGPU",
            "rocm": "ROCm", "opencl": "OpenCL"}


def _words(name: str) -> set[str]:
    """The lowercase words of a name (`QMetalStorage`: q, metal, storage; `metal_fwd`)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return {w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w}


def describe_condition(condition: str, function: str | None = None, path: str = "") -> str:
    """A build condition as a page says it: "in builds with the `metal` feature", "in
    builds without the `cuda` feature", "in builds where `cfg(target_os = "macos")`
    holds"; for a device backend's own code (the site's function, its type or its file
    named for the feature: `MetalStorage::affine`, `Sigmoid::metal_fwd`,
    `metal_backend/mod.rs`) "on a Metal device"."""
    found = _FEATURE.match(condition)
    if found is None or bool(found.group("not")) != condition.endswith(")"):
        return f"in builds where `cfg({condition})` holds"
    name = found.group("name")
    parts = (function or "").split("::")
    # A type's method (`MetalStorage::affine`, a `CustomOp`'s `Sigmoid::metal_fwd`) is
    # picked by the value's device; a free or nested fn (`moe_gemm::cuda_fwd`) is called
    # whatever the device, so its name says nothing.
    typed = len(parts) > 1 and all(p[:1].isupper() for p in parts[:-1])
    own = (_words(function or "") if typed else set()) | _words(
        "/".join(path.split("/")[-2:]).removesuffix(".rs"))
    if not found.group("not") and name in _DEVICES and name in own:
        return f"on a {_DEVICES[name]} device"
    word = "without" if found.group("not") else "with"
    return f"in builds {word} the `{name}` feature"


def feature_fix(condition: str, path: str) -> str | None:
    """For code compiled only when a feature is off (`not(feature = "cuda")`: a stub that
    errors where the feature's code would run), how to build with the feature instead,
    naming the crate the code is in (the folder above its `src`)."""
    found = _FEATURE.match(condition)
    if found is None or not found.group("not") or not condition.endswith(")"):
        return None
    name, parts = found.group("name"), path.split("/")
    crate = parts[parts.index("src") - 1] if "src" in parts[1:] else None
    on = f"`{crate}`" if crate else "the crate"
    return (f"Build {on} with its `{name}` feature: this code is compiled only without it, "
            f"in place of the code that handles this case (`cargo build --features {name}`, "
            f"or `features = [\"{name}\"]` on the {on} dependency in your Cargo.toml).")
