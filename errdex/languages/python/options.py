"""The command line a Python script declares with argparse: each
`parser.add_argument("--n-jobs", "-j", dest="jobs", default=1)` as the attribute of the
parsed namespace that holds it (`args.jobs`) and the flag the user types (`--n-jobs`);
a bare name (`add_argument("path")`) is positional.

It reads the file's text once (the extractor already has it) and decides no wording.
"""

from __future__ import annotations

import re

from errdex.extract.structure import CommandOption

_CALL = re.compile(r"\.add_argument\(")
_STRING = re.compile(r"""\s*(?P<q>['"])(?P<text>[^'"\\]*)(?P=q)\s*(?:,|$)""")
_KEYWORD = re.compile(r"""\b(?P<key>dest|default)\s*=\s*""")
MAX_ARGUMENT_CHARS = 2000  # an `add_argument(` call's text read at most


def command_options(text: str) -> tuple[CommandOption, ...]:
    """Every `.add_argument(..)` call of the file whose names are string literals."""
    out = []
    for m in _CALL.finditer(text):
        body = _arguments(text, m.end())
        if body is None:
            continue
        names, at = [], 0
        while (s := _STRING.match(body, at)) is not None:
            names.append(s.group("text"))
            at = s.end()
        if not names:
            continue
        keywords = _keywords(body[at:])
        longs = [n for n in names if n.startswith("--")]
        flag = longs[0] if longs else names[0]
        positional = not flag.startswith("-")
        dest = keywords.get("dest", "").strip("'\"") or flag.lstrip("-").replace("-", "_")
        line = text.count("\n", 0, m.start()) + 1
        out.append(CommandOption("", dest, f"<{flag}>" if positional else flag, positional,
                                 keywords.get("default"), line))  # fmt: skip
    return tuple(out)


def _arguments(text: str, start: int) -> str | None:
    """The text between the call's parentheses (brackets balanced, strings skipped)."""
    depth, at, quote = 1, start, ""
    end = min(len(text), start + MAX_ARGUMENT_CHARS)
    while at < end:
        char = text[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:at]
        at += 1
    return None


def _keywords(rest: str) -> dict[str, str]:
    """`dest=` and `default=` as written, each up to the next top-level comma."""
    out = {}
    for m in _KEYWORD.finditer(rest):
        depth, at = 0, m.end()
        while at < len(rest) and not (rest[at] == "," and depth == 0):
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(rest[at], 0)
            at += 1
        out[m.group("key")] = rest[m.end():at].strip()
    return out
