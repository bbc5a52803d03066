"""TypeScript, as errdex reads it: JavaScript's reader (`languages/javascript`: its
queries, rules, extractor and writer) over tree-sitter-typescript's grammar, with the
tables where the two differ (suffixes, declaration files, written types). `.tsx` files
take another grammar (`language_tsx`): they are `languages/tsx`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from errdex.languages.javascript import SPEC as SCRIPT
from errdex.models import Language

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter


def _grammar() -> object:
    import tree_sitter_typescript

    return tree_sitter_typescript.language_typescript()


def _tags() -> str:
    """JavaScript's tags (functions, methods, classes, calls) with TypeScript's own
    (signatures, interfaces): the TypeScript grammar inherits JavaScript's node types,
    and its tags file assumes JavaScript's is read with it."""
    import tree_sitter_javascript
    import tree_sitter_typescript

    return str(tree_sitter_javascript.TAGS_QUERY) + "\n" + str(tree_sitter_typescript.TAGS_QUERY)


def _extractor() -> Extractor:
    from errdex.languages.javascript.extractor import ScriptExtractor

    return ScriptExtractor(Language.TYPESCRIPT)


def _writer() -> CodeWriter:
    from errdex.languages.javascript import writer

    return writer.TYPED_WRITER


SPEC = replace(
    SCRIPT,
    language=Language.TYPESCRIPT,
    suffixes=(".ts", ".mts", ".cts"),
    # Declaration files hold types only; nothing in them runs.
    generated_names=(r"\.d\.[cm]?ts",),
    lexer="typescript",
    capabilities=SCRIPT.capabilities | {"bare_type_names"},  # `n: number`
    grammar=_grammar,
    extractor=_extractor,
    writer=_writer,
    outline=replace(SCRIPT.outline, tags=_tags,
                    owners=(*SCRIPT.outline.owners, ("abstract_class_declaration", "name", None))),
    declaration_words=(*SCRIPT.declaration_words, "interface", "type", "enum"),
    declared_type=r"(?<![\w.]){root}\??\s*:\s*([A-Za-z_][\w.]*(?:<[^>]*>)?(?:\[\])?)",
    typed_binding=r"(?<![\w.]){root}\??\s*:\s*((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?=\s*[,)=;])",
)
