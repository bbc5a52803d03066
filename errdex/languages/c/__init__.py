"""C, as errdex reads it: the tables of `SPEC`, the queries in `queries.scm` and the
error-making calls in `rules.toml` (`assert`, `fprintf(stderr, ..)` before `abort()`,
the Python C API's `PyErr_SetString`/`PyErr_Format`). Its extractor lives in
`extractor.py` and its code writer in `writer.py`, imported only when first asked for.
C++ (`languages/cpp`) is this reader over tree-sitter-cpp's grammar, with `throw`,
exception classes and the C++ libraries' checking macros added.

What the C runtime prints around a message is read here too: glibc's failed `assert`
(`prog: file.c:12: func: Assertion `x' failed.`), glog's `F1201 12:00:00.000123 123
file.cc:45] Check failed: ..`, a C++ `terminate called after throwing an instance of
'std::runtime_error'` with its `  what():  msg`, OpenCV's `OpenCV(4.8.0) file:line:
error: (-215:Assertion failed) ..`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex.languages.spec import C_FAMILY_CONDITIONS, LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter

_WORDS = """auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while bool true false NULL size_t ssize_t
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t errno stderr stdout
fprintf printf abort exit strlen memcpy malloc free assert PyObject PyErr_Occurred
PyErr_ExceptionMatches PyErr_Clear PyErr_SetString Py_ssize_t strstr strcmp result line
rc e x n""" + " ".join("PyExc_" + name for name in """BaseException Exception ArithmeticError
AssertionError AttributeError BufferError EOFError ImportError ModuleNotFoundError
IndexError KeyError LookupError MemoryError NameError NotImplementedError OSError IOError
OverflowError RecursionError ReferenceError RuntimeError StopIteration SyntaxError
SystemError TypeError UnicodeError UnicodeDecodeError UnicodeEncodeError ValueError
ZeroDivisionError FileNotFoundError FileExistsError PermissionError TimeoutError
BlockingIOError ConnectionError BrokenPipeError KeyboardInterrupt Warning UserWarning
DeprecationWarning PendingDeprecationWarning RuntimeWarning FutureWarning
ResourceWarning""".split())
# A C type as it stands before a declared name: `const char *`, `unsigned long`, `size_t`,
# `struct shape *` (no capture group: callers number their own).
_TYPE = (r"(?:(?:const|volatile|unsigned|signed|struct|enum|union|static|register)\s+)*"
         r"[A-Za-z_]\w*(?:\s+(?:long|int|char|short|double))?(?:\s*\*+\s*|\s+)")
# A declared type before a parameter's or local's name (one group): `int`, `const char *`,
# `struct shape *`; never a statement's word (`return n;`).
_DECLARED = (r"((?!(?:return|else|case|goto|sizeof|do)\b)(?:(?:const|unsigned|signed|struct|enum"
             r"|union)\s+)*[A-Za-z_]\w*(?:\s*\*+)?)(?:\s+|(?<=\*))")
# A function's return type, before its name (`static bool`, `PyObject *`, `const
# std::string&`): how a definition line starts.
_RETURNS = (r"(?:(?:const|unsigned|signed|struct|enum|union|static|inline|extern|register"
            r"|constexpr|virtual)\s+)*[A-Za-z_][\w:]*(?:<[^<>()]*>)?(?:\s*[*&]+)?")
_SOURCE = r"c|h|cc|cpp|cxx|c\+\+|hpp|hh|hxx|cu|cuh|m|mm|inl|ipp"
# What a C or C++ runtime prints before a message (the shared paste scanner reads them).
OUTPUT_PREFIXES = (
    # glibc's failed assert: `prog: src/shape.c:12: shape_reshape: Assertion ..`; musl
    # and others print the condition elsewhere but keep `file:line`.
    ("c_location", rf"(?:[\w.\-+/]{{1,200}}: )?(?P<path>[^\s:]{{1,500}}\.(?:{_SOURCE})):"
     r"(?P<line>\d+):[ \t]+", None),
    # glog: `F1201 12:00:00.000123  4242 shape.cc:45] Check failed: ..` (severity, date,
    # time, thread id, file:line).
    ("glog", r"[FEWI]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?[ \t]+\d{1,10} "
     r"(?P<path>[^\s:\]]{1,500}):(?P<line>\d+)\][ \t]+", "FEWI"),
    # A C++ exception nobody caught: its text follows `what():` on the second line.
    ("cpp_what", r"what\(\):[ \t]+", "w"),
    # OpenCV's `cv::Exception`: `OpenCV(4.8.0) /src/x.cpp:12: error: (-215:..) ..`.
    ("opencv", r"OpenCV\([\w.\-]{1,40}\) (?P<path>[^\s:]{1,500}):(?P<line>\d+): error: ", "O"),
)
# Lines that say how the process died, not what the message is.
OUTPUT_FRAMES = (
    r"terminate called after throwing an instance of '[^'\n]{1,300}'[ \t]*$",
    r"\*\*\* Check failure stack trace: \*\*\*[ \t]*$",
    r"[ \t]+@[ \t]+0x[0-9a-f]{1,16}[ \t][^\n]{0,500}$",  # glog's `    @     0x7f.. main`
    r"(?:Aborted|Segmentation fault)(?: \(core dumped\))?[ \t]*$",
    # gdb's and libunwind's `#3  0x.. in shape_reshape (n=2) at src/shape.c:12`
    r"#\d{1,4}[ \t]+(?:0x[0-9a-f]{1,16} in )?[^\n]{0,300}? at (?P<path>[^\s:]{1,500}):"
    r"(?P<line>\d+)[ \t]*$",
)


def _grammar() -> object:
    import tree_sitter_c

    return tree_sitter_c.language()


# The grammar's own tags name a function by its declarator (prototypes too, and without
# the body its calls are in): functions are read from their definitions here instead.
TAGS = """
(function_definition declarator: (function_declarator declarator: (identifier) @name))
  @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (identifier) @name))) @definition.function
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
"""


def _tags() -> str:
    return TAGS


def _module_path(path: str) -> str:
    """C has no modules a caller names: a file's functions are called by name alone."""
    return ""


