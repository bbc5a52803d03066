"""Every extractor's one query, built the same way: the named sections of its language's
`queries.scm` (`;; query: NAME`), in the order asked for, each with its placeholders
(`{names}`, `{regex}`) filled, joined into one `Query` run once over the file's tree.
Each pattern captures the node it finds as `@node` (and maybe `@name`); `kinds[i]` says
which section pattern `i` came from."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from errdex.languages.spec import LanguageSpec

Captures = dict[str, list[Node]]  # one match of a query: capture name -> its nodes


def quoted(names: Sequence[str]) -> str:
    """Names as a query's string list: `"a" "b"` (for `#any-of?`)."""
    return " ".join('"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"' for name in names)


OUTLINE = ""  # the kind of the patterns `outline` added: their matches are the outline's


def build_query(
    language: Language, sections: Mapping[str, str],
    wanted: Sequence[tuple[str, Mapping[str, str]]], outline: str = "",
) -> tuple[Query, tuple[str, ...]]:  # fmt: skip
    """The query of the `wanted` sections (name, placeholder -> text), and per pattern
    the section it came from. A section holding several patterns counts once per
    pattern, so every section holds one. The `outline` patterns (`outline_patterns`)
    come after them, each of kind OUTLINE: one walk of the tree finds both."""
    texts = []
    for name, fills in wanted:
        text = sections[name]
        for key, value in fills.items():
            text = text.replace("{" + key + "}", value)
        texts.append(text)
    query = Query(language, "\n".join(texts))
    kinds = tuple(name for name, _ in wanted)
    if query.pattern_count != len(kinds):
        raise ValueError(f"each query section must hold one pattern: {len(kinds)} sections, "
                         f"{query.pattern_count} patterns")
    if not outline:
        return query, kinds
    joined = Query(language, "\n".join((*texts, outline)))
    return joined, kinds + (OUTLINE,) * (joined.pattern_count - len(kinds))


Found = dict[str, list[tuple[Node, Node | None]]]  # kind -> (its @node, its first @name)
Handler = Callable[[Node, Node | None], object]
_ODD = (RecursionError, ValueError, IndexError, KeyError, AttributeError)


def compiled(spec: LanguageSpec) -> tuple[Parser, Query, tuple[str, ...]]:
    """A language's parser and its one query (its sections in `query_names` order, then
    the outline's patterns), for an extractor whose sections have no placeholders."""
    from errdex.extract.outline import outline_patterns  # outline imports this module

    grammar = Language(spec.grammar())
    query, kinds = build_query(grammar, spec.queries(), [(k, {}) for k in spec.query_names],
                               outline_patterns(spec.language))
    return Parser(grammar), query, kinds


def run_query(query: Query, kinds: Sequence[str], root: Node) -> tuple[Found, list[Captures]]:
    """One walk of the tree: each section's matches by kind, and the outline's (the
    patterns of kind OUTLINE, for `file_structure`)."""
    found: Found = {kind: [] for kind in kinds if kind != OUTLINE}
    outlined: list[Captures] = []
    for index, captures in QueryCursor(query).matches(root):
        if kinds[index] == OUTLINE:
            outlined.append(captures)
            continue
        names = captures.get("name")
        for node in captures.get("node", ()):
            found[kinds[index]].append((node, names[0] if names else None))
    return found, outlined


def handle(found: Found, handlers: Mapping[str, Handler]) -> None:
    """Each kind's matches in source order through its handler, kinds in the handlers'
    order: one odd construct costs only itself, never the whole file."""
    for kind, handler in handlers.items():
        for node, name in sorted(found[kind], key=lambda f: (f[0].start_byte, f[0].end_byte)):
            try:
                handler(node, name)
            except _ODD:
                continue
