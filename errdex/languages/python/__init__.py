"""Python, as errdex reads it: the tables of `SPEC`, the query in `queries.scm` and the
error-raising calls in `rules.toml`. Its extractor lives in `extractor.py` and its code
writer in `writer.py`, imported only when first asked for."""

from __future__ import annotations

import builtins
import keyword
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from errdex.languages.python.before import BEFORE
from errdex.languages.spec import LanguageSpec, Outline
from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from errdex.extract import Extractor
    from errdex.extract.structure import FileStructure
    from errdex.languages.writer import CodeWriter

# Names the page's Python code uses besides keywords and builtins.
_WORDS = """self cls e warnings catch_warnings simplefilter error v x
instance attribute operator os pickle copy"""


def _grammar() -> object:
    import tree_sitter_python

    return tree_sitter_python.language()


def _tags() -> str:
    import tree_sitter_python

    return str(tree_sitter_python.TAGS_QUERY)


def _module_path(path: str) -> str:
    from errdex.languages.python.strings import module_name

    return module_name(path)


def _importer(structures: Mapping[str, FileStructure]) -> Callable[[str, str], str | None]:
    from errdex.languages.python.importable import importer

    return importer(structures)


def _imports() -> ModuleType:
    from errdex.languages.python import imports

    return imports


def _groups() -> ModuleType:
    from errdex.languages.python import groups

    return groups


def _lazy() -> ModuleType:
    from errdex.languages.python import lazy

    return lazy


def _extractor() -> Extractor:
    from errdex.languages.python.extractor import PythonExtractor

    return PythonExtractor()


def _writer() -> CodeWriter:
    from errdex.languages.python import writer

    return writer.WRITER


SPEC = LanguageSpec(
    language=Language.PYTHON,
    package=__name__,
    suffixes=(".py",),
    test_names=(r"test_[^/]*\.py", r"[^/]*_test\.py", r"conftest\.py"),
    generated_names=(r"_pb2(_grpc)?\.py", r"_generated\.py"),
    comment="#",
    comment_nodes=frozenset({"comment"}),
    lexer="python",
    grammar=_grammar,
    query_names=("class", "factory", "raise", "assert", "call"),
    extractor=_extractor,
    writer=_writer,
    format_families=("printf", "braces"),
    test_idioms=(
        ("pytest.raises", r"\bpytest\.raises\b"),
        ("pytest.warns", r"\bpytest\.warns\b"),
        ("assertRaises", r"\bassert(?:Raises|Warns)(?:Regex)?\b"),
    ),
    capabilities=frozenset({"optional_type_checking", "exception_named_in_output",
                            "message_is_source_expression", "indentation_blocks", "docstrings",
                            "classes_resolve_by_name", "unsynchronised_sharing"}),
    bool_ops=(("or", r"\bor\b"), ("and", r"\band\b")),
    compare=r"==|!=|<=|>=|(?<!<)<(?![<=])|(?<!>)>(?![>=])"
    r"|\bnot\s+in\b|\bis\s+not\b|\bin\b|\bis\b",
    negation=r"not\b",
    conjunction=" and ",
    negated="not ({})",
    negation_yields_to_compare=False,
    char_literal=None,
    case_arm=r"match (.+?): case (.+)",
    pattern_guard=None,
    not_operand=r"\b(if|else|lambda|for)\b",
    reference_prefix=None,
    truth={"true": "be truthy (not None, empty or zero)", "false": "be falsy"},
    reserved_words=frozenset(_WORDS.split()) | frozenset(dir(builtins))
    | frozenset(keyword.kwlist),
    outline=Outline(
        tags=_tags,
        owners=(("class_definition", "name", None),),
        public_marker=None,
        not_calls=frozenset(),
        separator=".",
        private_prefix="_",
        package_entry="__init__.py",
        constructors=frozenset({"__init__", "__new__"}),
        instantiation=frozenset({"__init__", "__new__"}),
        attribute_hooks=frozenset({"__getattr__", "__dir__"}),
        lazy=lambda node: _lazy().lazy(node),
        bases="superclasses",
        dispatch=(r"getattr\(\s*self\s*,\s*(?:f?(?P<q>[\"'])(?P<prefix>[A-Za-z_]\w*)"
                  r"(?:(?P=q)\s*\+|\{|%s)|(?P<local>[A-Za-z_]\w*)\s*[,)])",
                  r"(?<![\w.]){local}\s*=\s*f?(?P<q>[\"'])(?P<prefix>[A-Za-z_]\w*)"
                  r"(?:(?P=q)\s*\+|\{|%s)"),
        class_attribute=r"(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=\s*"
                        r"(?P<type>[A-Za-z_][\w.]*)(?:\[[^\]]*\])?\(",
        descriptor_get="__get__",
        dynamic_read="getattr",
        import_paths=lambda text, path: _imports().import_paths(text, path),
        import_nodes=frozenset({"import_statement", "import_from_statement"}),
        returns=r"\breturn\b[^\n]*?(?<![\w.]){name}\b(?!\s*\()",
        returns_call=r"\breturn\s+(?<![\w.]){name}\s*\(",
        try_node="try_statement",
        handler_node="except_clause",
        groupings=lambda root, source: _groups().groupings(root, source),
    ),
    module_path=_module_path,
    function_keyword="def",
    declaration_words=("def", "class"),
    local_binding="",
    statement_end="",
    tuple_binding=r"^\s*\(?(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*,?\s*\)?\s*=(?!=)"
                  r"\s*(?P<value>[^=].*?)\s*$",
    tuple_element="{value}[{index}]",
    tuple_elements_named=(),
    loop_binding=r"^\s*(?:async\s+)?for\s+\(?(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?"
                 r"\s*\)?\s+in\s+(?P<value>.+?)\s*:\s*(?:#.*)?$",
    builtin_names=frozenset(dir(builtins)),
    inner_binding=r"\bfor\s+\(?(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\)?\s+in\b",
    loop_items=((r"^enumerate\((?P<value>[^,]+?)(?:,\s*(?:start\s*=\s*)?\d+)?\)$", 1, 2),),
    rethrow=r"raise",
    cli_arguments=r"^\s*(?P<name>\w+)\s*=\s*\w+\.parse_(?:known_|intermixed_)?args\(",
    handlers=(r"try\s*:", r"except\b\*?\s*(?P<types>[^:]*?)(?:\s+as\s+(?P<name>\w+))?\s*:",
              r"raise\b", r"exc_info|format_exc|traceback|print_exc|\blog|\bwarn|\bprint\b"
              # a helper that raises or exits itself (`self.handle_exception(..)`, argparse's
              # `self.error(..)`, `self.fail(..)`): the error does not stop there
              r"|(?:^|[\s(=])(?:\w+\.)*(?:handle_exception|_?fail|_?abort|_?raise_\w+|error)\s*\("),
    declared_type=r"(?<![\w.]){root}\s*:\s*([^,=)\n{]+)",
    typed_binding=r"(?<![\w.]){root}\s*:\s*[\"']?((?:[A-Za-z_]\w*\.)*[A-Z]\w*)"
    r"|(?<![\w.]){root}\s*=\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*)\(",
    actions={
        SiteKind.RAISE: "raises `{exc}` with this message",
        SiteKind.ASSERT: "fails an assert and raises AssertionError with this message "
        "(asserts are skipped under python -O)",
    },
    variant_noun="an exception class that builds this message itself",
    unnamed_action="raises an error with this message",
    importer=_importer,
    before=BEFORE,
)
