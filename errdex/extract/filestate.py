"""What every brace-language extractor keeps about the one file it reads: its source and
call rules, what was found so far (sites, definitions, constructions, condition paths),
the text helpers, and the file's extraction when it is done; and the extractor that
parses a file, runs its one query and hands the matches to such a state.

A language's own file state (`errdex/languages/<name>/state.py`) adds what only it
reads; nothing here names a language: its words come from the `LanguageSpec` given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Generic, TypeVar

from tree_sitter import Node, Parser, Query

from errdex.extract import PARSE_SECONDS, Rule, SourceLines, parse_file
from errdex.extract.code import node_code
from errdex.extract.outline import file_structure
from errdex.extract.queries import Captures, Found, compiled, run_query
from errdex.extract.structure import SitePath
from errdex.extract.templates import Piece, build_template
from errdex.languages import spec_for
from errdex.models import (
    Construction,
    FileExtraction,
    Helper,
    Language,
    MessageDefinition,
    Site,
    SiteKind,
    Template,
)

if TYPE_CHECKING:
    from errdex.languages.spec import LanguageSpec


class FileState:
    """Everything about one file being extracted that every language keeps alike."""

    def __init__(self, spec: LanguageSpec, path: str, source: bytes,
                 rules: Sequence[Rule]) -> None:  # fmt: skip
        self.spec = spec
        self.language = spec.language  # what its sites are recorded as
        self.path = path
        self.source = source
        self.rules = {r.name: r for r in rules if r.form == "call"}
        self.lines = SourceLines(source)
        self.sites: list[Site] = []
        self.definitions: list[MessageDefinition] = []
        self.constructions: list[Construction] = []
        self.paths: list[SitePath] = []
        self.found_helpers: list[Helper] = []  # error helpers it defines (extract.helpers)
        self.dynamic = 0
        self._marker = spec.comment[:1].encode()

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def code(self, node: Node) -> str:
        """`node`'s source without the comments written inside it, its whitespace one
        space."""
        return " ".join(node_code(self.source, node, self.spec.comment_nodes,
                                  self._marker).split())  # fmt: skip

    def call_name(self, call: Node) -> str:
        """The called name as written, its whitespace dropped (`pkg . Fn` -> `pkg.Fn`)."""
        function = call.child_by_field_name("function")
        return "".join(self.text(function).split()) if function is not None else ""

    def arguments(self, call: Node) -> list[Node]:
        """A call's arguments, without the comments between them."""
        args = call.child_by_field_name("arguments")
        return [a for a in args.named_children if a.type not in self.spec.comment_nodes] \
            if args else []  # fmt: skip

    def operator(self, node: Node) -> str:
        """A binary expression's operator as written."""
        op = node.child_by_field_name("operator")
        return self.text(op) if op is not None else ""

    def summands(self, node: Node, *, through_parentheses: bool = False
                 ) -> Iterator[Node | None]:  # fmt: skip
        """The operands of a chain of `+` (`"a" + n + "b"`) in source order, walked only
        as far as they are asked for; None, and no more, where a `+` lacks a side (a
        parse error). `through_parentheses`: `("a" + n)` is part of the chain."""
        stack = [node]
        while stack:
            cur = stack.pop()
            while through_parentheses and cur.type == "parenthesized_expression" \
                    and cur.named_child_count == 1:  # fmt: skip
                cur = cur.named_children[0]
            if cur.type == "binary_expression" and self.operator(cur) == "+":
                left, right = cur.child_by_field_name("left"), cur.child_by_field_name("right")
                if left is None or right is None:
                    yield None
                    return
                stack += [right, left]
                continue
            yield cur

    def function_of(self, node: Node) -> str | None:
        """The qualified name of the function `node` is written in (the language's)."""
        raise NotImplementedError

    def record_path(self, node: Node, own: str | None = None) -> str | None:
        """Keep the path to `node` and return its guard (the language's path walk)."""
        raise NotImplementedError

    def add_site(self, kind: SiteKind, exception: str | None, at: Node,
                 message: tuple[Sequence[Piece], str], own: str | None = None,
                 guard: str | None = None, since: int | None = None) -> bool:  # fmt: skip
        """Keep a site at `at` of `message` (its pieces and as written): its guard that of
        the path there (`own`: a check's failing condition, its last step), or `guard`
        when one is given; `since`: the line the message's making starts on, when it is
        made in a variable before `at` (the site spans from there). False, and nothing
        kept, when the message has no text."""
        pieces, written = message
        template = build_template(written, pieces)
        if template.literal_chars == 0:
            return False
        line, end_line = at.start_point.row + 1, at.end_point.row + 1
        line = min(line, since or line)
        found = self.record_path(at, own)
        self.sites.append(Site(
            language=self.language, kind=kind, exception=exception, template=template,
            path=self.path, line=line, end_line=end_line, function=self.function_of(at),
            guard=guard or found, snippet=self.lines.snippet(line, end_line),
        ))  # fmt: skip
        return True

    def add_construction(self, type_path: str, at: Node,
                         field_values: tuple[tuple[str, str], ...] = (), *, raised: bool = False,
                         message_given: bool = False,
                         payloads: tuple[tuple[str, Template], ...] = ()) -> None:  # fmt: skip
        """Keep a construction of `type_path` at `at` (see `Construction`)."""
        line, end_line = at.start_point.row + 1, at.end_point.row + 1
        self.constructions.append(Construction(
            language=self.language, type_path=type_path, path=self.path, line=line,
            end_line=end_line, function=self.function_of(at), guard=self.record_path(at),
            snippet=self.lines.snippet(line, end_line), field_values=field_values,
            raised=raised, message_given=message_given, payloads=payloads,
        ))  # fmt: skip

    def add_built(self, type_path: str, at: Node, args: Sequence[Node],
                  messages: Sequence[tuple[str, tuple[list[Piece], str]]], *, raised: bool,
                  message_given: bool = False) -> None:  # fmt: skip
        """Keep the construction a call building a class of the library makes: what each
        argument is, as written, and the texts (`messages`) some of them give."""
        self.add_construction(
            type_path, at, tuple((str(i), self.code(a)) for i, a in enumerate(args)),
            raised=raised, message_given=message_given,
            payloads=tuple((key, build_template(m[1], m[0])) for key, m in messages))

    def extraction(self, language: Language, root: Node,
                   outlined: Sequence[Captures]) -> FileExtraction:  # fmt: skip
        """What was found in the file (parsed to `root`; `outlined`: the outline's
        matches of the extractor's own query), in source order."""
        return FileExtraction(
            sites=tuple(sorted(self.sites, key=lambda s: (s.line, s.end_line, s.kind.value))),
            definitions=tuple(self.definitions),
            constructions=tuple(sorted(self.constructions, key=lambda c: (c.line, c.type_path))),
            dynamic_sites=self.dynamic,
            helpers=tuple(self.found_helpers),
            structure=file_structure(language, self.path, root, self.source, self.paths,
                                     outlined),
        )


