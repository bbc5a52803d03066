"""Stack-frame lines a language's runtime prints after its message, as its spec declares
them (`output_frames`: V8's `    at f (x.js:1:2)`, Firefox's `f@x.js:1:2`): structure, not
message text; the first one after a message names where it was thrown. This module knows
no language: the patterns are the specs' data."""

from __future__ import annotations

import re

from errdex.languages import all_specs
from errdex.match.prefixes import Frame

# Once each, however many specs share them (TypeScript runs as JavaScript).
OUTPUT_FRAMES = tuple(re.compile(p) for p in dict.fromkeys(
    p for spec in all_specs() for p in spec.output_frames))  # fmt: skip


def output_frame(line: str) -> Frame | None:
    """The frame a stack-frame line names (its path empty when it names none), or None
    when the line is not one."""
    for pattern in OUTPUT_FRAMES:
        m = pattern.match(line)
        if m is not None:
            where = m.groupdict()
            return Frame(where.get("path") or "", int(where.get("line") or "0"))
    return None
