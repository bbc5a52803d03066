"""Which C, C++ and CUDA sources a Cargo crate's build script compiles, read from the
script's text (never run): a crate (a folder with `Cargo.toml`) that has no C/C++ build
system of its own compiles only the sources its `build.rs` names (a string literal with
the file's name or relative path), matches by a glob it writes (`"kernels/*.cu"`), or
finds under a folder it reads (`read_dir("src")`, `.source_dir("src")`,
`glob("src/**/*.cu")`). Where the script reads folders in a way the text does not say (a
folder or pattern computed at build time, a formatted file name) every file is kept.
Headers are never dropped: a built file may include them.

candle-flash-attn-v3's `hkernel/flash_api.cpp` (`#include <torch/python.h>`) is vendored
beside the `flash_api.cu` its `KERNEL_FILES` lists; candle-kernels compiles the whole
`src` folder it scans as well as the files it names (both must come out right)."""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from tree_sitter import Language as Grammar
from tree_sitter import Node, Parser

# What the build compiles (headers are included, not compiled: they stay).
COMPILED = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu")
# A file of one of these, at or above a source inside its crate, builds it instead.
OTHER_BUILDS = ("CMakeLists.txt", "setup.py", "Makefile", "makefile", "GNUmakefile",
                "meson.build", "binding.gyp")
# Calls that read a folder or a pattern: the crate builds what lies under it.
_READERS = frozenset({"read_dir", "source_dir", "source_glob", "glob", "glob_with",
                      "WalkDir::new", "walkdir", "walk_dir", "files_in"})
_CARGO_PREFIX = re.compile(r"^cargo::?rerun-if-changed=")
_MAX_SCRIPT = 512 * 1024


def unbuilt_sources(root: str, paths: Iterable[str]) -> frozenset[str]:
    """The paths (relative to `root`) of compiled sources no crate's build script builds."""
    by_crate: dict[str, list[str]] = {}
    base = Path(root)
    for path in paths:
        if not path.endswith(COMPILED):
            continue
        crate = _crate_of(base, path)
        if crate is not None:
            by_crate.setdefault(crate, []).append(path)
    dropped: set[str] = set()
    for crate, sources in by_crate.items():
        built = _built_by(base, crate)
        if built is None:
            continue
        dropped.update(p for p in sources if not _own_build(base, crate, p)
                       and not built.builds(_relative(crate, p)))  # fmt: skip
    return frozenset(dropped)


def _relative(crate: str, path: str) -> str:
    return path[len(crate) + 1:] if crate else path


def _crate_of(base: Path, path: str) -> str | None:
    """The nearest folder at or above `path` with a Cargo.toml ("" the root), if any."""
    folder = posixpath.dirname(path)
    while True:
        if (base / folder / "Cargo.toml").is_file():
            return folder
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _own_build(base: Path, crate: str, path: str) -> bool:
    """A CMake, setuptools, make, meson or gyp build at or above the file in its crate."""
    folder = posixpath.dirname(path)
    while True:
        if any((base / folder / name).is_file() for name in OTHER_BUILDS):
            return True
        if folder == crate or not folder:
            return False
        folder = posixpath.dirname(folder)


class Built:
    """What one build script says it compiles, relative to its crate."""

    def __init__(self, names: Sequence[str], patterns: Sequence[re.Pattern[str]],
                 folders: Sequence[str]) -> None:
        self.names = names
        self.patterns = patterns
        self.folders = folders

    def builds(self, relative: str) -> bool:
        name = posixpath.basename(relative)
        return (any(n in (relative, name) or relative.endswith("/" + n) for n in self.names)
                or any(p.fullmatch(relative) for p in self.patterns)
                or any(not f or relative.startswith(f + "/") for f in self.folders))


def _built_by(base: Path, crate: str) -> Built | None:
    """What the crate's build script builds; None when every file must be kept (no
    script, or one that reads folders it computes)."""
    script = _script_of(base / crate)
    if script is None or script.is_symlink() or not script.is_file() \
            or script.stat().st_size > _MAX_SCRIPT:  # fmt: skip
        return None
    return read_script(script.read_bytes())


def _script_of(crate: Path) -> Path | None:
    try:
        manifest = tomllib.loads((crate / "Cargo.toml").read_text(errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    package = manifest.get("package")
    build = package.get("build", True) if isinstance(package, dict) else True
    if build is False:
        return None  # no build script: what loads the sources is not known, keep them
    return crate / (build if isinstance(build, str) else "build.rs")


def read_script(source: bytes) -> Built | None:
    """The names, globs and folders a build script's text gives; None if it reads a
    folder or pattern it computes, or formats a source's file name."""
    from errdex.languages.rust import _grammar

    parser = Parser(Grammar(_grammar()))
    tree = parser.parse(source)
    names: list[str] = []
    patterns: list[re.Pattern[str]] = []
    folders: list[str] = []
    for node in _walk(tree.root_node):
        if node.type == "string_literal":
            text = _CARGO_PREFIX.sub("", _content(node)).removeprefix("./")
            if "{" in text:
                if text.endswith(COMPILED):
                    return None  # `format!("{}.cu", name)`: a name the text does not hold
                continue
            if any(c in text for c in "*?["):
                patterns.append(_glob(text))
            elif text:
                names.append(text)
        elif node.type == "call_expression" and _reader(node):
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children \
                else None  # fmt: skip
            while first is not None and first.type == "reference_expression":
                first = first.child_by_field_name("value")
            if first is None or first.type != "string_literal":
                return None
            text = _content(first).removeprefix("./").rstrip("/")
            if not any(c in text for c in "*?["):
                folders.append("" if text == "." else text)
    return Built(names, patterns, folders)


def _reader(call: Node) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "field_expression":
        function = function.child_by_field_name("field")
    text = (function.text or b"").decode(errors="replace") if function is not None else ""
    return text in _READERS or text.rsplit("::", 1)[-1] in _READERS or text in (
        "fs::read_dir", "std::fs::read_dir")


def _content(literal: Node) -> str:
    return "".join((c.text or b"").decode(errors="replace") for c in literal.named_children
                   if c.type == "string_content")


def _walk(node: Node) -> Iterable[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _glob(pattern: str) -> re.Pattern[str]:
    """`src/**/*.cu` as a regex over a crate-relative path: `**` any folders, `*` and `?`
    within one name."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))