def _extractor() -> Extractor:
    from errdex.languages.c.extractor import CExtractor

    return CExtractor(Language.C)


def _writer() -> CodeWriter:
    from errdex.languages.c import writer

    return writer.WRITER


SPEC = LanguageSpec(
    language=Language.C,
    package=__name__,
    suffixes=(".c", ".h"),
    test_names=(r"test_[^/]*\.[ch]", r"[^/]*_tests?\.[ch]", r"[^/]*_unittest\.[ch]"),
    generated_names=(r"\.pb-c\.[ch]", r"_generated\.[ch]", r"(?:^|/)generated/[^\n]+\.[ch]"),
    comment="//",
    comment_nodes=frozenset({"comment"}),
    lexer="c",
    grammar=_grammar,
    query_names=("call",),
    extractor=_extractor,
    writer=_writer,
    format_families=("printf",),
    test_idioms=(
        ("EXPECT_DEATH", r"\b(?:EXPECT|ASSERT)_(?:DEATH|EXIT)\("),
        ("expect_assert_failure", r"\bexpect_assert_failure\("),
        ("pytest.raises", r"\bpytest\.raises\("),
    ),
    capabilities=frozenset({"bare_type_names", "message_is_source_expression",
                            "unsynchronised_sharing"}),
    helpers_reach=frozenset({Language.C, Language.CPP}),
    **C_FAMILY_CONDITIONS,
    reference_prefix=r"^(?:&|\*)+",
    truth={"true": "be true (non-zero)", "false": "be false (zero)"},
    reserved_words=frozenset(_WORDS.split()),
    outline=Outline(
        tags=_tags,
        owners=(),
        public_marker=None,
        not_calls=frozenset(),
        separator=".",
    ),
    module_path=_module_path,
    function_keyword=_RETURNS,
    declaration_words=("struct", "typedef", "enum", "union", "#define", "#include",
                       "static", "extern"),
    local_binding=rf"(?:{_TYPE})?",
    statement_end=r";",
    tuple_binding=None,  # C has no destructuring
    tuple_element="",
    tuple_elements_named=(),
    builtin_names=frozenset("NULL char short int long float double size_t ssize_t int8_t "
                            "int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t".split()),
    rethrow=None,  # C raises nothing to catch: errors are returned or abort
    cli_arguments=None,
    handlers=None,
    declared_type=rf"(?<![\w.]){_DECLARED}\s*{{root}}(?=\s*[,)=;\[])",
    typed_binding=rf"(?<![\w.]){_DECLARED}\s*{{root}}(?=\s*[,)=;\[])",
    actions={
        SiteKind.RAISE: "sets the Python exception `{exc}` with this message (raised "
        "in the calling Python code)",
        SiteKind.PANIC: "prints this message and ends the process (`abort()`/`exit()`)",
        SiteKind.ASSERT: "fails an `assert` with this message and aborts (only in builds "
        "that keep assertions, not built with NDEBUG)",
        SiteKind.LOG: "logs this error (it is printed, the program goes on)",
        SiteKind.WARN: "issues this warning (printed, not raised)",
    },
    variant_noun="an error whose text is this message",
    unnamed_action="reports an error with this message",
    output_prefixes=OUTPUT_PREFIXES,
    output_frames=OUTPUT_FRAMES,
)