State = TypeVar("State", bound=FileState)


@cache
def _compiled(language: Language) -> tuple[Parser, Query, tuple[str, ...]]:
    return compiled(spec_for(language))


class QueryExtractor(Generic[State]):
    """An extractor (errdex.extract.Extractor) that parses a file once, runs its one
    query over the tree and hands the matches to a fresh file state (`read`: the
    language's handlers, in its order); what it found is that state's extraction."""

    language: Language

    @property
    def extensions(self) -> tuple[str, ...]:
        return spec_for(self.language).suffixes

    def grammar(self) -> tuple[Parser, Query, tuple[str, ...]]:
        """The parser, the compiled query and the kind of each of its patterns (the
        language's sections in `query_names` order, compiled once)."""
        return _compiled(self.language)

    state_type: Callable[[str, bytes, Sequence[Rule]], State]  # a fresh file state

    def new_state(self, path: str, source: bytes, rules: Sequence[Rule]) -> State:
        return self.state_type(path, source, rules)

    def read(self, state: State, found: Found, root: Node) -> None:
        """Hand the query's matches (`found`, by kind) of the tree at `root` to `state`."""
        raise NotImplementedError

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = PARSE_SECONDS
    ) -> FileExtraction:
        parser, query, kinds = self.grammar()
        tree = parse_file(parser, source, seconds)
        state = self.new_state(path, source, rules)
        found, outlined = run_query(query, kinds, tree.root_node)
        self.read(state, found, tree.root_node)
        self.read_more(state, tree.root_node, rules, seconds)
        return state.extraction(self.language, tree.root_node, outlined)

    def read_more(self, state: State, root: Node, rules: Sequence[Rule], seconds: float) -> None:
        """Add to `state` what the query cannot see in the tree (C's macro bodies)."""

    def sites_in(self, state: State, source: bytes, rules: Sequence[Rule],
                 seconds: float) -> list[Site]:  # fmt: skip
        """The sites of `source`, a text made from `state`'s file at the same lines, each
        with the snippet of the file as written."""
        parser, query, kinds = self.grammar()
        inner, root = self.new_state(state.path, source, rules), parse_file(parser, source, seconds)
        found, _ = run_query(query, kinds, root.root_node)
        self.read(inner, found, root.root_node)
        return [replace(s, snippet=state.lines.snippet(s.line, s.end_line)) for s in inner.sites]
