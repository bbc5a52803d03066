"""The structure an extraction emits besides its sites, so analysis reads it instead of
re-reading or re-parsing a file: per site the whole path of conditions that leads to it
(as a tree), per function its parameters and assignments, and per file its outline
(definitions and calls), the typed bindings it declares and the identifiers it uses.

Frozen dataclasses of strings, ints and tuples only: extraction runs in worker
processes and every value here crosses to the parent by pickle. Nothing here reads a
file or knows a language; the extractors fill it and `errdex.analyze` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

# Condition kinds (`Condition.kind`).
TEST = "test"  # a leaf: an expression that is true here (`text`)
NOT = "not"  # the negation of its one part
MATCHES = "matches"  # `subject` matches the pattern `text` (a `match` arm, `if let`)
ANY = "any"  # at least one of its parts
ALL = "all"  # every one of its parts (an arm reached after the arms before it failed)
RAISED = "raised"  # `subject` raised one of `text` (a `try: return x` whose handler passes)

# Step kinds (`Step.kind`): why control reaches the site through this point.
IF = "if"  # inside an `if`/`elif`/`else if` branch (condition as written)
ELSE = "else"  # inside an `else` (the condition is the negation of the branches before)
ARM = "arm"  # inside a `match`/`case` arm
LET_ELSE = "let_else"  # in the `else` of `let PATTERN = value else`
EXCEPT = "except"  # inside an `except` clause
RULE = "rule"  # the rule's own failing condition (`!(c)` for `assert!(c)`, `not (c)`)
LOOP = "while"  # inside a `while` loop's body
EARLY_EXIT = "early_exit"  # an earlier check of the function that returns or raises
# unless this holds (`if c { return Err(..) }`, `if c: raise`, `ensure!(c, ..)`, `assert c`)
EARLY_RETURN = "early_return"  # an earlier check of the function that returns normally
# unless this holds (`if c { return Ok(..) }`, `if c: return x`): no error, no message
TRY = "try"  # an earlier `x?` of the function: `x` succeeded
# Call kinds (`OutlineCall.kind`).
PLAIN = ""  # a call of the name as written
DISPATCH = "prefix"  # a lookup on the receiver by a name built from a literal prefix
ITSELF = "itself"  # a function calling itself: no edge, only what it passes (`more` too)
# (`getattr(self, "visit_" + name)`): a call of each of its class's methods so named
# How a call of a definition runs its body (`OutlineDef.lazy`), when it does not at once.
AWAITED = "await"  # a coroutine (`async def`): its body runs when the call is awaited
ITERATED = "iterate"  # a generator (`yield`): its body runs as the value is iterated
ASYNC_ITERATED = "async iterate"  # an async generator: iterated with `async for`
MAX_STEPS = 32  # steps kept per site (the innermost): a path is bounded whatever the code


@dataclass(frozen=True)
class Condition:
    """A condition as a tree, with source comments already stripped from its text."""

    kind: str  # TEST, NOT, MATCHES or ANY
    text: str = ""  # TEST: the expression; MATCHES: the pattern
    subject: str = ""  # MATCHES: the value matched
    parts: tuple[Condition, ...] = ()  # NOT: one part; ANY: its alternatives


@dataclass(frozen=True)
class Step:
    """One enclosing construct on the way from the function's start to a site."""

    kind: str  # IF, ELSE, ARM, LET_ELSE, EXCEPT or RULE
    condition: Condition
    line: int  # where the construct starts


