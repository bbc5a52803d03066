"""What every brace-language extractor keeps about the one file it reads: its source and
call rules, what was found so far (sites, definitions, constructions, condition paths),
the text helpers, and the file's extraction when it is done.

A language's own file state (`errdex/languages/<name>/state.py`) adds what only it
reads; nothing here names a language: its words come from the `LanguageSpec` given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from errdex.extract import Rule, SourceLines
from errdex.extract.code import node_code
from errdex.extract.outline import file_structure
from errdex.extract.queries import Captures
from errdex.extract.structure import SitePath
from errdex.models import Construction, FileExtraction, Language, MessageDefinition, Site

if TYPE_CHECKING:
    from errdex.languages.spec import LanguageSpec


class FileState:
    """Everything about one file being extracted that every language keeps alike."""

    def __init__(self, spec: LanguageSpec, path: str, source: bytes,
                 rules: Sequence[Rule]) -> None:  # fmt: skip
        self.spec = spec
        self.path = path
        self.source = source
        self.rules = {r.name: r for r in rules if r.form == "call"}
        self.lines = SourceLines(source)
        self.sites: list[Site] = []
        self.definitions: list[MessageDefinition] = []
        self.constructions: list[Construction] = []
        self.paths: list[SitePath] = []
        self.dynamic = 0
        self._marker = spec.comment[:1].encode()

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def code(self, node: Node) -> str:
        """`node`'s source without the comments written inside it, its whitespace one
        space."""
        return " ".join(node_code(self.source, node, self.spec.comment_nodes,
                                  self._marker).split())  # fmt: skip

    def extraction(self, language: Language, root: Node,
                   outlined: Sequence[Captures]) -> FileExtraction:  # fmt: skip
        """What was found in the file (parsed to `root`; `outlined`: the outline's
        matches of the extractor's own query), in source order."""
        return FileExtraction(
            sites=tuple(sorted(self.sites, key=lambda s: (s.line, s.end_line, s.kind.value))),
            definitions=tuple(self.definitions),
            constructions=tuple(sorted(self.constructions, key=lambda c: (c.line, c.type_path))),
            dynamic_sites=self.dynamic,
            structure=file_structure(language, self.path, root, self.source, self.paths,
                                     outlined),
        )
