"""The shape of a language's code writer: the pieces of a page's code sections
(`errdex.write.snippets`) that are written differently in each language.

A writer only turns the page's facts into code text in its language; it decides nothing
about what the page says (that is `errdex.write.snippets` and `errdex.write.prose`).
`BraceReading` and `BraceWriter` hold what the brace languages write alike, their
differences given as data by each language's writer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from errdex.models import Record, Site
    from errdex.write.pagefacts import PageFacts

# The comparisons every language writes the same way; a writer's `ops` starts from these.
COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


class CodeWriter(Protocol):
    @property
    def ops(self) -> Mapping[str, str]:
        """A relation ("eq", "is_not") -> how this language writes it."""
        ...

    comment: str  # starts a comment line
    inline_comment: str  # starts a comment after code on the same line
    statement_end: str  # ends an assignment statement
    binding: str  # declares a new local ("let "), or "" when assigning declares it
    keyword_arguments: bool  # a call can name its arguments (`f(x=1)`)
    copies_fields: bool  # a guarded struct field is copied once from the caller's value
    # `call(f)` writes, for a function users cannot call, code that parses in its place
    # (Python's `...  # your call that reaches x`); else the page writes no call for it
    writes_own_call: bool

    def negate(self, guard: str, *, bare: bool) -> str:
        """`guard` negated as code; `bare`: one term, written without parentheses."""
        ...

    def call(self, f: PageFacts) -> str:
        """How a caller reaches the site, arguments unknown."""
        ...

    def statement(self, f: PageFacts, call: str) -> str:
        """The call as a statement of the caller's code."""
        ...

    def caller_code(self, f: PageFacts, code: str) -> str:
        """Guard code as a caller would write it: `self.x` -> where `x` comes from."""
        ...

    def receiver_of(self, call: str) -> str | None:
        """The variable a user's call (as `user_call` writes it) is made on, when it is a
        method's call on a value (`var_map.get(..)`, Python's `round(decimal, ...)`)."""
        ...

    def caller_value(self, expression: str, text: str) -> str:
        """What a local or field is set from (`expression`, read from the line `text`), as
        the caller writes the same value: without a conversion that only changes its type
        (Rust's `shape.into()` is `shape`), fallible where the line is (`q.dim(1)?`)."""
        ...

    def checkable(self, f: PageFacts, guard: str) -> bool:
        """Whether `guard`, in the caller's terms, is code the caller can run on the values
        it holds (a pattern on what the site's function unwrapped from an argument is not)."""
        ...

    def if_block(self, condition: str, body: str) -> str: ...

    def validate(self, f: PageFacts, guard: str, plain: str, stmt: str) -> str:
        """Fail with `plain` when `guard` holds, then run `stmt`."""
        ...

    def predicate_body(self, positive: str) -> str:
        """The positive condition as the body of a check function."""
        ...

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        """A `{stem}_ok(params) -> bool` function returning `positive`."""
        ...

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        """A function telling whether a caught error is this one, by its text."""
        ...

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        """`call` with this error caught and translated to `advice`."""
        ...

    def passed_through(self, exception: str, wrapped: str, module: str,
                       declared: str) -> Wrapping | None:
        """How code produces the error `exception` that wraps a `wrapped` whole (its
        message the wrapped one's own), and the handler that tells it apart (`module`:
        the defining file's module as users write it, `declared` the line that declares
        it); None: the language has none."""
        ...

    # --- reading the site's snippet (errdex.write.reading) ---

    def is_comment(self, line: str) -> bool:
        """Whether the line is a comment line (doc comments included)."""
        ...

    def comment_text(self, line: str) -> str:
        """A comment line without its marker."""
        ...

    def opens_check(self, line: str) -> bool:
        """Whether the line holds a whole check: its condition and the raise together."""
        ...

    def exclusive_branch(self, line: str) -> bool:
        """Whether the line starts a branch that excludes the one before it (an `else`,
        an `elif`, another arm of a `match`)."""
        ...

    def defines(self, line: str, name: str) -> bool:
        """Whether the line starts the definition of function `name`."""
        ...

    def parameter_names(self, params: str) -> list[str]:
        """The names in a parameter list as written (`self` for the receiver)."""
        ...

    def public_by_name(self, site: Site) -> bool | None:
        """Whether the site's function is public by its name alone; None: not by name."""
        ...

    def public_header(self, header: str) -> bool | None:
        """Whether a function with this header is callable by a user; None: not known."""
        ...

    def doc_of(self, lines: list[str], index: int) -> str | None:
        """The doc comment of the function defined at `lines[index]`, joined."""
        ...

    def gives_error(self, header: str, function: str, exception: str | None) -> bool:
        """Whether a function with this header returns the error `exception` itself (a
        constructor of it: `fn with_path(self, p) -> Self` on the error type), not a
        result a caller can test or unwrap."""
        ...

    def settled_by(self, site: Site) -> int | None:
        """The line of a handler at the end of the site's own function that takes the
        error before a caller can (a promise chain ending in `.catch(..)`: awaiting the
        call never throws it); None when the error reaches the caller."""
        ...

    def exception_class(self, name: str | None) -> str | None:
        """`name` when it is an error type a caller can match; None when it is a helper
        that builds the error (`self._invalid`, `source.error`)."""
        ...

    def arguments(self, params: list[str], values: dict[str, str]) -> list[str] | None:
        """The arguments of a user's call of a function with `params`, `values` given for
        some (None: write them as unknown)."""
        ...

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        """A user's call of `function` (qualified as errdex names it) with `args`
        (None: not known); `is_method` None: not known whether it takes a receiver."""
        ...

    def accessed(self, f: PageFacts, call: str) -> str:
        """`call` of the site's own function as users run it when it is no plain call (a
        Python property is read or assigned, not called)."""
        ...