@dataclass(frozen=True)
class SitePath:
    """The whole path of conditions to the site (or construction) spanning `line` to
    `end_line`: outermost step first, the innermost (the site's guard) last."""

    line: int
    end_line: int
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class OutlineDef:
    """A function or method definition of the file, as the call graph sees it."""

    name: str
    owner: str | None  # the impl, trait or class that holds it
    line: int
    public: bool
    # In a trait impl (`impl CustomOp3 for Sdpa`): reached through a value of `owner`,
    # so the functions that build one are its callers, not those of every `name`.
    in_trait: bool = False
    end_line: int = 0  # where the definition ends (0: not known)
    params: tuple[str, ...] | None = None  # its parameters' names in order, `self` first
    # when it has a receiver, whatever the receiver's own name (None: not read)
    receiver: str | None = None  # the receiver's name as the code writes it (`self`, Go's
    # `c` of `func (c *Command)`), when it has one
    results: int | None = None  # how many values it returns, where the grammar lists them
    # (Go's `(T, error)`: 2); None: not read
    # Seen by name only near where it is written (errdex.analyze.scopes): a function
    # defined inside another (only that one calls it), or an item the language keeps in
    # its own module when unmarked (Rust's `fn` with no `pub` of any kind)
    local: bool = False
    returned: bool = False  # a nested function its own function returns (a decorator's
    # `wrapper`): what calls the returned value runs it, for that function's caller
    lazy: str = ""  # what a call of it gives instead of running its body (Outline.lazy):
    # AWAITED, ITERATED or both; "" when a call runs the body
    exposed: bool = False  # a mark exposes it to another language (pyo3's `#[pymethods]`)


@dataclass(frozen=True)
class FieldWrite:
    """An assignment to a field of the receiver (`self._eof = True`) in def `writer`."""

    field: str
    writer: int  # an index into the file's defs
    line: int
    value: str = ""  # what a plain `=` assigns, as written on one line (`loader`); else ""


RESULT = ")"  # ends the qualifier of a call on what a call or an index gives


@dataclass(frozen=True)
class OutlineCall:
    """A call written inside the definition `caller` (an index into the file's defs)."""

    name: str
    caller: int
    qualifier: str  # the owner written before the name (`Owner::name(`), or "", or,
    # ending in RESULT, the call whose value it is called on (`storage_mut()` of
    # `self.storage_mut().fill(`; RESULT alone when unknown), "super" for the parent's
    # The arguments as written (`Python`'s `key=value` too), for a call with an argument
    # list: a check on the callee's parameters is restated on these. None: not a plain call.
    arguments: tuple[str, ...] | None = None
    kind: str = PLAIN  # PLAIN, ITSELF, or DISPATCH: `name` is the prefix of the names called
    # The handlers around the call that catch and do not raise again, innermost first:
    # (the types they name as written, "" for a bare one; the handler's line).
    caught: tuple[tuple[str, int], ...] = ()
    # A literal of the type `name` (`Op { mask: None, scale }`): the fields it sets, with
    # their values as written; () when it is no literal, or the caller writes several
    fields: tuple[tuple[str, str], ...] = ()
    # The arguments of its further calls there that differ from the first's, in order; a
    # None at the end when there were more than the outline keeps (errdex.analyze.fixedargs)
    more: tuple[tuple[str, ...] | None, ...] = ()


@dataclass(frozen=True)
class Grouping:
    """A handler of the function defined at `function_line` that keeps the error it
    catches and raises all it kept later, together inside one group error: its caller
    gets the group, not the error. `group` is the group's class as written, or "" when
    the keeping and the raising are methods (`keeps`, one of `raises`) of an object of
    another class (a `Collector`, found by those names)."""

    function_line: int
    types: str  # the types the handler catches, as written
    line: int  # the handler's line
    group: str = ""
    message: str | None = None  # the group's message, when written as a literal
    keeps: str = ""  # the method of the object it hands the caught error to
    raises: tuple[str, ...] = ()  # the methods it calls later on that object


@dataclass(frozen=True)
class Collector:
    """A class whose method `keeps` stores its argument and whose method `raises` raises
    everything stored inside one group error of class `group`."""

    owner: str
    keeps: str
    raises: str
    group: str
    message: str | None = None  # the group's message, when the method writes a literal


@dataclass(frozen=True)
class TypedBinding:
    """A name declared with a type (`cfg: &Config`, `cfg: Config`), ending on `line`."""

    name: str
    type_name: str
    line: int


@dataclass(frozen=True)
class Gate:
    """Lines of the file that only some builds compile (`#[cfg(feature = "metal")]` on an
    item): `condition` as the code writes it (`feature = "metal"`)."""

    line: int
    end_line: int
    condition: str


