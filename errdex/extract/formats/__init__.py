"""Format-string families: a message written as a format string (`"{x} is bad"`,
`"%s is bad"`) is split here into literal text and *fields*, each naming the argument it
reads and the spec written after it.

Families are shared by every language that formats that way (`braces`: Rust's `format!`,
Python's `str.format` and f-strings' plain fields; `printf`: Python's `%`). Binding a
field to the argument's source text is the extractor's job, since only it has the
call's arguments; these parsers never see a syntax tree.
"""

from __future__ import annotations

FAMILIES = frozenset({"braces", "printf"})
