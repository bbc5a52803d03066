"""One Rust file being extracted: its source, its rules, what was found so far, and the
small text helpers every part of the extractor uses (`state.RustFile`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from errdex.extract import SourceLines
from errdex.extract.code import code_text, node_code
from errdex.extract.structure import Gate, SitePath
from errdex.languages.rust import SPEC
from errdex.languages.rust.ruleset import _RuleSet
from errdex.models import Construction, MessageDefinition, Site

_COMMENTS = frozenset({"line_comment", "block_comment"})
_WS_NEWLINE = re.compile(r"\s*\n\s*")

@dataclass(frozen=True)
class _Msg:
    """An argument reduced to what decides its text."""

    kind: str  # "lit" | "macro" | "expr"
    text: str  # the literal's value, the macro's name, or the expression's source
    tree: Node | None = None  # the macro's token tree
    source: str = ""  # the argument as written
# Every comment of the language starts with this byte (`//`, `/*`; `#`).
_MARKER = SPEC.comment[:1].encode()



@dataclass
class _Context:
    function: str | None
    guard: str | None
    owner: str | None  # the type of the enclosing impl
    skip: bool  # inside the token tree of a rule macro


@dataclass
class RustFile:
    path: str
    source: bytes
    rules: _RuleSet
    sites: list[Site] = field(default_factory=list)
    definitions: list[MessageDefinition] = field(default_factory=list)
    constructions: list[Construction] = field(default_factory=list)
    dynamic: int = 0
    excluded: list[tuple[int, int]] = field(default_factory=list)
    test_only: list[str] = field(default_factory=list)  # files of `#[cfg(test)] mod x;`
    gates: list[Gate] = field(default_factory=list)  # items under another `#[cfg(..)]`
    gated_files: list[tuple[str, str]] = field(default_factory=list)  # `#[cfg(..)] mod x;`
    paths: list[SitePath] = field(default_factory=list)  # of sites and constructions
    lines: SourceLines = field(init=False)

    def __post_init__(self) -> None:
        self.lines = SourceLines(self.source)

    # ---- small helpers -------------------------------------------------------------

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def span(self, nodes: Sequence[Node]) -> str:
        if not nodes:
            return ""
        raw = self.source[nodes[0].start_byte : nodes[-1].end_byte]
        return raw.decode("utf-8", errors="replace")

    def span_line(self, nodes: Sequence[Node]) -> str:
        """The source of `nodes` on one line (an argument split over lines reads as one)."""
        return _WS_NEWLINE.sub(" ", self.span(nodes)).strip()

    def is_excluded(self, node: Node) -> bool:
        start = node.start_byte
        return any(lo <= start < hi for lo, hi in self.excluded)

    def oneline(self, node: Node) -> str:
        return _WS_NEWLINE.sub(" ", self.text(node)).strip()

    def code(self, node: Node) -> str:
        """`node` on one line without the comments written inside it: how a condition
        is shown (a `// why` inside a condition is not part of it)."""
        text = node_code(self.source, node, SPEC.comment_nodes, _MARKER)
        return _WS_NEWLINE.sub(" ", text).strip()

    def span_code(self, nodes: Sequence[Node]) -> str:
        """`span_line` without the comments between or inside `nodes`."""
        if not nodes or nodes[0].parent is None:
            return self.span_line(nodes)
        text = code_text(self.source, nodes[0].start_byte, nodes[-1].end_byte,
                         nodes[0].parent, SPEC.comment_nodes, _MARKER)  # fmt: skip
        return _WS_NEWLINE.sub(" ", text).strip()

    def _last_segment(self, node: Node) -> str:
        if node.type == "scoped_identifier":
            name = node.child_by_field_name("name")
            return self.text(name) if name is not None else self.text(node)
        return self.text(node)