@dataclass(frozen=True)
class CommandOption:
    """A command-line option a file declares: the field of the parsed value that holds it
    (`args.model_path`) and how the user writes it (`--model-path`, `-m`; `<input>` for a
    positional argument), with its default as written."""

    owner: str  # the type whose parsed value holds it (`Args`); "" when no type does
    field: str
    flag: str
    positional: bool = False
    default: str | None = None
    line: int = 0


@dataclass(frozen=True)
class CommandRead:
    """A local assigned from a command-line option (`let use_local =
    args.model_path.is_some();`): a check on the local is one on the flag."""

    name: str
    expression: str
    line: int
    text: str = ""  # the statement as written


@dataclass(frozen=True)
class FileStructure:
    """Everything about one file that analysis needs besides its sites."""

    path: str = ""  # posix, relative to the snapshot root
    paths: tuple[SitePath, ...] = ()
    defs: tuple[OutlineDef, ...] = ()
    calls: tuple[OutlineCall, ...] = ()
    typed: tuple[TypedBinding, ...] = ()
    identifiers: frozenset[str] = frozenset()
    writes: tuple[FieldWrite, ...] = ()
    types: frozenset[str] = frozenset()  # the names of the types (classes) it defines
    # The names it imports or exports (`from ._parser import loads`, `__all__`): what a
    # package entry re-exports
    imported: frozenset[str] = frozenset()
    # Files of the tree this file keeps out of every build, relative to the root (Rust's
    # `#[cfg(test)] mod tests;` names `src/tests.rs`): errdex.extract.unbuilt drops them
    test_only: tuple[str, ...] = ()
    # The files of the modules it keeps to its own crate (`mod vision;`, no `pub`), and the
    # names its re-exports make public (`pub use tensor::Tensor`): errdex.analyze.visibility
    hidden_modules: tuple[str, ...] = ()
    reexported: frozenset[str] = frozenset()
    gates: tuple[Gate, ...] = ()  # its items only some builds compile
    # Files and folders of the tree it declares under a build condition, relative to the
    # root, with the condition (`#[cfg(feature = "metal")] mod metal_backend;`: the module's
    # two possible files and its submodules' folder): all that is built only then
    gated_files: tuple[tuple[str, str], ...] = ()
    # The command-line options it declares (a clap `#[derive(Parser)]` struct's fields)
    options: tuple[CommandOption, ...] = ()
    reads: tuple[CommandRead, ...] = ()  # the locals set from one of those options
    # The values an option of an enum type takes, each (the variant as code writes it,
    # as the user types it): (`Which::Mistral7bV01`, `7b-v0.1`) of a clap `ValueEnum`
    option_values: tuple[tuple[str, str], ...] = ()
    # The classes it defines with the names of their bases (`class A(ast.NodeVisitor)`:
    # ("A", ("NodeVisitor",))): a method a base looks up by name may be a subclass's
    bases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (class, the class of an object its body sets as a class attribute): reading the
    # attribute runs that class's `__get__` (Python's descriptors)
    held: tuple[tuple[str, str], ...] = ()
    # (a name its imports bind, the path it names from the root, as the language writes a
    # module path): `use candle_nn::Linear;` binds `Linear` to `candle_nn::Linear`
    import_paths: tuple[tuple[str, str], ...] = ()
    # Its handlers that gather the errors they catch into one group error raised later,
    # and its classes that gather errors so (errdex.analyze.grouped)
    groupings: tuple[Grouping, ...] = ()
    collectors: tuple[Collector, ...] = ()

    def def_at(self, line: int) -> OutlineDef | None:
        """The innermost definition spanning `line`, when the outline knows its end."""
        inside = [d for d in self.defs if d.line <= line <= d.end_line]
        return max(inside, key=lambda d: d.line, default=None)

    def path_at(self, line: int, end_line: int) -> SitePath | None:
        """The condition path of the site spanning `line`..`end_line`, if recorded."""
        for path in self.paths:
            if path.line == line and path.end_line == end_line:
                return path
        return None
