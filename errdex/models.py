"""The plain, frozen data that flows between errdex's stages.

Every stage (source, extract, store, analyze, match) takes and returns these types and
nothing else, so no stage needs to know another's internals. Nothing here does I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from errdex.extract.structure import FileStructure


class Language(StrEnum):
    RUST = "rust"
    PYTHON = "python"
    GO = "go"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    JAVA = "java"
    C = "c"
    CPP = "cpp"


class SiteKind(StrEnum):
    """How an error leaves the code at a site."""

    RAISE = "raise"  # Python `raise X(...)`
    BAIL = "bail"  # Rust `bail!` / `anyhow!` / `ensure!` / `Err(...)` / `Error::msg`
    PANIC = "panic"  # Rust `panic!`, `unreachable!`, `unimplemented!`, `todo!`
    ASSERT = "assert"  # `assert!`-family with a message, Python `assert cond, msg`
    EXPECT = "expect"  # Rust `.expect("...")`
    CONTEXT = "context"  # Rust `.context(...)` / `.with_context(...)`
    ERROR_ENUM = "error-enum"  # a constructed error variant/class whose type owns the text
    WARN = "warn"  # Python `warnings.warn(...)`, a logged warning (`log.warning(...)`)
    LOG = "log"  # a logged error (`logger.error(...)`, `log::error!`): printed, not raised


@dataclass(frozen=True)
class Placeholder:
    """A hole in a message template, filled at run time."""

    name: str  # a readable name, unique within its template: "k", "dtype", "arg0"
    expression: str  # the source expression that fills it: "k_l.shape()", "" if unknown
    spec: str = ""  # the format spec as written: ":?", "!r", "%d", ":>8"


@dataclass(frozen=True)
class Template:
    """A message as literal text around placeholders.

    `literals` always has exactly one more element than `placeholders`; literal i comes
    before placeholder i. `message` is the text as written in the source.
    """

    message: str
    literals: tuple[str, ...]
    placeholders: tuple[Placeholder, ...] = ()

    def __post_init__(self) -> None:
        if len(self.literals) != len(self.placeholders) + 1:
            raise ValueError("a template needs one more literal than placeholders")

    @staticmethod
    def literal(text: str) -> Template:
        return Template(message=text, literals=(text,))

    @property
    def key(self) -> str:
        """The normalized text that identifies the template: holes as `{}`."""
        escaped = [part.replace("{", "{{").replace("}", "}}") for part in self.literals]
        return "{}".join(escaped)

    @property
    def text(self) -> str:
        """The normalized template with named placeholders: `shape mismatch k {k}`."""
        out = [self.literals[0].replace("{", "{{").replace("}", "}}")]
        for hole, lit in zip(self.placeholders, self.literals[1:], strict=True):
            out.append("{" + hole.name + "}")
            out.append(lit.replace("{", "{{").replace("}", "}}"))
        return "".join(out)

    @property
    def literal_chars(self) -> int:
        return sum(len(part.strip()) for part in self.literals)


@dataclass(frozen=True)
class Snippet:
    start_line: int
    code: str


@dataclass(frozen=True)
class Site:
    """One place in the code that can produce an error message."""

    language: Language
    kind: SiteKind
    exception: str | None  # "ValueError", "candle::Error", "Error::ShapeMismatchBinaryOp"
    template: Template
    path: str  # posix, relative to the snapshot root (as tracebacks print it)
    line: int  # 1-based line of the raising expression
    end_line: int
    function: str | None  # qualified: "StreamingMultiheadAttention::forward", "pkg.m.C.f"
    guard: str | None  # the condition that leads here, as written ("self.kv_repeat != 1")
    snippet: Snippet
    # Literal values the site passes for placeholders, e.g. {"op": "matmul"}.
    bound: tuple[tuple[str, str], ...] = ()
    # An error variant's or exception class's name and fields in declared order, to match
    # a Debug form `Variant { a: .., b: .. }` (a class's: MessageDefinition.attributes).
    variant: str | None = None
    variant_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class MessageDefinition:
    """A type whose own display text is the message (a thiserror variant, an exception
    class that builds its message in `__init__`/`__str__`). Its sites are where it is
    constructed, found in a second pass."""

    language: Language
    name: str  # the variant or class name: "ShapeMismatchBinaryOp", "ParseError"
    owner: str | None  # the enum for a Rust variant ("Error"), the module for Python
    template: Template
    fields: tuple[str, ...]  # declared field names in order ("0", "1" for tuple variants)
    path: str
    line: int
    # What is raised when it isn't the definition itself: a helper function that builds
    # and raises an exception from its argument (`self.fail(msg)` raising TemplateError).
    exception: str | None = None
    # What a caught value lets its user read, when that is not `fields` (an exception's
    # `__init__` parameters are not its attributes: the public `self.x` it assigns, and
    # the accessors returning the private ones, `getMessage()`); None: the fields.
    attributes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Construction:
    """A place that builds a value of some type without giving a message of its own.
    It becomes a Site if the type turns out to have a MessageDefinition."""

    language: Language
    type_path: str  # as written: "Error::ShapeMismatchBinaryOp", "errors.ParseError"
    path: str
    line: int
    end_line: int
    function: str | None
    guard: str | None
    snippet: Snippet
    field_values: tuple[tuple[str, str], ...] = ()  # field -> expression as written
    raised: bool = False  # Python: constructed inside `raise`
    # False when the type is a class of this very file with no message of its own: it must
    # not borrow another file's definition of the same name.
    resolvable: bool = True
    message_given: bool = False  # the call passes a literal message (a Site exists too)
    # Fields or arguments passed as formatted text (`format!(..)`, a literal, an f-string):
    # field -> that text's template, inlined into the type's own (errdex.extract.compose).
    payloads: tuple[tuple[str, Template], ...] = ()
    # A value of `type_path` converted into the error its function returns (Rust's `?` on
    # a call returning that error type): that error type as written, "" for the module's
    # own result alias. It resolves to the variant that wraps `type_path`, not to a name.
    converts_into: str | None = None


@dataclass(frozen=True)
class Helper:
    """A function of the library found to raise the message its caller gives it
    (`[[noreturn]] void fail(const std::string &why) { throw std::runtime_error(why); }`):
    discovered by the extractor, not listed in a rule. Its calls, in any file of the
    repository, are sites of the caller's message (errdex.extract.helpers turns it into a
    `Rule` for a second reading of the files that call it)."""

    language: Language
    name: str  # as its calls write it: `pybind11_fail`, `set_error`
    kind: SiteKind
    message_arg: int  # the parameter whose argument is the message
    path: str
    line: int
    arity: int | None = None  # how many parameters it takes (None: variadic)
    exception: str | None = None  # what it raises, when fixed
    guard_arg: int | None = None  # the parameter that must hold (`check(ok, msg)`)
    format_args: bool = False  # the message is a format its next arguments fill
    # Its calls are read in every file already (the language finds them by their name):
    # no file is read again for it.
    calls_read: bool = False
    # What only the language's reader understands (C's `printed`, `exception_arg`), as
    # its rules.toml writes it: handed back to it through the rule, unread elsewhere.
    details: tuple[tuple[str, str | int | bool], ...] = ()


@dataclass(frozen=True)
class FileExtraction:
    sites: tuple[Site, ...] = ()
    definitions: tuple[MessageDefinition, ...] = ()
    constructions: tuple[Construction, ...] = ()
    helpers: tuple[Helper, ...] = ()  # the error helpers this file defines
    dynamic_sites: int = 0  # error sites whose message has no literal text at all
    structure: FileStructure | None = None  # paths, outline, typed names, identifiers


@dataclass(frozen=True)
class SourceFile:
    path: str  # posix, relative to the snapshot root
    absolute: str
    language: Language


@dataclass(frozen=True)
class Snapshot:
    """What the user named, resolved: a tree of files at a known version."""

    repo: str  # "huggingface/candle", "pypi/packaging", "local/mydir"
    commit: str | None  # full sha, or None for a plain directory
    commit_date: str | None  # ISO 8601
    version: str | None  # a release version where known ("24.1")
    root: str  # absolute path of the tree on disk
    url_base: str | None  # "https://github.com/o/r/blob/<ref>/" + path prefix, or None
    files: tuple[SourceFile, ...] = ()
    skipped: tuple[tuple[str, int], ...] = ()  # reason -> count

    def url_for(self, path: str, line: int, end_line: int | None = None) -> str | None:
        if self.url_base is None:
            return None
        anchor = f"#L{line}" if not end_line or end_line == line else f"#L{line}-L{end_line}"
        return f"{self.url_base}{path}{anchor}"


@dataclass(frozen=True)
class ExampleFix:
    before: str
    after: str


@dataclass(frozen=True)
class Defensive:
    strategy: str
    validate: str
    type_guard: str
    try_catch: str


@dataclass(frozen=True)
class Explanation:
    summary: str
    what_it_means: str
    solutions: tuple[str, ...]
    example_fix: ExampleFix
    defensive: Defensive
    prevention: tuple[str, ...]
    trigger: str
    common_situations: tuple[str, ...]
    source: str = "facts"  # "facts" | "llm"
    model: str | None = None
    notes: tuple[str, ...] = ()  # why a writer's section was not used ("llm: solutions: ...")


@dataclass(frozen=True)
class Related:
    id: str
    message: str
    reason: str  # "same function", "same file", "similar text"


@dataclass(frozen=True)
class FailureClass:
    slug: str
    title: str
    by: str = "rules"  # "rules" | "similar text": how the record was assigned to it


@dataclass(frozen=True)
class Location:
    """A place in the indexed code: where an error type's display text is written (the
    record's `definition`), with its permalink when the snapshot has one."""

    path: str
    line: int
    url: str | None = None


