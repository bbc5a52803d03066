"""The C++ code of a page's code sections: C's (`languages/c/writer.py`: validating,
the check function, how a snippet is read), with `Type::method` called on a value,
`throw std::invalid_argument(..)` to validate, and `try { } catch (const X& e) { }`
handlers that look at `e.what()`. It writes code text from the page's facts only."""

from __future__ import annotations

import json

from errdex.analyze import facts
from errdex.languages.c.writer import CWriter
from errdex.languages.c.writer import spaced as _spaced
from errdex.languages.writer import on_value
from errdex.models import SiteKind
from errdex.write.pagefacts import PageFacts

_ABORTS = (SiteKind.PANIC, SiteKind.ASSERT)


class CppWriter(CWriter):
    failure = "throw std::invalid_argument({plain});"

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split("::")
        listed = "/* ... */" if args is None else ", ".join(args)
        if len(parts) > 1 and parts[-1] == parts[-2]:  # a constructor: `Shape::Shape`
            return f"{parts[-1]}({listed})"
        # `Type::method`: called on a value of the type (a namespace is lower case)
        if is_method is not False and len(parts) > 1 and parts[-2][:1].isupper():
            return on_value(parts[-2], parts[-1], listed)
        return f"{function}({listed})"

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        # A parameter whose type the page does not know is written `const auto&` (C++20):
        # it compiles for whatever the caller holds.
        typed = ", ".join(f"{_spaced(facts.declared_type(f.site, p) or 'const auto&')}{p}"
                          for p in params)  # fmt: skip
        return f"static bool {stem}_ok({typed}) {{\n    return {positive};\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        if f.site.kind is not SiteKind.RAISE:
            return super().error_test(f, stem, literal)
        return (f"static bool is_{stem}_error(const std::exception& e) {{\n"
                f"    return std::string(e.what()).find({literal}) != std::string::npos;\n}}")

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        stmt = self.statement(f, call)
        if f.site.kind in _ABORTS or f.site.kind in (SiteKind.LOG, SiteKind.WARN):
            return super().try_catch(f, call, literal, advice)
        exc = _caught(f)
        return (f"try {{\n    {stmt}\n}} catch (const {exc}& e) {{\n"
                f"    if (std::string(e.what()).find({literal}) != std::string::npos) {{\n"
                f"        throw std::invalid_argument({json.dumps(advice)});\n"
                f"    }}\n    throw;\n}}")  # fmt: skip


def _caught(f: PageFacts) -> str:
    """The class a caller catches: the site's; `std::exception` for a Python exception
    name (a macro's error reaches C++ callers as `c10::Error` or `cv::Exception`)."""
    exc = f.exc_class or f.record.exception or "std::exception"
    if "::" in exc or (exc[:1].isupper() and not exc.endswith(("Error", "Exception"))):
        return exc
    if exc in ("RuntimeError", "ValueError", "IndexError", "TypeError", "KeyError",
               "NotImplementedError"):
        return "std::exception"
    return exc if exc[:1].isupper() else f"std::{exc}"


WRITER = CppWriter()
