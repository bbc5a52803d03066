"""A file's outline, read from the source text a worker already holds: the functions it
defines (with their owner and whether they are public), the calls each one writes, the
names it declares with a type, and every identifier it uses.

The outline is a line scan driven by the language's `Outline` table (the definitions'
and blocks' regexes): it runs once per file in the extraction worker, so analysis
never reads the file again. It must not name a language.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from errdex.extract.structure import FileStructure, OutlineCall, OutlineDef, TypedBinding
from errdex.languages import spec_for
from errdex.models import FileExtraction, Language

_CALL = re.compile(r"\b([A-Za-z_]\w*)(?:::<[^>()]*>)?\s*\(")
_QUALIFIER = re.compile(r"([A-Za-z_]\w*)\s*(?:::|\.)$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words written like calls that call nothing a page could name.
NOT_CALLS = frozenset(
    "if while for match return fn def loop Some Ok Err Box Vec print len isinstance str int "
    "super self Self assert raise format vec panic bail".split()
)
MAX_NAME_CHARS = 200  # longer "identifiers" (the inside of a long string) name nothing

# Open scopes while scanning: (indent, def index or None, owner name or None, trait?).
_Scope = tuple[int, int | None, str | None, bool]


@lru_cache(maxsize=8)
def _tables(language: Language) -> tuple[
    re.Pattern[str], list[tuple[str, re.Pattern[str], bool]], re.Pattern[str]
]:  # fmt: skip
    spec = spec_for(language)
    outline = spec.outline
    blocks = [(word, re.compile(pattern), trait) for word, pattern, trait in outline.blocks]
    # Each `{root}` of the pattern becomes its own named group: any name, found in one pass.
    parts = spec.typed_binding.split("{root}")
    typed = re.compile("".join(
        part + (rf"(?P<root{i}>[A-Za-z_]\w*)" if i < len(parts) - 1 else "")
        for i, part in enumerate(parts)
    ))  # fmt: skip
    return re.compile(outline.function), blocks, typed


def with_outline(
    extraction: FileExtraction, path: str, language: Language, source: bytes
) -> FileExtraction:
    """`extraction` with the file's outline added to the structure its extractor made."""
    outline = outline_file(language, source.decode("utf-8", "replace"))
    made = extraction.structure
    return replace(extraction, structure=replace(
        outline, path=path, paths=made.paths if made is not None else ()))  # fmt: skip


def outline_file(language: Language, text: str) -> FileStructure:
    """The outline of one file's text (no condition paths: the extractor adds those)."""
    defs, calls = _definitions_and_calls(language, text)
    return FileStructure(
        defs=tuple(defs),
        calls=tuple(calls),
        typed=_typed_bindings(language, text),
        identifiers=frozenset(
            n for n in set(_IDENT.findall(text)) if len(n) <= MAX_NAME_CHARS
        ),
    )


def _definitions_and_calls(
    language: Language, text: str
) -> tuple[list[OutlineDef], list[OutlineCall]]:
    outline = spec_for(language).outline
    function, blocks, _ = _tables(language)
    defs: list[OutlineDef] = []
    calls: dict[tuple[str, int, str], None] = {}  # (name, caller, qualifier), in order
    scopes: list[_Scope] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", "#", "*", "/*")):
            continue
        indent = len(line) - len(line.lstrip())
        while scopes and scopes[-1][0] >= indent and not stripped.startswith(("}", ")")):
            scopes.pop()
        # the word is a cheap test before the regex
        m = function.match(line) if outline.def_word in line else None
        if m:
            owner = next((s[2] for s in reversed(scopes) if s[2]), None)
            name = m.group("name")
            if outline.public_by_marker:
                exported = "exported" in m.re.groupindex and bool(m.group("exported"))
                public = exported or any(s[3] for s in scopes)
            else:
                public = not name.startswith("_") and not (owner and owner.startswith("_"))
            defs.append(OutlineDef(name, owner, number, public))
            scopes.append((indent, len(defs) - 1, None, False))
            _add_calls(line[m.end() :], scopes, defs, calls)
            continue
        block = next((b for word, pattern, trait in blocks if word in line
                      and (b := pattern.match(line))), None)  # fmt: skip
        if block:
            trait = next(t for _, p, t in blocks if p is block.re)
            marked = "trait" in block.re.groupindex and bool(block.group("trait"))
            scopes.append((indent, None, block.group("owner"), marked or trait))
            continue
        if "(" in line:
            _add_calls(line, scopes, defs, calls)
    return defs, [OutlineCall(name, caller, qualifier) for name, caller, qualifier in calls]


def _add_calls(
    code: str, scopes: list[_Scope], defs: list[OutlineDef],
    calls: dict[tuple[str, int, str], None],
) -> None:  # fmt: skip
    caller = next((s[1] for s in reversed(scopes) if s[1] is not None), None)
    if caller is None:
        return
    for m in _CALL.finditer(code):
        name = m.group(1)
        if name not in NOT_CALLS and name != defs[caller].name:
            before = code[max(0, m.start() - 40) : m.start()]
            q = _QUALIFIER.search(before) if before.endswith((".", ":")) else None
            calls[(name, caller, q.group(1) if q else "")] = None


def _typed_bindings(language: Language, text: str) -> tuple[TypedBinding, ...]:
    """Every `name: Type` the file writes, with the line its match ends on."""
    _, _, typed = _tables(language)
    found: list[TypedBinding] = []
    line, at = 1, 0
    for m in typed.finditer(text):
        line += text.count("\n", at, m.end())
        at = m.end()
        roots = {typed.groupindex[key] for key in typed.groupindex if key.startswith("root")}
        name = next((g for i, g in enumerate(m.groups(), 1) if i in roots and g), None)
        type_name = next((g for i, g in enumerate(m.groups(), 1) if i not in roots and g), None)
        if name and type_name:
            found.append(TypedBinding(name, type_name, line))
    return tuple(found)
