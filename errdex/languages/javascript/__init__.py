"""JavaScript, as errdex reads it: the tables of `SPEC`, the queries in `queries.scm` and
the error-making calls in `rules.toml` (`assert`, `invariant`, `console.error`). `throw
new Error(..)` and its kin, error classes and `Promise.reject` are read by the extractor
(`extractor.py`); the code writer is `writer.py`. TypeScript (`languages/typescript`)
is this folder's reader over its own grammar: it reuses every module here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.languages.spec import LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter

_WORDS = """break case catch class const continue debugger default delete do else export
extends finally for function if import in instanceof let new return super switch this throw
try typeof var void while with yield async await of null undefined true false NaN Infinity
Error TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError
Promise Object Array String Number Boolean Symbol Map Set JSON Math console assert err e
error message includes catch reject resolve then cause stack name code boolean number
string unknown any never object bigint symbol readonly keyof as is"""


def _grammar() -> object:
    import tree_sitter_javascript

    return tree_sitter_javascript.language()


def _tags() -> str:
    import tree_sitter_javascript

    return str(tree_sitter_javascript.TAGS_QUERY)


def module_path(path: str) -> str:
    """A file's module as an import names it, extension and `/index` dropped
    (`lib/shape.js` -> `lib/shape`, `src/index.ts` -> `src`)."""
    stem = path.replace("\\", "/").rsplit(".", 1)[0]
    return stem.removesuffix("/index") if stem != "index" else ""


def _extractor() -> Extractor:
    from errdex.languages.javascript.extractor import ScriptExtractor

    return ScriptExtractor(Language.JAVASCRIPT)


def _writer() -> CodeWriter:
    from errdex.languages.javascript import writer

    return writer.WRITER


# Test files of both languages: `x.test.js`, `x.spec.ts`, anything under `__tests__/`.
TEST_NAMES = (r"[^/]*\.(?:test|spec)\.[cm]?[jt]sx?", r"__tests__/.*")
TEST_IDIOMS = (
    ("toThrow", r"\.(?:toThrow|toThrowError|toThrowErrorMatchingInlineSnapshot)\("),
    ("rejects", r"\.rejects\.(?:toThrow|toThrowError)\("),
    ("assert.throws", r"\bassert\.(?:throws|rejects)\("),
)
ACTIONS = {
    SiteKind.RAISE: "throws `{exc}` with this message",
    SiteKind.BAIL: "creates `{exc}` with this message and hands it on (a rejected promise, "
    "a callback's `err`, a returned value) instead of throwing it here",
    SiteKind.ASSERT: "fails an assertion and throws `{exc}` with this message",
    SiteKind.WARN: "prints this warning (`console.warn`) and carries on",
    SiteKind.LOG: "prints this message with `console.error`; nothing is thrown",
}

# What Node, browsers and their consoles print before a message on its line.
OUTPUT_PREFIXES = (
    # `Uncaught TypeError: ..` (a browser console), `Uncaught (in promise) Error: ..`
    ("uncaught", r"Uncaught (?:\(in promise\) )?", "U"),
    # `(node:4242) UnhandledPromiseRejectionWarning: Error: ..`, `(node:1) [DEP0005] ..`
    ("node_process", r"\(node:\d{1,10}\)[ \t]+(?:\[[\w-]{1,40}\][ \t]+)?"
     r"(?:UnhandledPromiseRejectionWarning:[ \t]+)?", "("),
    # Node 15+: a rejection with a value that is not an Error names it in quotes.
    ("unhandled_rejection", r"\[UnhandledPromiseRejection: This error originated"
     r"[^\n]{0,400}? rejected with the reason \"(?P<msg>.*)\"\.\]", "["),
    # `TypeError [ERR_INVALID_ARG_TYPE]: ..`: Node's errors name their code.
    ("node_error_code", r"(?P<exc>[A-Z][\w$]{0,120}) \[[A-Z][A-Z0-9_]{1,100}\]:[ \t]+",
     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
)
# Stack frames: V8's `    at fn (file:line:col)`, `    at file:line:col`, `    at async fn
# (file:..)`, `    at Promise.all (index 0)`; Firefox's and Safari's `fn@file:line:col`.
OUTPUT_FRAMES = (
    r"[ \t]+at [^()\n]{0,500}\((?P<path>[^()\n]{1,1000}?):(?P<line>\d+):\d+\)[ \t]*$",
    r"[ \t]+at (?:async )?(?P<path>[^\s()]{1,1000}?):(?P<line>\d+):\d+[ \t]*$",
    r"[ \t]+at [^\n]{0,500}\((?:index \d+|native|<anonymous>)\)[ \t]*$|[ \t]+at <anonymous>$",
    r"[^\s@]{0,300}@(?P<path>[^\s@]{1,1000}?):(?P<line>\d+):\d+[ \t]*$",
    # Node's report of an uncaught error starts with the throwing line, quoted and marked:
    # `/app/lib/x.js:28`, the code, `    ^`; and ends with `Node.js v20.1.0`.
    r"(?:file://)?(?P<path>(?:[A-Za-z]:)?[\\/][^\s:]{1,1000}\.[cm]?[jt]sx?):(?P<line>\d+)[ \t]*$",
    r"[ \t]*\^+[ \t]*$",
    r"Node\.js v\d+\.\d+\.\d+[ \t]*$",
)

SPEC = LanguageSpec(
    language=Language.JAVASCRIPT,
    package=__name__,
    suffixes=(".js", ".mjs", ".cjs", ".jsx"),
    test_names=TEST_NAMES,
    # Bundles and minified builds are made from the sources, not written.
    generated_names=(r"[.-]min\.[cm]?js", r"\.bundle\.[cm]?js"),
    comment="//",
    comment_nodes=frozenset({"comment", "html_comment"}),
    lexer="javascript",
    grammar=_grammar,
    query_names=("throw", "new", "call", "error_class"),
    extractor=_extractor,
    writer=_writer,
    format_families=("printf",),  # console.error/util.format: `%s %d %o %j`
    test_idioms=TEST_IDIOMS,
    capabilities=frozenset({"exception_named_in_output", "message_is_source_expression",
                            "classes_resolve_by_name"}),
    bool_ops=(("or", r"\|\||\?\?"), ("and", r"&&")),
    compare=r"===|!==|==|!=|<=|>=|(?<![<=])<(?![<=])|(?<![>=])>(?![>=])",
    negation=r"!(?!=)",
    negated="!({})",
    conjunction=" && ",
    negation_yields_to_compare=True,
    char_literal=None,
    case_arm=None,
    pattern_guard=None,
    not_operand=r"=>|\?",
    reference_prefix=None,
    truth={"true": "be truthy (not null, undefined, 0 or empty)", "false": "be falsy"},
    reserved_words=frozenset(_WORDS.split()),
    outline=Outline(
        tags=_tags,
        owners=(("class_declaration", "name", None), ("class", "name", None)),
        public_marker=None,
        not_calls=frozenset(),
        separator=".",
    ),
    module_path=module_path,
    function_keyword="function",
    declaration_words=("function", "class", "export", "async"),
    local_binding=r"(?:const\s+|let\s+|var\s+)?",
    statement_end=r";?",
    tuple_binding=r"^\s*(?:const|let|var)\s+\[(?P<names>[^\[\]=]+)\]\s*=(?!=)\s*(?P<value>.+?);?\s*$",
    tuple_element="{value}[{index}]",
    tuple_elements_named=(),
    loop_binding=r"^\s*for\s*\(\s*(?:const|let|var)\s+(?P<names>[A-Za-z_$][\w$]*)\s+of\s+"
                 r"(?P<value>.+?)\s*\)\s*\{?\s*$",
    builtin_names=frozenset("undefined null NaN Infinity Number String Boolean Array Object "
                            "Symbol BigInt Function".split()),
    # JSDoc says a parameter's type: `@param {number} rank`.
    rethrow=r"throw\s+\w+\s*;?",
    cli_arguments=None,
    handlers=(r"try\s*\{", r"\}?\s*catch\s*(?:\(\s*(?P<name>\w*)\s*\))?\s*\{(?P<types>)",
              r"throw\b", r"console\.|\blog|\bemit\b|\bnext\(|callback|\bcb\("),
    declared_type=r"@param\s+\{([^}]+)\}\s+\[?{root}\b",
    typed_binding=r"@param\s+\{([A-Za-z_][\w.]*)\}\s+\[?{root}\b",
    actions=ACTIONS,
    variant_noun="an error class whose constructor builds this message",
    unnamed_action="throws an error with this message",
    output_prefixes=OUTPUT_PREFIXES,
    output_frames=OUTPUT_FRAMES,
)