@dataclass(frozen=True)
class Record:
    """One distinct error of a repository: a template and every site that raises it."""

    id: str
    repo: str
    commit: str | None
    commit_date: str | None
    version: str | None
    language: Language
    kind: SiteKind
    exception: str | None
    template: Template
    sites: tuple[Site, ...]
    site_urls: tuple[str | None, ...]  # parallel to `sites`
    explanation: Explanation | None = None
    related: tuple[Related, ...] = ()
    failure_class: FailureClass | None = None
    facts: RecordFacts | None = None  # what the prose was written from (errdex.analyze.facts)
    # Where the error type's display text is written (a thiserror variant's #[error], an
    # exception class's message), for records whose type owns the text; None until known.
    definition: Location | None = None


def record_id(repo: str, template: Template, exception: str | None = None) -> str:
    """Stable across commits and line moves: only the repo and the template text count,
    and for a message with no fixed text at all, the exception type that carries it."""
    key = template.key if template.literal_chars or not exception else f"{{}}\x00{exception}"
    return hashlib.sha256(f"{repo}\x00{key}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Match:
    """A record found in pasted text, with the values the text puts in its holes."""

    record_id: str
    score: float  # 0..1: how much of the matched text the template's literals explain
    exact: bool  # every literal found in order (False: nearest record by word overlap)
    values: tuple[tuple[str, str], ...]  # placeholder name -> text
    span: tuple[int, int]  # character offsets in the input
    why: str = ""
    site_index: int | None = None  # the site a traceback frame points at, if any


@dataclass(frozen=True)
class MatchEntry:
    """What the matcher needs of one record, without the page's prose: the store builds
    these, the matcher compiles them."""

    record_id: str
    repo: str
    exception: str | None  # "ValueError", "Error::ShapeMismatchBinaryOp", None
    template: Template
    sites: tuple[tuple[str, int], ...]  # (path relative to the repo root, line), in order
    variant: str | None = None  # Rust error variant whose #[error] text is the template
    variant_fields: tuple[str, ...] = ()  # its fields in declared order
    language: str = "python"  # "python" | "rust"
    version: str | None = None  # the indexed snapshot's release version, where known
    kind: str = ""  # the record's SiteKind value: a "log" record is printed, not raised


@dataclass(frozen=True)
class Listing:
    """A record as a list shows it (the store's listing, search and class reads): enough
    to pick one, without its prose or snippets."""

    id: str
    repo: str
    language: str
    kind: str
    exception: str | None
    message: str
    path: str  # the first site's
    line: int
    site_count: int


@dataclass(frozen=True)
class Repository:
    """An indexed snapshot (one version of a repository) as the store lists it, with its
    record count: `ref` is what the snapshot is keyed by (its release version, else its
    commit, else "" for a plain directory), `versions` the refs of every indexed version
    of the repository, newest first."""

    repo: str
    ref: str
    commit_sha: str | None
    commit_date: str | None
    version: str | None
    indexed_at: str
    records: int
    versions: tuple[str, ...]


RecordStatus = Literal["current", "removed", "absent"]


@dataclass(frozen=True)
class RecordVersion:
    """A record in one indexed version of its repository: `status` says whether its
    message is there ("current"), was removed before it ("removed") or is not there at
    all ("absent"); `changed`, that its sites differ from the last version before that
    had it current."""

    ref: str
    version: str | None
    commit_sha: str | None
    indexed_at: str
    status: RecordStatus
    changed: bool


@dataclass(frozen=True)
class IndexSummary:
    repo: str
    commit: str | None
    files_read: int
    skipped: tuple[tuple[str, int], ...]
    sites_by_kind: tuple[tuple[str, int], ...]
    records: int
    dynamic_sites: int
    seconds: float
    extra: dict[str, int] = field(default_factory=dict)
    # The error helpers found in the code (errdex.extract.helpers): `name (path:line)`.
    helpers: tuple[str, ...] = ()


# -- facts read out of the code for a record (written by errdex.analyze.facts) -----------------


@dataclass(frozen=True)
class OriginFact:
    """Where a guarded value comes from: a field set from a config, a local, a parameter."""

    name: str  # the guarded name: "kv_repeat"
    how: str  # "field" | "local" | "parameter" | "filled" | "item" (errdex.analyze.origins)
    expression: str  # what it is set from ("cfg.kv_repeat"), or the parameter's type
    path: str
    line: int
    text: str  # the source line, stripped
    source: str | None = None  # the typed origin: "Config.kv_repeat", "env KEY", "shape of q"


@dataclass(frozen=True)
class PathStep:
    """A condition that holds whenever the site is reached (errdex.analyze.reached): an
    enclosing branch, a `match` arm after the arms before it, an earlier `return` that
    was not taken. `text` says it in words, code in backticks ("`paged` is true")."""

    kind: str  # errdex.extract.structure's step kinds: if, else, arm, early_return, ...
    line: int
    text: str
    # For an arm reached after the arms before it failed to match: the value matched,
    # and the patterns of those arms (what the code handles instead of this arm's case).
    subject: str = ""
    handled: tuple[str, ...] = ()
    # An `else` step's branches before it, each (its line, its condition as written):
    # taking one of them is a way past the site (several when neighbours were merged).
    branches: tuple[tuple[int, str], ...] = ()
    # An `except` step's one statement in its `try` (`self.spawn(cmd)`): what raised.
    tried: str = ""
    returns_when: str = ""  # an earlier `return` not taken: when it is, in words (a way past)
    closed: bool = False  # an `if` whose other branch raises an error of its own: no way out


@dataclass(frozen=True)
class Setter:
    """A method that assigns a field, and the line it does so on."""

    function: str
    line: int


@dataclass(frozen=True)
class StateFact:
    """A field of the object that a check reads, and where the object's class sets it."""

    field: str  # as the guard reads it: "_eof"
    set_in: tuple[Setter, ...]  # each assignment in its class, in source order
    # The caller that builds the object in the same call, when only its constructor sets
    # the field (`TestCase.assertRaises` makes an `_AssertRaisesContext` of its argument):
    # that call's arguments decide, not earlier calls.
    built_by: str | None = None
    # The constructor's parameter the field is assigned from (`self.loader = loader` in
    # `__init__(self, loader=None)`), when only that constructor sets it: the user gives it.
    argument: str | None = None


@dataclass(frozen=True)
class SiblingCheck:
    """Another check in the same function, in source order."""

    record_id: str
    message: str
    line: int
    guard: str | None
    requirement: str | None
    position: str  # "before" | "after" this site, "apart": on a branch its path excludes
    when: tuple[str, ...] = ()  # what its own path adds to this site's: checked only then


@dataclass(frozen=True)
class EntryPoint:
    """A public function or method that reaches the site's function (by name)."""

    function: str
    path: str
    line: int
    depth: int  # 1: calls the function directly
    arguments: tuple[str, ...] | None = None  # a direct caller's arguments, as written
    parameters: tuple[str, ...] | None = None  # that caller's own parameters (`self` first)
    # The fields of the value the site's method runs on that its path needs set, each
    # with the parameter of this function its literal sets it from (`mask: mask.cloned()`)
    set_from: tuple[tuple[str, str], ...] = ()
    # The group error it raises this one inside (`ExceptionGroup`), having caught it in
    # a handler (on line `group_at` of its file) that keeps it: its caller gets the group,
    # whose message is `group_message` when written as a literal
    group: str | None = None
    group_message: str | None = None
    group_at: int | None = None
    lazy: str = ""  # a call of it gives a coroutine or a generator (OutlineDef.lazy)


@dataclass(frozen=True)
class TestRef:
    """A place in the repository's tests that triggers or expects this error."""

    path: str
    line: int
    kind: str  # "pytest.raises" | "assertRaises" | "should_panic" | "is_err" | "mentions"
    text: str  # the line, stripped


@dataclass(frozen=True)
class History:
    """When the message appeared and last changed in the repository's git history."""

    introduced_commit: str | None = None
    introduced_date: str | None = None
    introduced_tag: str | None = None  # the first tag that contains the commit
    changed_commit: str | None = None
    changed_date: str | None = None
    removed: bool = False  # the message is gone from the indexed code; the record is kept
    removed_commit: str | None = None  # the commit whose diff removed it, when git tells
    removed_date: str | None = None
    introduced_path: str | None = None  # the file the introducing commit added it to
    changed_path: str | None = None  # the file the last change touched


@dataclass(frozen=True)
class CommandFlag:
    """A field of the parsed command line a check reads, as the user writes it."""

    field: str  # as the code reads it: "model_path"
    flag: str  # "--model-path", "-m"; "<input>" for a positional argument
    default: str | None = None  # as the code writes it: "\"turbo\"", "3"
    value: str | None = None  # a local the site's function holds a part of it in
    # (`use_local`), with what it holds (`args.model_path.is_some()`) in `expression`
    expression: str | None = None


@dataclass(frozen=True)
class Program:
    """How the user runs the code a site is in, when it is a program of its own (an
    example, a binary, a build script), not a function a user calls."""

    kind: str  # "run" (the user runs it) | "build" (cargo runs it while building)
    command: str  # "cargo run --example z_image --", "cargo build -p x --features cuda"
    parsed: str | None = None  # the name the site's function holds its parsed flags in
    flags: tuple[CommandFlag, ...] = ()  # the flags the check (or its path) reads
    # The values of those flags that the check (or its path) names, each (as the code
    # writes it, as the user types it): (`Which::Mistral7bV01`, `7b-v0.1`)
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SiteFacts:
    path: str
    line: int
    function: str | None
    guard: str | None
    requirement: str | None
    origins: tuple[OriginFact, ...] = ()
    siblings: tuple[SiblingCheck, ...] = ()
    entry_points: tuple[EntryPoint, ...] = ()
    reached: tuple[PathStep, ...] = ()  # what else holds on the way here, outermost first
    # The site's function's parameters, `self` first when it has one (None: not known),
    # read from the file's structure, not from what the snippet happens to show.
    parameters: tuple[str, ...] | None = None
    public: bool | None = None  # the site's function is callable by users (from its tree)
    lazy: str = ""  # a call of it gives a coroutine or generator (OutlineDef.lazy)
    results: int | None = None  # how many values the site's function returns, if known
    # Fields of the receiver the guard reads, each with the methods that set it
    # (`self._eof` set by `write_eof`): state an earlier call left, not an argument.
    state: tuple[StateFact, ...] = ()
    exception: str | None = None  # the class it raises as users import it
    # The build conditions the site is compiled under, outermost first, as the code writes
    # them (`feature = "metal"` of `#[cfg(feature = "metal")]`): other builds lack it.
    built_when: tuple[str, ...] = ()
    # How the user runs the program the site is in, and the flags its check reads
    program: Program | None = None
    # Where the library catches the error leaving the site's private function: every call
    # of it (or its private caller) is in a try whose handler carries on ("path:line" each)
    caught_by: tuple[str, ...] = ()
    # The parameters every call of the (internal) function passes a literal, with the
    # literals (errdex.analyze.fixedargs): `key` of darknet's `get`, `("filters", ..)`
    fixed: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class RecordFacts:
    sites: tuple[SiteFacts, ...]
    tests: tuple[TestRef, ...] = ()
    history: History | None = None
