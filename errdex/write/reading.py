"""What a page reads out of the code stored with its site (the snippet around the raising
line), without opening any file: the header of the check that leads to the site, the
comment just above it, the function's own signature and doc comment, whether the function
is public, and whether another check of the same function is on the same path.

Language syntax (comment markers, exclusive branches, visibility) comes from the
language's code writer; this module only walks lines and indentation. Where the snippet
does not show enough to be sure, the answer is "not known" (None or False), never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.languages import spec_for
from errdex.languages.writer import CodeWriter
from errdex.models import Site

_BINDING = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)|\b(?:for|as|let|mut)\s+([A-Za-z_]\w*)\b"
    r"|(?<=[(,])\s*([A-Za-z_]\w*)\s*(?=[),:])")


def bound_in(code: str, names: Sequence[str]) -> set[str]:
    """The roots of `names` that `code` assigns or binds (`x = `, `for x in`, `as x`,
    `let x`, `Some(x)`, a parameter list): one pass over the code for every name."""
    roots = {n.split(".")[0] for n in names}
    if not roots:
        return set()
    bound = {name for m in _BINDING.finditer(code) for name in m.groups() if name}
    return roots & bound


@dataclass(frozen=True)
class _Lines:
    lines: list[str]
    start: int  # the line number of lines[0]

    def index(self, line: int) -> int | None:
        i = line - self.start
        return i if 0 <= i < len(self.lines) else None


def _lines(site: Site) -> _Lines:
    return _Lines(site.snippet.code.splitlines(), site.snippet.start_line)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _blank(text: str) -> bool:
    return not text.strip()


def _header(site: Site, code: _Lines, at: int) -> int:
    """The line opening the check that leads to line `at`: the line itself when it is a
    whole check (`if a { bail!(..) }`, `assert!(..)`, `if x: raise`), else the nearest line
    above with less indentation (skipping a statement's own continuation lines)."""
    w = spec_for(site.language).writer()
    text = code.lines[at]
    if site.guard is None or w.opens_check(text):
        return at  # no condition leads here: the raising statement is the check
    mine = _indent(text)
    for i in range(at - 1, -1, -1):
        line = code.lines[i]
        if _blank(line) or w.is_comment(line):
            continue
        if _indent(line) < mine:
            return i
    return at


def check_header(site: Site) -> int | None:
    """The line number of the check leading to the site, when the snippet shows it."""
    code = _lines(site)
    at = code.index(site.line)
    return None if at is None else code.start + _header(site, code, at)


def comment_above(site: Site) -> str | None:
    """The comment written just above the check that leads to the site (or above the
    raising line), as the code's authors wrote it; None when there is none."""
    code = _lines(site)
    at = code.index(site.line)
    if at is None:
        return None
    w = spec_for(site.language).writer()
    for start in dict.fromkeys((_header(site, code, at), at)):
        found: list[str] = []
        i = start - 1
        while i >= 0 and w.is_comment(code.lines[i]):
            found.append(w.comment_text(code.lines[i]))
            i -= 1
        text = " ".join(t for t in reversed(found) if t).strip()
        if text and not re.fullmatch(r"[-=*#/ ]*", text):
            return text
    return None


def _signature_index(site: Site, code: _Lines) -> int | None:
    short = re.split(r"::|\.", site.function or "")[-1]
    if not short:
        return None
    at = code.index(site.line)
    w = spec_for(site.language).writer()
    for i in range(at if at is not None else len(code.lines) - 1, -1, -1):
        if w.defines(code.lines[i], short):
            return i
    return None


def signature(site: Site) -> str | None:
    """The site's function header as written (its first line), when the snippet shows it."""
    code = _lines(site)
    i = _signature_index(site, code)
    if i is None:
        return None
    text = code.lines[i].strip()
    j = i + 1
    while ")" not in text and j < len(code.lines) and j < i + 8:  # a header over lines
        text += " " + code.lines[j].strip()
        j += 1
    return text


def parameters(site: Site) -> list[str] | None:
    """The names of the site's function's parameters in order (`self` first when it has
    one), when the snippet shows the header."""
    header = signature(site)
    if header is None:
        return None
    name = re.split(r"::|\.", site.function or "")[-1]
    at = header.find("(", header.find(name) + len(name) if name in header else 0)
    if at < 0:
        return None
    depth = 0
    for i in range(at, len(header)):  # the parameter list ends at its own `)`, not at a
        depth += {"(": 1, ")": -1}.get(header[i], 0)  # `Result<()>` after it
        if depth == 0:
            return spec_for(site.language).writer().parameter_names(header[at + 1 : i])
    return None


def is_public(site: Site) -> bool | None:
    """Whether a user can call the site's function: True, False, or None (not known)."""
    w = spec_for(site.language).writer()
    by_name = w.public_by_name(site)
    if by_name is not None:
        return by_name
    header = signature(site)
    return None if header is None else w.public_header(header)


def doc_comment(site: Site) -> str | None:
    """The first sentence of the site's function's doc comment, when the snippet shows it."""
    code = _lines(site)
    i = _signature_index(site, code)
    if i is None:
        return None
    text = spec_for(site.language).writer().doc_of(code.lines, i)
    if not text:
        return None
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return first.strip() or None


def _chain(code: _Lines, at: int, w: CodeWriter) -> dict[int, int]:
    """indent -> the line index at that indent that holds line `at` (its ancestors and
    itself), walking up the snippet."""
    out = {_indent(code.lines[at]): at}
    low = _indent(code.lines[at])
    for i in range(at - 1, -1, -1):
        line = code.lines[i]
        if _blank(line) or w.is_comment(line):
            continue
        if _indent(line) < low:
            low = _indent(line)
            out[low] = i
    return out


def on_same_path(site: Site, earlier: int, later: int, *, always: bool = True) -> bool:
    """Whether the check raising at line `earlier` runs, and passes, on every path that
    goes on to line `later` (both in the site's snippet): the earlier check is a statement
    of a block that also holds (an ancestor of) the later line, with no branch between
    them that excludes one from the other (an `else`, a later `match` arm). `always`: the
    earlier check must also run on every path to the later line (not inside one arm of
    its own); False asks only whether passing it leads on to the later line."""
    code = _lines(site)
    a, b = code.index(earlier), code.index(later)
    if a is None or b is None or a >= b:
        return False
    w = spec_for(site.language).writer()
    head = _header(site, code, a)
    level = _indent(code.lines[head])
    chain = _chain(code, b, w)
    holder = chain.get(level)
    if holder is None or holder <= head:
        return False
    for i in range(head + 1, holder):
        line = code.lines[i]
        if not _blank(line) and not w.is_comment(line) and _indent(line) < level:
            return False  # the block closed in between: another scope
    if always and w.exclusive_branch(code.lines[head]):
        return False  # the earlier check is itself one arm (an else, a match arm)
    # Walk the statements at that level after the earlier check: while they continue its
    # own statement (an else, another arm), the later line is on an excluded branch.
    for i in range(head + 1, holder + 1):
        line = code.lines[i]
        if _blank(line) or w.is_comment(line) or _indent(line) != level:
            continue
        if w.exclusive_branch(line):
            return False
        if line.strip() in ("}", "};", "},"):
            continue
        return True  # a new statement: the earlier check's statement ended before it
    return True