def raised_at(record: Record, site: Site) -> str | None:
    """The class the explained site raises, where a record's sites raise different ones
    (enum.py's `TypeError` of a message two other sites assert); else the record's."""
    from errdex.languages import spec_for  # the registry imports the writers

    own = site.exception
    if own and spec_for(site.language).writer().exception_class(own) is not None:
        return own
    return record.exception or own


def method_receiver(call: str) -> str | None:
    """`var_map` of `var_map.get(shape, ..)`: the value a method is called on."""
    m = re.match(r"([a-z_]\w*)\.\w+\(", call)
    return m.group(1) if m else None


def on_value(owner: str, method: str, listed: str) -> str:
    """A method of type `owner` called on a value of it, named after the type:
    `Shape.reshape` -> `shape.reshape(..)`."""
    return f"{owner[:1].lower() + owner[1:]}.{method}({listed})"


class BraceReading:
    """How a snippet of a brace language is read where those languages agree (see
    errdex.write.reading); a language gives its patterns as data and writes the rest."""

    check: re.Pattern[str]  # a line that holds a whole check: its condition and the raise
    strings: re.Pattern[str]  # a string literal, blanked before a line's start is looked at
    branch_words: tuple[str, ...] = ("} else", "else", "case ", "default:")
    comment_starts: tuple[str, ...] = ("//", "/*", "*")
    not_definition: tuple[str, ...] = ()  # a line starting so is a statement, not a header

    def is_comment(self, line: str) -> bool:
        return line.lstrip().startswith(self.comment_starts)

    def comment_text(self, line: str) -> str:
        return re.sub(r"^\s*(?://+|/\*+|\*+/?)\s?", "", line).removesuffix("*/").strip()

    def opens_check(self, line: str) -> bool:
        return self.check.match(line) is not None

    def may_define(self, line: str, name: str) -> bool:
        """Whether the line may be the header of function `name`: it holds the name and is
        not a statement (`return f(x);`, a declaration ending in `;`)."""
        if name not in line:  # no regex to build for most lines
            return False
        text = line.strip()
        return not (text.startswith(self.not_definition) or text.endswith(";"))

    def exclusive_branch(self, line: str) -> bool:
        text = self.strings.sub('""', line).strip()
        return text.startswith(self.branch_words)

    def exception_class(self, name: str | None) -> str | None:
        return name

    writes_own_call = False

    def gives_error(self, header: str, function: str, exception: str | None) -> bool:
        return False

    def settled_by(self, site: Site) -> int | None:
        return None

    def arguments(self, params: list[str], values: dict[str, str]) -> list[str] | None:
        return [values.get(p, p) for p in params]


@dataclass(frozen=True)
class Wrapping:
    """What a language's code does to turn one error into the error type that wraps it."""

    how: str  # "a `?` on a `Result<_, E>` in a function returning the library's `Result`"
    before: str  # code that converts it
    after: str  # the same code telling the wrapped error apart
    type_guard: str  # a test of a caught error for this variant
    try_catch: str  # a call with this variant caught
    # The calls known to return the wrapped type (`String::from_utf8`), whose conversions
    # the index finds; empty when none is known (any call might return one)
    producers: tuple[str, ...] = ()
    complete: bool = False  # those are all that return one: none converted means none is


class BraceWriter(BraceReading):
    """The code a brace language writes where those languages agree: `!` negates, `//`
    comments, `if (c) { .. }` blocks (`parenthesized` False: `if c { .. }`), a validation
    that runs `failure` (its `{plain}` the message) when the guard holds."""

    ops: Mapping[str, str] = COMPARISONS
    comment = "//"
    inline_comment = " //"
    statement_end = ";"
    binding = ""
    keyword_arguments = False
    copies_fields = True
    parenthesized = True  # an `if` writes its condition in parentheses
    indent = "    "
    failure: str  # the statement(s) that fail with the message `{plain}`
    receiver: str | None = None  # regex of the receiver a caller does not write (`this.`)
    methods_by_dot = False  # a function named `a.b` is a method (None: not known)

    def passed_through(self, exception: str, wrapped: str, module: str,
                       declared: str) -> Wrapping | None:
        return None

    def negate(self, guard: str, *, bare: bool) -> str:
        return f"!{guard.strip()}" if bare else f"!({guard})"

    def call(self, f: PageFacts) -> str:
        fn = f.site.function
        if not fn:
            return "..."
        return self.user_call(fn, None, "." in fn if self.methods_by_dot else None)

    def statement(self, f: PageFacts, call: str) -> str:
        return call if call == "..." else f"{call};"

    def caller_code(self, f: PageFacts, code: str) -> str:
        return re.sub(self.receiver, "", code) if self.receiver else code

    def receiver_of(self, call: str) -> str | None:
        return method_receiver(call)

    def caller_value(self, expression: str, text: str) -> str:
        return expression.strip()

    def checkable(self, f: PageFacts, guard: str) -> bool:
        return True

    def if_block(self, condition: str, body: str) -> str:
        head = f"({condition})" if self.parenthesized else condition
        return f"if {head} {{\n{self.indent}{body}\n}}"

    def validate(self, f: PageFacts, guard: str, plain: str, stmt: str) -> str:
        return f"{self.if_block(guard, self.failure.format(plain=plain))}\n{stmt}"

    def predicate_body(self, positive: str) -> str:
        return positive

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        raise NotImplementedError

    def accessed(self, f: PageFacts, call: str) -> str:
        return call
