"""TypeScript with JSX (`.tsx`), as errdex reads it: TypeScript's tables
(`languages/typescript`, itself JavaScript's reader) over tree-sitter-typescript's tsx
grammar. It is a grammar of its own (`<T>x` is an element there, not a type assertion)
whose node ids differ from TypeScript's, so it is registered on its own: each grammar's
trees meet only the queries compiled for that grammar. What it finds is TypeScript's
(records say `typescript`; a class thrown in a `.tsx` file resolves with the `.ts` file
that defines it)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from errdex.languages.typescript import SPEC as TYPED
from errdex.models import Language

if TYPE_CHECKING:
    from errdex.extract import Extractor


def _grammar() -> object:
    import tree_sitter_typescript

    return tree_sitter_typescript.language_tsx()


def _extractor() -> Extractor:
    from errdex.languages.javascript.extractor import ScriptExtractor

    return ScriptExtractor(Language.TSX, records_as=Language.TYPESCRIPT)


SPEC = replace(
    TYPED,
    language=Language.TSX,
    suffixes=(".tsx",),
    generated_names=(r"\.generated\.tsx",),  # GraphQL Code Generator's operation files
    lexer="tsx",
    grammar=_grammar,
    extractor=_extractor,
)
