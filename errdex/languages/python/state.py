"""One Python file being extracted: its source, its call rules, what was found so far,
and the text helpers every part of the extractor uses (`state.PythonFile`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

from errdex.extract import Rule, SourceLines
from errdex.extract.code import node_code
from errdex.extract.structure import SitePath
from errdex.languages.python import SPEC
from errdex.languages.python.strings import module_name
from errdex.models import (
    Construction,
    Helper,
    MessageDefinition,
    Site,
)

# Every comment of the language starts with this byte (`//`, `/*`; `#`).
_MARKER = SPEC.comment[:1].encode()



@dataclass
class _Args:
    positional: list[Node]
    keywords: dict[str, Node]
    has_splat: bool


class PythonFile:
    """Everything about one file being extracted."""

    def __init__(self, path: str, source: bytes, rules: Sequence[Rule]) -> None:
        self.path = path
        self.source = source
        # A helper found in another file (errdex.extract.helpers) is no rule here: its
        # calls are constructions of its definition, whose text they compose with.
        self.rules = [r for r in rules if r.form in ("call", "method") and not r.details]
        self.repository_helpers = frozenset(r.name for r in rules if r.details)
        self.found_helpers: list[Helper] = []  # the helpers this file defines
        self.module = module_name(path)
        self.lines = SourceLines(source)
        self._assignments: dict[int, dict[str, list[Node]]] = {}
        self.sites: list[Site] = []
        self.definitions: list[MessageDefinition] = []
        self.constructions: list[Construction] = []
        self.paths: list[SitePath] = []  # of sites and constructions
        self.dynamic = 0
        self.handled: set[int] = set()
        # exception classes defined in this file: name -> __init__ parameters
        self.exception_classes: dict[str, tuple[str, ...]] = {}
        self.defined: dict[str, MessageDefinition] = {}
        # exception classes of this file: name -> what a caught one lets its user read
        self.readable: dict[str, tuple[str, ...]] = {}
        # functions of this file that build an exception and return it: name -> its type
        self.factories: dict[str, str] = {}
        # The function (or class body, or module) whose locals messages are resolved in;
        # set by each handler (a node's parents are slow to walk from deep inside).
        self.scope: Node | None = None
        self.init_scope: Node | None = None
        # A name assigned in several branches of one `if` (`if a: m = "x" / else: m =
        # "y"`): the assignment each alternative message is read with (scopes.choices).
        # assignment in force (its node id) -> the other branch's assignment read instead
        self.forced: dict[int, Node] = {}
        self.branch_points: dict[int, list[Node]] | None = None  # recorded while not None

    # --- text helpers -------------------------------------------------------------

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def code(self, node: Node) -> str:
        """`node`'s source without the comments written inside it (`# type: ignore` in a
        condition split over lines is not part of the condition)."""
        return node_code(self.source, node, SPEC.comment_nodes, _MARKER)

    def between(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", "replace")
