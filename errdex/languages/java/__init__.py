"""Java, as errdex reads it: the tables of `SPEC`, the queries in `queries.scm` and the
error-making calls in `rules.toml` (`Objects.requireNonNull`, Guava's `checkArgument`,
SLF4J's `log.error`). Its extractor lives in `extractor.py` and its code writer in
`writer.py`, imported only when first asked for; what a pasted Java stack trace holds is
read by the shared paste scanner (errdex.match.paste)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.languages.spec import C_FAMILY_CONDITIONS, LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter

_WORDS = """abstract assert boolean break byte case catch char class const continue default
do double else enum extends final finally float for goto if implements import instanceof
int interface long native new package private protected public return short static
strictfp super switch synchronized this throw throws transient try void volatile while var
record yield true false null String Object Integer Long Double Boolean List Map Set
Objects Optional Exception RuntimeException IllegalArgumentException
IllegalStateException NullPointerException getMessage equals length size isEmpty contains
System out println e x"""
# A type as a Java method or local writes it before the name: `int[]`, `List<String>`,
# `Map.Entry<K, V>` (no capture group: the callers number their own).
_TYPE = r"[A-Za-z_][\w.]*(?:<[\w.,?\s<>\[\]]*>)?(?:\[\])*"
# A declared type as it stands before a parameter's or field's name: a class (capitalised,
# maybe qualified) or a primitive, never a word like `return` or prose in a comment.
_DECLARED = (r"(?:(?:[a-z]\w*\.)*[A-Z]\w*(?:\.[A-Z]\w*)*(?:<[\w.,?\s<>\[\]]*>)?"
             r"|byte|short|int|long|float|double|boolean|char)(?:\[\])*(?:\.\.\.)?")


def _grammar() -> object:
    import tree_sitter_java

    return tree_sitter_java.language()


def _tags() -> str:
    import tree_sitter_java

    return str(tree_sitter_java.TAGS_QUERY)


def _module_path(path: str) -> str:
    """A file's class as callers import it: `src/main/java/com/x/Shape.java` ->
    `com.x.Shape` (the path after its `java` source folder, else after `src`); "" when
    the path names no package folder."""
    parts = path.replace("\\", "/").split("/")
    if not parts[-1].endswith(".java"):
        return ""
    parts[-1] = parts[-1][: -len(".java")]
    for root in ("java", "src"):
        if root in parts[:-1]:
            index = len(parts) - 1 - parts[::-1].index(root)
            tail = parts[index + 1 :]
            if tail and all(p.isidentifier() for p in tail):
                return ".".join(tail)
    return ""


def _extractor() -> Extractor:
    from errdex.languages.java.extractor import JavaExtractor

    return JavaExtractor()


def _writer() -> CodeWriter:
    from errdex.languages.java import writer

    return writer.WRITER


SPEC = LanguageSpec(
    language=Language.JAVA,
    package=__name__,
    suffixes=(".java",),
    test_names=(r"[^/]*Tests?\.java", r"[^/]*IT\.java", r"Test[A-Z][^/]*\.java"),
    generated_names=(r"(?:^|/)generated(?:-sources|-src|-test-sources)?/[^\n]+\.java",
                     r"[^/]*OuterClass\.java", r"[^/]*Grpc\.java"),
    comment="//",
    comment_nodes=frozenset({"line_comment", "block_comment"}),
    lexer="java",
    grammar=_grammar,
    query_names=("call", "created", "exception_class", "helper", "asserted"),
    extractor=_extractor,
    writer=_writer,
    format_families=("printf", "braces"),
    test_idioms=(
        ("assertThrows", r"\bassert(?:Throws|ThrowsExactly)\(\s*[\w.]+\.class"),
        ("@Test(expected", r"@Test\(\s*expected\s*="),
        ("assertThatThrownBy", r"\bassertThat(?:ThrownBy|Exception(?:OfType)?|Code)\("),
        ("hasMessage", r"\.hasMessage(?:Containing|StartingWith|EndingWith)?\("),
        ("getMessage", r"\bassert(?:Equals|That)\(.*\bgetMessage\(\)"),
    ),
    capabilities=frozenset({"exception_named_in_output", "bare_type_names",
                            "message_is_source_expression", "unsynchronised_sharing"}),
    **C_FAMILY_CONDITIONS,
    reference_prefix=None,
    truth={"true": "be true", "false": "be false"},
    reserved_words=frozenset(_WORDS.split()),
    outline=Outline(
        tags=_tags,
        owners=(
            ("class_declaration", "name", None),
            ("interface_declaration", "name", ""),
            ("enum_declaration", "name", None),
            ("record_declaration", "name", None),
        ),
        public_marker="public",
        not_calls=frozenset(),
        separator=".",
        modifiers="modifiers",
    ),
    module_path=_module_path,
    function_keyword=_TYPE,
    declaration_words=("class", "interface", "enum", "record", "import", "package"),
    local_binding=rf"(?:final\s+)?(?:{_TYPE}\s+)?",
    statement_end=r";",
    tuple_binding=None,
    tuple_element="",
    tuple_elements_named=(),
    loop_binding=r"^\s*for\s*\(\s*(?:final\s+)?[\w<>\[\],.?\s]+?\s+(?P<names>[A-Za-z_]\w*)\s*:"
                 r"\s*(?P<value>.+?)\s*\)\s*\{?\s*$",
    builtin_names=frozenset("String Integer Long Short Byte Double Float Boolean Character "
                            "Object Number null true false".split()),
    rethrow=r"throw\s+\w+\s*;",
    cli_arguments=None,
    handlers=(r"try\b.*\{",
              r"\}?\s*catch\s*\((?:final\s+)?(?P<types>[\w.| ]+?)\s+(?P<name>\w+)\s*\)\s*\{",
              r"throw\b", r"printStackTrace|\blog|\bLOG\b|System\.(?:out|err)"),
    declared_type=rf"(?<![\w.])({_DECLARED})\s+{{root}}(?=\s*[,)=;])",
    typed_binding=rf"(?<![\w.<])({_DECLARED})\s+{{root}}(?=\s*[,)=;])",
    actions={
        SiteKind.RAISE: "throws `{exc}` with this message",
        SiteKind.LOG: "logs this error (it is printed, not thrown)",
        SiteKind.WARN: "logs this warning (it is printed, not thrown)",
        SiteKind.ASSERT: "fails an `assert` with this message (only when the JVM runs "
        "with assertions enabled, `-ea`)",
    },
    variant_noun="an exception class whose constructor builds this message",
    unnamed_action="throws an exception with this message",
)
