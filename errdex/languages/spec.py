"""What errdex knows about one language, as one frozen table: `LanguageSpec`.

Shared modules read a field or ask for a capability here instead of testing a language by
name, so a language is added by filling one spec in its own folder. This module holds the
shape of the table and the loaders of a folder's data files (`queries.scm`, `rules.toml`);
it must not hold any one language's values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from errdex.models import Language, SiteKind

if TYPE_CHECKING:
    from tree_sitter import Node

    from errdex.extract import Extractor
    from errdex.extract.structure import FileStructure
    from errdex.languages.writer import CodeWriter

# How the languages of C's family write a condition (the LanguageSpec fields of that
# name, errdex.analyze.guards): `||` and `&&`, the comparisons (a `<` or `>` not part of
# `<<`, `->` or `<-`), `!` negating, `'c'` a character. A spec spreads it (`**`) and
# writes after it what its language does otherwise.
C_FAMILY_CONDITIONS: Mapping[str, Any] = {
    "bool_ops": (("or", r"\|\|"), ("and", r"&&")),
    "compare": r"==|!=|<=|>=|(?<![<\-=])<(?![<=\-])|(?<![>\-=])>(?![>=])",
    "negation": r"!(?!=)",
    "conjunction": " && ",
    "negated": "!({})",
    "negation_yields_to_compare": True,
    "char_literal": r"'(?:\\.[^']*|[^'\\])'",
    "case_arm": None,
    "pattern_guard": None,
    "not_operand": None,
}

# Capabilities a shared module may ask for (`spec.can(...)`); every spec names only these.
CAPABILITIES = frozenset(
    {
        "errors_propagate_by_return",  # an error is a value the caller gets back (`Err`, `?`)
        "exception_named_in_output",  # the runtime prints the exception's type with the text
        "message_is_source_expression",  # a template's `message` is the source expression
        "fields_read_through_self",  # a guard reads struct fields through `self.`
        "indentation_blocks",  # blocks are made by indentation (nesting is also indent depth)
        "docstrings",  # a snippet may start inside a triple-quoted string
        "classes_resolve_by_name",  # a constructed type resolves by its last name alone
        "variants_named_by_path",  # an error variant is named by its type's path (`E::V`)
        "optional_type_checking",  # wrong types are caught by a checker the user may run
        "bare_type_names",  # a declared type may be a bare lowercase name (`n int`)
        "unsynchronised_sharing",  # threads may share a mutable object with no lock enforced
    }
)

_SECTION = re.compile(r"^;; query: ([a-z_]+)\s*$", re.MULTILINE)


def read_queries(package: str) -> dict[str, str]:
    """The named queries of a language folder's `queries.scm`: each starts at a
    `;; query: NAME` line and runs to the next one."""
    text = resources.files(package).joinpath("queries.scm").read_text(encoding="utf-8")
    marks = list(_SECTION.finditer(text))
    return {
        m.group(1): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        .strip()
        for i, m in enumerate(marks)
    }


def read_rules_text(package: str) -> str:
    """The built-in rules of a language folder (`rules.toml`), as text for the loader."""
    return resources.files(package).joinpath("rules.toml").read_text(encoding="utf-8")


@dataclass(frozen=True)
class AppliedOp:
    """A library method that runs the methods of a value it is handed: a custom op
    (`xs.apply_op3(k, v, op)` runs `op`'s `cpu_fwd(s1, l1, s2, l2, s3, l3)`). The
    functions that apply a value of a type are the callers of that type's methods
    (errdex.analyze.applied), and the method's parameters are the applying call's values."""

    trait: str  # the trait the value's type implements: its impl's file names it
    calls: frozenset[str]  # the methods that apply the value (its last argument)
    runs: frozenset[str]  # the trait's methods they run
    operands: int  # the values the run method gets, in order: the call's receiver, then
    # its arguments before the op (a call through the type, `Tensor::apply_op2(&a, &b,
    # op)`, passes the receiver first)
    per_operand: int  # the run method's parameters per operand after its receiver
    # (`storage, layout`: 2)


@dataclass(frozen=True)
class Outline:
    """How a file's functions, their owners and the calls they write are read from its
    tree (errdex.extract.outline): the grammar's own tags query, whose
    `@definition.function`/`@definition.method` and `@reference.call` captures (each with
    `@name`) it uses, plus the folder's `tags` query section for what that lacks."""

    tags: Callable[[], str]  # the grammar's TAGS_QUERY
    owners: tuple[tuple[str, str, str | None], ...]  # (node type, field naming the owner,
    # field whose presence makes it a trait or trait impl, "" for always, None for never)
    # of the blocks that hold functions; every function in a trait block is public
    public_marker: str | None  # a definition's child type that makes it public (`pub`);
    # None: public unless its name or its owner's starts with `_`
    not_calls: frozenset[str]  # node types the tags query counts as calls that are not
    separator: str  # between an owner and its function in a qualified name
    receiver: str | None = None  # a definition's field naming its owner's type (Go's
    # `func (e *T) Error()`): the owner, when no owner block holds it
    exported_by_capital: bool = False  # public when its name starts with a capital letter
    results: str | None = None  # a definition's field listing what it returns (Go's
    # `result`), so written code takes as many values as the call gives back
    public_text: str | None = None  # the public marker's text when others restrict it
    # (Rust's `pub`, not `pub(crate)` or `pub(super)`: those are the crate's own)
    private_prefix: str | None = None  # a module (file or folder) named with it is private
    # (`_base.py`): its definitions are public only when a package entry re-exports them
    package_entry: str | None = None  # the file of a folder that re-exports (`__init__.py`)
    modifiers: str | None = None  # a definition's child node that holds its modifier
    # words (Java's `modifiers`): `public_marker` is looked for among its children too
    exposed_by: frozenset[str] = frozenset()  # attributes that make a function, or every
    # function of the block they mark, callable from outside whatever its own mark says
    # (pyo3's `#[pymethods]`: Python calls them as methods of the class it exposes)
    attribute: str | None = None  # the node type of an attribute written above an item
    lazy: Callable[[Node], str] | None = None  # of a definition's node, what a call of it
    # gives instead of running its body (errdex.extract.structure's AWAITED, ITERATED,
    # ASYNC_ITERATED), "" for a plain function; None: the language has no such functions
    attribute_hooks: frozenset[str] = frozenset()  # a module's functions run by reading
    # an attribute of it, never called (Python's `__getattr__`, `__dir__`: PEP 562)
    instantiation: frozenset[str] = frozenset()  # the methods a call of the class runs
    # (Python's `__init__`: `Point(1, 2)` runs `Point.__init__`)
    constructors: frozenset[str] = frozenset()  # the methods that build an object when its
    # class is called (`__init__`): fields they set come from that call's arguments
    bases: str | None = None  # a type definition's field listing what it derives from
    # (Python's `superclasses`): a method its base looks up by name may be the subclass's
    dispatch: tuple[str, str] | None = None  # (regex of a lookup on the receiver by a
    # name built from a literal: group `prefix`, or group `local` for a local holding it;
    # regex of that local's assignment, `{local}` its name, group `prefix`)
    class_attribute: str | None = None  # regex of a statement of a class body that sets
    # a class attribute to a new object (groups `name`, `type`): `name = _Validator()`
    descriptor_get: str | None = None  # the method a class attribute's class runs when
    # the attribute is read (Python's `__get__`), and the call that reads one by a
    dynamic_read: str | None = None  # name computed at run time (Python's `getattr`)
    applied: tuple[AppliedOp, ...] = ()  # methods running a value's trait methods
    try_node: str | None = None  # the node type of a try statement: its handlers that
    handler_node: str | None = None  # (this node type) catch and do not raise again
    # are recorded for each call in its body (`LanguageSpec.handlers` reads their text)
    # A definition with no public marker of any kind (not even a restricted one) is seen
    # only in its module and the modules inside it (Rust's `fn f`, not `pub(crate) fn f`)
    unmarked_local: bool = False
    # From an import statement's text and its file's path, the names it binds with the
    # paths they name from the root (`use super::Linear;` in `m::a` binds `Linear` to
    # `m::Linear`): an `Owner::name(..)` call goes to the imported Owner's
    import_paths: Callable[[str, str], tuple[tuple[str, str], ...]] | None = None
    import_nodes: frozenset[str] = frozenset()  # the node types of the statements it reads
    # regex of a statement returning the function named `{name}` as a value (not its
    # call's result): `return wrapper`; a nested function so returned escapes its function
    returns: str | None = None
    # A statement returning a call of `{name}` as the function's own value (`return
    # _tokenize(readline, encoding)`): a call of a lazy `{name}` makes the function lazy too
    returns_call: str | None = None
    # What handles a call's result so that its error stops there, besides a try around it
    # (Rust's `match f(x) { Ok(v) => .., Err(_) => fallback }`, `f(x).ok()`): from the
    # call's node and the file's bytes, those handlers as (types, "" for any; line)
    result_handlers: Callable[[Any, bytes], tuple[tuple[str, int], ...]] | None = None
    # The fields a literal of a type sets, with their values as written, from the literal's
    # node (Rust's `Op { mask: None, scale }`): what the value's methods find in them
    literal_fields: Callable[[Any, bytes], tuple[tuple[str, str], ...]] | None = None
    # Of a condition (a match's subject and pattern, or a test: subject ""), the field of
    # the receiver named by the third argument that must hold a value for it to hold
    # (`self.mask.as_ref()` against `Some(m)`: `mask`)
    needed_field: Callable[[str, str, str], str | None] | None = None
    absent: str | None = None  # the literal that holds no value (Rust's `None`)
    # From a file's tree and bytes, its handlers that keep what they catch and raise it
    # later inside a group error, and its classes that keep errors so (Python's
    # `ExceptionGroup`): (groupings, collectors) of errdex.extract.structure
    groupings: Callable[[Any, bytes], tuple[tuple[Any, ...], tuple[Any, ...]]] | None = None


@dataclass(frozen=True)
class BeforeCheck:
    """What the code written before a check does to the condition that leads to it, for a
    language whose idioms change it (errdex.analyze.before, errdex.analyze.origins). Each
    answer is code in the language's own syntax, so every section of a page reads one
    condition, or words for a page; None (or "") when the idiom is not there."""

    # (the one statement a `try` ran, the classes its handler catches) -> the condition,
    # as code, under which it does not raise them: a way past the handler
    # (`x = getattr(obj, name)` with `AttributeError`: `hasattr(obj, name)`)
    way_past: Callable[[str, str], str | None]
    # (the guard, the code of the site's function before it, whether that code starts at
    # the function's definition: else the snippet starts inside it) -> the guard over what
    # that code left of the value (`kwargs` after `del kwargs['command']`: the keys but
    # those); None also when the code the snippet leaves out may change it
    restate: Callable[[str, str, bool], str | None]
    # a guard (or a part of one) that `restate` writes -> (subject, relation, object) of
    # the test it is (errdex.analyze.guards' `Leaf`)
    predicate: Callable[[str], tuple[str, str, str] | None]
    # (an expression a value is computed as, the code before it) -> what it reads, in
    # words ("the byte size of `buf`"), when its idiom says so
    value_kind: Callable[[str, str], str | None]
    fills: str  # regex of the methods that fill a collection in place (`append`)


@dataclass(frozen=True)
class LanguageSpec:
    """Every per-language table errdex uses; see each field's comment for who reads it."""

    language: Language
    package: str  # the folder's package: queries.scm and rules.toml are read from it
    suffixes: tuple[str, ...]  # source files of this language (source walk, test files)
    test_names: tuple[str, ...]  # regexes over a file name: a test file, not the library's
    generated_names: tuple[str, ...]  # regexes over a path's end: generated, not written
    comment: str  # the line-comment marker, for written code and for stripping comments
    comment_nodes: frozenset[str]  # the grammar's comment node types (kept out of guards)
    lexer: str  # the pygments lexer name for the web page's code
    grammar: Callable[[], object]  # the tree-sitter language capsule
    query_names: tuple[str, ...]  # the queries its queries.scm must hold
    extractor: Callable[[], Extractor]  # a fresh extractor (imported when first asked)
    writer: Callable[[], CodeWriter]  # the code writer for the page's code sections
    format_families: tuple[str, ...]  # `braces`, `printf`: how its messages are formatted
    test_idioms: tuple[tuple[str, str], ...]  # (idiom, regex) of a test expecting an error
    capabilities: frozenset[str]
    # Conditions turned into requirements (errdex.analyze.guards):
    bool_ops: tuple[tuple[str, str], ...]  # (op, regex) for `or` and `and`, loosest first
    compare: str  # regex of the comparison operators a condition splits on
    negation: str  # regex of a prefix that negates a condition (`not `, `!`)
    negated: str  # how the extractor writes a negated condition: `!({})`, `not ({})`
    conjunction: str  # how it joins two conditions that must both hold: ` && `, ` and `
    negation_yields_to_compare: bool  # `!a == b` compares; only `!a` negates
    char_literal: str | None  # regex of a one-character literal at a `'`; None: `'` quotes
    case_arm: str | None  # regex (value, pattern) of a guard written as a `case` arm
    pattern_guard: str | None  # the prefix of a `let PATTERN = value else` guard
    not_operand: str | None  # regex: an operand holding this is not a plain value
    reference_prefix: str | None  # regex of the borrow/deref marks a shown value drops
    truth: Mapping[str, str]  # "true"/"false" -> what a bare value must be
    reserved_words: frozenset[str]  # names written code may use without the library having them
    outline: Outline
    module_path: Callable[[str], str]  # a file's module as users write it ("" unknown):
    # `candle-nn/src/ops.rs` -> `candle_nn::ops`, `json/__init__.py` -> `json`
    # Where a guarded value comes from (errdex.analyze.origins):
    function_keyword: str  # the word that starts a function definition
    declaration_words: tuple[str, ...]  # words that start a definition line (not an assignment)
    local_binding: str  # regex before a local's name in its assignment (`let mut `)
    statement_end: str  # regex of what may end a statement (`;?`)
    # A destructuring assignment line (`let (b, t, c) = x.dims3()?;`, `h, w = x.shape`):
    # regex with groups `names` (comma-separated) and `value`; None: the language has none
    tuple_binding: str | None
    tuple_element: str  # element `{index}` of a destructured `{value}` as code: `{value}.{index}`
    # (regex over the value, element as code): a value whose elements have a name of their
    # own (`x.dims3()?` -> `x.dim(1)`), tried before `tuple_element`
    tuple_elements_named: tuple[tuple[str, str], ...]
    typed_binding: str  # regex with `{root}`: `root` declared with a type (one group)
    declared_type: str  # regex with `{root}`: the type written for a parameter or field
    # named `root` (one group), for written code (`x: usize`, Go's `x int`)
    rethrow: str | None  # regex of a statement re-raising what a handler caught (`raise`)
    # (try line, handler line with groups `types` (empty: any) and `name` (the caught
    # value), a raising statement, a handler handing the error on: printing, logging,
    # passing it to a callback) as regexes over stripped lines: a raise its own handler
    # catches and does not hand on never leaves; None: no exceptions to catch
    handlers: tuple[str, str, str, str] | None
    # regex of a statement binding the parsed command line (group `name`): `let args =
    # Args::parse();` (clap), `args = parser.parse_args()`; its fields are the flags
    cli_arguments: str | None
    # Page wording by kind where it differs from the shared default (errdex.write.pagefacts):
    actions: Mapping[SiteKind, str]
    unnamed_action: str  # the action when a `{exc}` wording has no exception to name
    variant_noun: str  # what an error type whose display text is the message is called
    # What its runtime prints around a message, for reading pastes (errdex.match):
    output_prefixes: tuple[tuple[str, str, str | None], ...] = ()  # (name, regex, the
    # characters a match can start with) of what stands before a message on its line
    # (`Uncaught `); named groups as in errdex.match.prefixes.PrefixRule
    output_frames: tuple[str, ...] = ()  # regexes of a whole stack-frame line (`    at f
    # (x.js:1:2)`): structure, not message; groups `path` and `line` say where it ran
    # From the snapshot's structures, how an exception class written in a file is named by
    # users who import it: (name as written, path) -> dotted name, None if not known
    # (`errors.HeaderParseError` of `email/_header_value_parser.py` -> `email.errors...`).
    importer: Callable[[Mapping[str, FileStructure]], Callable[[str, str], str | None]] | None \
        = None
    # The languages whose files call the error helpers this one's files define (C++ calls
    # C's `die(..)`, C calls a C++ header's `extern "C"` one); itself when empty.
    helpers_reach: frozenset[Language] = frozenset()
    # Other languages a page's code may be written in (a Rust wasm-bindgen `JsError` is
    # caught in the JavaScript that calls it); `errdex check` reads their words there too.
    snippet_languages: tuple[Language, ...] = ()
    # From the snapshot's root and its files' paths, the files (of any language) that its
    # build files say no build compiles (a package's build script naming what it builds).
    unbuilt: Callable[[str, Iterable[str]], frozenset[str]] | None = None
    # A build condition of the code (errdex.models.SiteFacts.built_when) as a page says it,
    # given the site's function and path: `feature = "metal"` -> "in builds with the
    # `metal` feature", or "on a Metal device" for that backend's own code
    build_condition: Callable[[str, str | None, str], str] | None = None
    # For a build condition every site of a page is compiled under, and the site's path:
    # how to build so that other code runs instead (a feature left off), else None
    build_fix: Callable[[str, str], str | None] | None = None
    # How a file is run when it is a program of its own, not a library's code: (path, the
    # build conditions of its file's items around the site, the identifiers the file uses)
    # -> ("run", the command that runs it) or ("build", the command whose build runs it); None for a
    # library's code, or a program something else than its user runs
    program: Callable[[str, tuple[str, ...], frozenset[str]], tuple[str, str] | None] | None \
        = None
    # regex of the calls after a flag's field that keep its value (`.as_deref()`)
    cli_accessors: str = ""
    # (regex over a local's value after the flag's field, whether it says the flag was
    # given): `use_local = args.model_path.is_some()` is true when `--model-path` is given
    cli_presence: tuple[tuple[str, bool], ...] = ()
    # (regex, replacement) over a phrase once its flags are written in: a pattern test of
    # an optional flag (`--x` matches `None`) is whether it was given
    cli_phrases: tuple[tuple[str, str], ...] = ()
    # regex of a call that appends a literal part (group `part`) to a path: Rust's
    # `.join("vae")`; a path built from a flag so is said as a file under that flag
    path_segment: str = ""
    # regex of the method names whose result is an optional value (Rust's `last`, `get`):
    # a fallback on such a call means it had nothing to give, not that it failed
    optional_results: str = ""
    # What code before a check does to what it tests (None: nothing errdex reads)
    before: BeforeCheck | None = None
    # A loop header binding each item of a collection in turn (`for name in names:`): regex
    # with groups `names` (comma-separated) and `value`; None: errdex reads no such loop
    loop_binding: str | None = None
    # (regex over the loop's value with group `value`, the item's position among the
    # names, how many names): a value that yields more than its items (`enumerate(xs)`
    # -> `xs`, its item the second of two names) or a view of them (`xs.iter()`)
    loop_items: tuple[tuple[str, int, int], ...] = ()
    # regex of what binds names inside one expression (a comprehension's `for c in`, a
    # closure's `|x|`), group `names` (comma-separated): those names are no values read
    inner_binding: str = ""
    # Names of the language itself a check can compare with (`str` of `type(x) is not str`,
    # Rust's `usize`): not values the caller passes
    builtin_names: frozenset[str] = frozenset()

    def can(self, capability: str) -> bool:
        """Whether the language has `capability` (one of CAPABILITIES)."""
        if capability not in CAPABILITIES:
            raise ValueError(f"unknown capability {capability!r}")
        return capability in self.capabilities

    def queries(self) -> dict[str, str]:
        return read_queries(self.package)

    def rules_text(self) -> str:
        return read_rules_text(self.package)
