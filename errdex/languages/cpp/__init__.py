"""C++, as errdex reads it: C's reader (`languages/c`: its extractor, paths, messages and
rules) over tree-sitter-cpp's grammar, with what C++ adds: `throw` and exception classes
(its `queries.scm`), the checking macros of C++ libraries (its `rules.toml`, read after
C's: OpenCV's `CV_Assert`, PyTorch's `TORCH_CHECK`, glog's `CHECK(x) << ..`), methods
owned by classes and namespaces, and `try { } catch (const std::exception& e) { }` on
its pages."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from errdex.languages.c import SPEC as C
from errdex.languages.spec import LanguageSpec, Outline, read_rules_text
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.languages.writer import CodeWriter


@dataclass(frozen=True)
class _CppSpec(LanguageSpec):
    def rules_text(self) -> str:
        """C's rules (C++ calls the same C library and Python C API), then its own."""
        return read_rules_text(C.package) + "\n" + read_rules_text(self.package)


def _grammar() -> object:
    import tree_sitter_cpp

    return tree_sitter_cpp.language()


# Functions from their definitions (the grammar's own tags name declarators, prototypes
# included), methods defined in their class or out of it (`Shape::reshape`), and calls.
_TAGS = """
(function_definition declarator: (function_declarator declarator: [(identifier)
  (field_identifier)] @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  name: (identifier) @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (identifier) @name))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator
  declarator: [(identifier) (field_identifier)] @name))) @definition.function
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
"""


def _tags() -> str:
    return _TAGS


def _extractor() -> Extractor:
    from errdex.languages.c.extractor import CExtractor

    return CExtractor(Language.CPP)


def _writer() -> CodeWriter:
    from errdex.languages.cpp import writer

    return writer.WRITER


_WORDS = """class namespace template typename public private protected virtual override
final noexcept nullptr new delete throw try catch this operator explicit constexpr
static_cast dynamic_cast reinterpret_cast const_cast using std string vector
runtime_error invalid_argument out_of_range logic_error exception what find npos auto
bad_alloc system_error""".split()
_TEST_NAMES = (r"[^/]*_test\.(?:cc|cpp|cxx)", r"[^/]*_unittest\.(?:cc|cpp|cxx)",
               r"test_[^/]*\.(?:cc|cpp|cxx)", r"[^/]*Test\.(?:cc|cpp|cxx)")

# A declared C++ type before a name (one group): `int`, `const std::string&`,
# `std::vector<int64_t>`, `cv::Mat *`; never a statement's word (`return n;`).
_DECLARED = (r"((?!(?:return|else|case|goto|sizeof|do|throw|delete|new|co_return)\b)"
             r"(?:(?:const|unsigned|signed|struct|enum|class|typename)\s+)*[A-Za-z_][\w:]*"
             r"(?:<[^<>;(){}]*(?:<[^<>;(){}]*>[^<>;(){}]*)*>)?(?:\s*[*&]+)?)(?:\s+|(?<=[*&]))")

SPEC = _CppSpec(**{
    **{f.name: getattr(C, f.name) for f in fields(C)},
    "language": Language.CPP,
    "package": __name__,
    "suffixes": (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp",
                 ".inl", ".cu", ".cuh"),
    "test_names": _TEST_NAMES,
    "generated_names": (r"\.pb\.(?:cc|h)", r"moc_[^/]*\.cpp", r"_generated\.(?:cc|cpp|hpp)",
                        r"qrc_[^/]*\.cpp"),
    "lexer": "cpp",
    "grammar": _grammar,
    "query_names": ("call", "thrown", "exception_class", "constructor"),
    "extractor": _extractor,
    "writer": _writer,
    "format_families": ("printf", "braces"),
    "test_idioms": (
        *C.test_idioms,
        ("EXPECT_THROW", r"\b(?:EXPECT|ASSERT)_(?:THROW|ANY_THROW)\("),
        ("REQUIRE_THROWS", r"\b(?:REQUIRE|CHECK)_THROWS(?:_AS|_WITH|_MATCHES)?\("),
        ("HasSubstr", r"\bHasSubstr\("),
    ),
    "capabilities": C.capabilities | {"exception_named_in_output"},
    "reserved_words": C.reserved_words | frozenset(_WORDS),
    "outline": Outline(
        tags=_tags,
        owners=(("class_specifier", "name", None), ("struct_specifier", "name", None)),
        public_marker=None,
        not_calls=frozenset(),
        separator="::",
    ),
    "declared_type": rf"(?<![\w.:]){_DECLARED}\s*{{root}}(?=\s*[,)=;\[{{])",
    "typed_binding": rf"(?<![\w.:]){_DECLARED}\s*{{root}}(?=\s*[,)=;\[{{])",
    "truth": {"true": "be true", "false": "be false"},
    "rethrow": r"throw\s*;",
    "handlers": (r"try\s*\{", r"\}?\s*catch\s*\((?P<types>[^)&]*?)\s*&?\s*(?P<name>\w*)\s*\)\s*\{",
                 r"throw\b", r"std::cerr|\bLOG\(|\blog|printf|what\(\)"),
    "declaration_words": (*C.declaration_words, "class", "namespace", "template", "using"),
    # a range-for: `for (const auto& x : xs) {`
    "loop_binding": r"^\s*for\s*\(\s*(?:const\s+)?[\w:<>,]+(?:\s*[&*]+\s*|\s+)"
                    r"(?P<names>[A-Za-z_]\w*)\s*:(?!:)\s*(?P<value>.+?)\s*\)\s*\{?\s*$",
    "actions": {
        SiteKind.RAISE: "throws `{exc}` with this message",
        SiteKind.PANIC: "prints this message and ends the process (`abort()`, a failed "
        "glog CHECK)",
        SiteKind.ASSERT: "fails an assertion with this message (`assert` aborts in builds "
        "that keep assertions, not built with NDEBUG; a library's checking macro may "
        "throw instead)",
        SiteKind.LOG: "logs this error (it is printed, not thrown)",
        SiteKind.WARN: "logs this warning (it is printed, not thrown)",
    },
    "variant_noun": "an exception class whose constructor builds this message",
    "unnamed_action": "throws an exception with this message",
})
