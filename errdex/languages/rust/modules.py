"""Which modules a Rust file keeps to its crate, and what it re-exports from them.

`mod vision;` without `pub` makes `vision.rs` reachable from its parent only: its `pub
struct Qwen3VLVisionModel` is no type a user can name unless some `pub use` hands it on
(`pub use tensor::{Tensor, TensorId};` in candle-core's `lib.rs`). The extractor records
both; errdex.analyze.visibility takes public away from what such a module holds and no
`pub use` of the crate names.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from errdex.languages.rust import build

_PUBLIC_USE = re.compile(r"^pub\s+use\s+(?P<path>.+?);?\s*$", re.S)
_NAME = re.compile(r"[A-Za-z_]\w*")


def privacy(path: str, root: Node, source: bytes) -> tuple[tuple[str, ...], frozenset[str]]:
    """(the files of the modules the file declares without `pub`, each module's two
    possible files; the names its `pub use` declarations make public). A module whose
    whole contents a `pub use x::*;` re-exports is not kept to the crate."""
    hidden: dict[str, tuple[str, str]] = {}
    named: set[str] = set()
    globbed: set[str] = set()
    for node in root.named_children:
        if node.type == "mod_item" and node.child_by_field_name("body") is None:
            name = node.child_by_field_name("name")
            public = any(c.type == "visibility_modifier" and c.text == b"pub"
                         for c in node.children)  # fmt: skip
            if name is not None and not public:
                module = source[name.start_byte : name.end_byte].decode()
                hidden[module] = build.module_files(path, module)
        elif node.type == "use_declaration" and (found := _PUBLIC_USE.match(
                source[node.start_byte : node.end_byte].decode("utf-8", "replace"))):
            used = re.sub(r"^(?:(?:self|crate|super)::)+", "", found.group("path").strip())
            if used.endswith("::*"):
                globbed.add(re.split(r"::", used)[0])
            named |= _exported(used)
    files = tuple(f for module, pair in hidden.items() if module not in globbed for f in pair)
    return files, frozenset(named)


def _exported(used: str) -> set[str]:
    """The names a use tree makes visible: the last segment of each path, or its alias
    (`a::{B, c::D as E}` gives B and E); a module itself too (`pub use cuda_backend as
    cuda`)."""
    out = set()
    for part in re.split(r"[{},]", used):
        part = part.strip()
        if not part or part.endswith("*"):
            continue
        alias = re.search(r"\bas\s+([A-Za-z_]\w*)$", part)
        if alias:
            out.add(alias.group(1))
            part = part[: alias.start()].strip()
        names = _NAME.findall(part.split("::")[-1]) if part else []
        out |= set(names[-1:])
    return out
