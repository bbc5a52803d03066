"""Every extractor's one query, built the same way: the named sections of its language's
`queries.scm` (`;; query: NAME`), in the order asked for, each with its placeholders
(`{names}`, `{regex}`) filled, joined into one `Query` run once over the file's tree.
Each pattern captures the node it finds as `@node` (and maybe `@name`); `kinds[i]` says
which section pattern `i` came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tree_sitter import Language, Query


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
