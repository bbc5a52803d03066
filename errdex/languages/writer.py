"""The shape of a language's code writer: the pieces of a page's code sections
(`errdex.write.snippets`) that are written differently in each language.

A writer only turns the page's facts into code text in its language; it decides nothing
about what the page says (that is `errdex.write.snippets` and `errdex.write.prose`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
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
