"""Rust, as errdex reads it: the tables of `SPEC`, the queries in `queries.scm` and the
error-raising macros, methods and calls in `rules.toml`. Its extractor lives in
`extractor.py` and its code writer in `writer.py`, imported only when first asked for."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from errdex.languages.rust.build import describe_condition, feature_fix
from errdex.languages.rust.fieldvalues import literal_fields, needed_field
from errdex.languages.rust.ops import applied_ops
from errdex.languages.spec import C_FAMILY_CONDITIONS, LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter

_WORDS = """as break const continue crate else enum extern false fn for if impl in let loop
match mod move mut pub ref return self Self static struct super trait true type unsafe use
where while dyn async await Ok Err Some None Result Option Box Vec String str bool usize
isize u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 char std panic catch_unwind resume_unwind
AssertUnwindSafe downcast_ref is_some_and to_string contains into format error Error ok
unwrap expect len map is_empty clone v e p s x matches FnOnce FnMut Fn try_from try_into from
as_str or_else copied unwrap_or_default"""


def _grammar() -> object:
    import tree_sitter_rust

    return tree_sitter_rust.language()


def _options() -> ModuleType:
    from errdex.languages.rust import options

    return options


def _imports() -> ModuleType:
    from errdex.languages.rust import imports

    return imports


def _tags() -> str:
    import tree_sitter_rust

    return str(tree_sitter_rust.TAGS_QUERY)


def _module_path(path: str) -> str:
    """The module a file of a crate holds, as users write it: `<crate dir>/src/a/b.rs` ->
    `crate_dir::a::b` (the crate named by its folder, `-` read as `_`); `lib.rs`,
    `main.rs` and `mod.rs` name their folder's module. "" outside a crate's `src`."""
    parts = path.replace("\\", "/").split("/")
    if "src" not in parts[:-1]:
        return ""
    at = len(parts) - 1 - parts[::-1].index("src")
    crate = parts[at - 1].replace("-", "_") if at > 0 else ""
    if not crate.isidentifier():
        return ""
    modules = [*parts[at + 1 : -1], parts[-1].removesuffix(".rs")]
    if modules[-1] in ("lib", "main", "mod"):
        modules.pop()
    if not all(m.isidentifier() for m in modules):
        return ""
    return "::".join([crate, *modules])


def _extractor() -> Extractor:
    from errdex.languages.rust.extractor import RustExtractor

    return RustExtractor()


def _unbuilt(root: str, paths: Iterable[str]) -> frozenset[str]:
    from errdex.languages.rust import buildscript

    return buildscript.unbuilt_sources(root, paths)


def _writer() -> CodeWriter:
    from errdex.languages.rust import writer

    return writer.WRITER


SPEC = LanguageSpec(
    language=Language.RUST,
    package=__name__,
    suffixes=(".rs",),
    test_names=(),
    generated_names=(r"\.generated\.rs",),
    comment="//",
    comment_nodes=frozenset({"line_comment", "block_comment"}),
    lexer="rust",
    grammar=_grammar,
    query_names=("attr", "macro", "token", "method", "call", "scoped", "struct", "unit",
                 "enum", "item", "display", "constructor", "converted", "macro_body",
                 "constant"),
    extractor=_extractor,
    writer=_writer,
    format_families=("braces",),
    test_idioms=(
        ("should_panic", r"#\[should_panic\b"),
        ("is_err", r"\.is_err\(\)|\.unwrap_err\(\)"),
    ),
    capabilities=frozenset({"variants_named_by_path", "errors_propagate_by_return",
                            "fields_read_through_self"}),
    **{**C_FAMILY_CONDITIONS,
       # no `<-` operator (`n<-1` compares with -1); `let PATTERN = value else` guards
       "compare": r"==|!=|<=|>=|(?<![<\-=])<(?![<=])|(?<![>\-=])>(?![>=])",
       "pattern_guard": "let "},
    reference_prefix=r"^(?:&\s*(?:mut\s+)?|\*)+",
    truth={"true": "be true", "false": "be false"},
    reserved_words=frozenset(_WORDS.split()),
    outline=Outline(
        tags=_tags,
        owners=(("impl_item", "type", "trait"), ("trait_item", "name", "")),
        public_marker="visibility_modifier",
        public_text="pub",
        exposed_by=frozenset({"pymethods"}),
        attribute="attribute_item",
        not_calls=frozenset({"macro_invocation"}),
        separator="::",
        constructors=frozenset({"new", "load"}),  # by convention: `Model::new(vb, cfg)`
        applied=applied_ops(),  # custom ops: `xs.apply_op1(Sigmoid)` runs its `cpu_fwd`
        unmarked_local=True,  # `fn f` (no `pub`): seen in its module and those inside it
        import_paths=lambda text, path: _imports().import_paths(text, _module_path(path)),
        import_nodes=frozenset({"use_declaration"}),
        result_handlers=lambda call, source: _imports().result_handlers(call, source),
        literal_fields=literal_fields,
        needed_field=needed_field,
        absent="None",
    ),
    module_path=_module_path,
    function_keyword="fn",
    snippet_languages=(Language.JAVASCRIPT,),  # wasm-bindgen's JsError: caught in JavaScript
    declaration_words=("fn", "pub", "struct"),
    local_binding=r"(?:let\s+(?:mut\s+)?)?",
    statement_end=r";?",
    tuple_binding=r"^\s*let\s+\((?P<names>[^()=]+)\)\s*(?::[^=]+)?=(?!=)\s*(?P<value>.+?);\s*$",
    tuple_element="{value}.{index}",
    # candle's shape accessors: `let (b, t, c) = x.dims3()?` binds `x.dim(0)` ..
    tuple_elements_named=((r"^(?P<value>.+?)\.dims\d\(\)\??$", "{value}.dim({index})"),),
    loop_binding=r"^\s*for\s+\(?(?P<names>&?(?:mut\s+)?[A-Za-z_]\w*(?:\s*,\s*&?(?:mut\s+)?"
                 r"[A-Za-z_]\w*)*)\s*\)?\s+in\s+(?P<value>.+?)\s*\{\s*$",
    loop_items=((r"^&?(?:mut\s+)?(?P<value>.+?)\.(?:iter|into_iter|iter_mut)\(\)$", 0, 1),
                (r"^&(?:mut\s+)?(?P<value>.+?)$", 0, 1),
                (r"^(?P<value>.+?)\.(?:iter|into_iter|iter_mut)\(\)\.enumerate\(\)$", 1, 2)),
    # a closure's parameters (`.any(|d| d == 0)`), not a bitwise `a | b | c`
    inner_binding=r"(?:^|[(,])\s*(?:move\s+)?\|(?P<names>\s*&?(?:mut\s+)?[a-z_]\w*"
                  r"(?:\s*,\s*&?(?:mut\s+)?[a-z_]\w*)*)\s*\|",
    builtin_names=frozenset("bool char str f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 "
                            "usize String Vec Option Result Some None Ok Err".split()),
    rethrow=None,
    cli_arguments=r"let\s+(?:mut\s+)?(?P<name>\w+)\s*(?::\s*\w+\s*)?=\s*\w+::parse\(\)\s*;",
    handlers=None,
    declared_type=r"(?<![\w.]){root}\s*:\s*([^,=)\n{]+)",
    typed_binding=r"(?<![\w.]){root}\s*:\s*&?\s*(?:'\w+\s+)?(?:mut\s+)?"
    r"((?:[a-z_]\w*::)*[A-Z]\w*)",
    actions={
        SiteKind.RAISE: "returns `{exc}` with this message",
        SiteKind.ASSERT: "fails an assertion and panics with this message",
    },
    variant_noun="an error variant whose display text is this message",
    unnamed_action="fails with it",
    unbuilt=_unbuilt,
    build_condition=describe_condition,
    build_fix=feature_fix,
    program=lambda path, features, names: _options().program(path, features, names),
    cli_accessors=r"(?:\.(?:as_ref|as_deref|as_str|unwrap|clone|to_string|to_owned)\(\)"
    r"|\.map\([\w:]+\))*",
    path_segment=r"\.join\(\s*\"(?P<part>[^\"\\]+)\"\s*\)",
    optional_results=r"as_ref|as_mut|last|first|get|get_mut|next|peek|pop|find|position"
    r"|as_(?:str|u64|i64|f64|bool|array|object)|checked_\w+|strip_(?:prefix|suffix)",
    cli_presence=((r"\.is_some\(\)", True), (r"\.is_none\(\)", False)),
    cli_phrases=(
        (r"`(--?[\w-]+)` (?:matches `None`|does not match `Some\([^`]*\)`)", r"`\1` is not given"),
        (r"`(--?[\w-]+)` (?:matches `Some\([^`]*\)`|does not match `None`)", r"`\1` is given"),
        # an `Option` flag tested for None, a `bool` flag for truth: whether it was given
        (r"`(--?[\w-]+)` must not be None\b", r"`\1` must be given"),
        (r"`(--?[\w-]+)` must be None\b", r"`\1` must not be given"),
        (r"`(--?[\w-]+)` is not None\b", r"`\1` is given"),
        (r"`(--?[\w-]+)` is None\b", r"`\1` is not given"),
        (r"`(--?[\w-]+)` is none of `Some\([^`]*\)`", r"`\1` is not given"),
        (r"`(--?[\w-]+)` must be true\b", r"`\1` must be given"),
        (r"`(--?[\w-]+)` must be false\b", r"`\1` must not be given"),
        (r"`(--?[\w-]+)` is true\b", r"`\1` is given"),
        (r"`(--?[\w-]+)` is false\b", r"`\1` is not given"),
    ),
)
