"""Source text of code as a condition shows it: what a node (or a span of sibling nodes)
says without the comments written inside it (`# type: ignore`, `# fmt: off`, `// why`),
so a guard reads `a is None or b`, never `a is None # type: ignore or b`.

The comment node types come from the language's spec (`comment_nodes`); nothing here
knows a language.
"""

from __future__ import annotations

from tree_sitter import Node


def comments_in(container: Node, start: int, end: int, kinds: frozenset[str]) -> list[Node]:
    """The comment nodes of `container`'s subtree inside bytes `start`..`end`, in order;
    subtrees wholly outside the range are not entered."""
    found: list[Node] = []
    stack = [container]
    while stack:
        node = stack.pop()
        if node.end_byte <= start or node.start_byte >= end:
            continue
        if node.type in kinds:
            found.append(node)
            continue
        stack.extend(reversed(node.children))
    return found


def code_text(
    source: bytes, start: int, end: int, container: Node, kinds: frozenset[str],
    marker: bytes = b"",
) -> str:  # fmt: skip
    """The source between `start` and `end` (inside `container`) with every comment in
    it replaced by one space (a line comment's newline is kept). `marker` is a byte every
    comment of the language starts with (`/`, `#`): text without it has no comment, and
    its tree is not walked."""
    if marker and source.find(marker, start, end) < 0:
        return source[start:end].decode("utf-8", "replace")
    comments = comments_in(container, start, end, kinds)
    if not comments:
        return source[start:end].decode("utf-8", "replace")
    # The code between comments, each piece joined to the next by one space.
    pieces: list[str] = []
    at = start
    for comment in comments:
        pieces.append(source[at : comment.start_byte].decode("utf-8", "replace"))
        at = max(at, comment.end_byte)
    pieces.append(source[at:end].decode("utf-8", "replace"))
    middle = [piece.strip(" \t") for piece in pieces[1:-1]]
    return " ".join([pieces[0].rstrip(" \t"), *middle, pieces[-1].lstrip(" \t")])


def node_code(source: bytes, node: Node, kinds: frozenset[str], marker: bytes = b"") -> str:
    """`node`'s source without the comments inside it."""
    return code_text(source, node.start_byte, node.end_byte, node, kinds, marker)
