"""Go, as errdex reads it: the tables of `SPEC`, the queries in `queries.scm` and the
error-making calls in `rules.toml` (`errors.New`, `fmt.Errorf`, `panic`, `log.Fatal*`).
Its extractor lives in `extractor.py` and its code writer in `writer.py`, imported only
when first asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.languages.spec import C_FAMILY_CONDITIONS, LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter

_WORDS = """break case chan const continue default defer else fallthrough for func go goto
if import interface map package range return select struct switch type var nil true false
iota append cap close complex copy delete imag len make new panic print println real
recover any bool byte comparable error float32 float64 int int8 int16 int32 int64 rune
string uint uint8 uint16 uint32 uint64 uintptr errors fmt Errorf New Is As Unwrap Error
err ok t s v x e"""


def _grammar() -> object:
    import tree_sitter_go

    return tree_sitter_go.language()


def _tags() -> str:
    import tree_sitter_go

    return str(tree_sitter_go.TAGS_QUERY)


def _module_path(path: str) -> str:
    """A file's package as callers write it: its folder's name (`pkg/shapes/x.go` ->
    `shapes`); "" for a file at the module's root (its name is in its `package` line)."""
    parts = path.replace("\\", "/").split("/")[:-1]
    name = parts[-1] if parts else ""
    return name if name.isidentifier() else ""


def _extractor() -> Extractor:
    from errdex.languages.go.extractor import GoExtractor

    return GoExtractor()


def _writer() -> CodeWriter:
    from errdex.languages.go import writer

    return writer.WRITER


# What Go prints before a message, for reading pastes (errdex.match): an error printed
# with `%#v` is Go syntax, its type qualified by its package (`viper.ConfigError{name:"x"}`,
# `&fs.PathError{Op:"open", ..}`); the qualifier goes, so the value reads as the type's.
OUTPUT_PREFIXES = (
    ("go_syntax_package", r"&?[a-z_][a-z0-9_]{0,60}\.(?=[A-Z]\w{0,120}\{)",
     "&abcdefghijklmnopqrstuvwxyz_"),
)

SPEC = LanguageSpec(
    language=Language.GO,
    package=__name__,
    suffixes=(".go",),
    test_names=(r"[^/]*_test\.go",),
    generated_names=(r"\.pb\.go", r"_generated\.go", r"zz_generated[^/]*\.go"),
    comment="//",
    comment_nodes=frozenset({"comment"}),
    lexer="go",
    grammar=_grammar,
    query_names=("call", "sentinel", "error_method", "composite", "returned"),
    extractor=_extractor,
    writer=_writer,
    format_families=("printf",),
    test_idioms=(
        ("t.Fatal", r"\bt\.(?:Fatal|Error)f?\("),
        ("errors.Is", r"\berrors\.(?:Is|As)\("),
    ),
    capabilities=frozenset({"errors_propagate_by_return", "bare_type_names",
                            "unsynchronised_sharing"}),
    **C_FAMILY_CONDITIONS,
    reference_prefix=r"^(?:&|\*)+",
    truth={"true": "be true", "false": "be false"},
    reserved_words=frozenset(_WORDS.split()),
    outline=Outline(
        tags=_tags,
        owners=(),
        public_marker=None,
        not_calls=frozenset(),
        separator=".",
        receiver="receiver",
        exported_by_capital=True,
        results="result",
    ),
    module_path=_module_path,
    function_keyword="func",
    declaration_words=("func", "type", "var", "const"),
    local_binding=r"(?:var\s+)?",
    statement_end=r"",
    tuple_binding=None,  # `a, b := f()` binds results, not a tuple's elements
    tuple_element="",
    tuple_elements_named=(),
    # `for i, x := range xs {`: the item is the second name; a single name is the index
    loop_binding=r"^\s*for\s+(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)?)\s*:?=\s*range\s+"
                 r"(?P<value>.+?)\s*\{\s*$",
    loop_items=((r"^(?P<value>.+)$", 1, 2), (r"^(?P<value>.+)$", 1, 1)),
    builtin_names=frozenset("bool byte rune string int int8 int16 int32 int64 uint uint8 uint16 "
                            "uint32 uint64 uintptr float32 float64 error nil true false".split()),
    rethrow=None,
    cli_arguments=None,
    handlers=None,
    declared_type=r"(?<![\w.]){root}\s+(\*?(?:\[\])?[\w.]+)(?=\s*[,)])",
    typed_binding=r"(?<![\w.]){root}\s+(\*?(?:\[\])?(?:[a-z_]\w*\.)*[A-Za-z_]\w*)(?=\s*[,)])",
    actions={
        SiteKind.BAIL: "returns an error with this message",
        SiteKind.PANIC: "panics with this message (the goroutine unwinds; only a deferred "
        "`recover()` stops it)",
        SiteKind.ERROR_ENUM: "returns an error whose `Error()` text is this message",
    },
    variant_noun="an error whose `Error()` text is this message",
    unnamed_action="returns an error with this message",
    output_prefixes=OUTPUT_PREFIXES,
)
