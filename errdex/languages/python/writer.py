"""The Python code of a page's code sections: calls with keyword arguments,
`if ...: raise`, `def ..._ok(..) -> bool` and `try`/`except` handlers. It writes code
text from the page's facts only; what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import re

from errdex.languages.writer import COMPARISONS
from errdex.models import SiteKind
from errdex.write.pagefacts import PageFacts, quote


class PythonWriter:
    ops = COMPARISONS | {"is": "is", "is_not": "is not", "in": "in", "not_in": "not in"}
    comment = "#"
    inline_comment = "  #"
    statement_end = ""
    binding = ""
    keyword_arguments = True
    copies_fields = False

    def negate(self, guard: str, *, bare: bool) -> str:
        return f"not {guard.strip()}" if bare else f"not ({guard})"

    def call(self, f: PageFacts) -> str:
        fn = f.site.function
        if not fn:
            module = re.sub(r"(/__init__)?\.py$", "", f.site.path).replace("/", ".")
            return f"import {module}"
        parts = fn.split(".")
        params = {o.name for o in f.origins if o.how == "parameter"}
        args = ", ".join(f"{p}=..." for p in sorted(params)) or "..."
        if re.search(rf"def\s+{re.escape(parts[-1])}\s*\(\s*(self|cls)\b", f.site.snippet.code):
            owner = parts[-2] if len(parts) > 1 else "..."
            return (f"{owner}({args})" if parts[-1] == "__init__"
                    else f"{owner}(...).{parts[-1]}({args})")  # fmt: skip
        return f"{parts[-1]}({args})"

    def statement(self, f: PageFacts, call: str) -> str:
        return call

    def caller_code(self, f: PageFacts, code: str) -> str:
        return code

    def if_block(self, condition: str, body: str) -> str:
        return f"if {condition}:\n    {body}"

    def validate(self, f: PageFacts, guard: str, plain: str, stmt: str) -> str:
        own = f.record.exception if not (f.site.variant or f.site.kind is SiteKind.WARN) else None
        exc = own or "ValueError"
        return f"if {guard}:\n    raise {exc}({plain})\n{stmt}"

    def predicate_body(self, positive: str) -> str:
        return positive

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        return f"def {stem}_ok({', '.join(params)}) -> bool:\n    return {positive}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        exc = f.record.exception or "Exception"
        return (f"def is_{stem}_error(e: BaseException) -> bool:\n"
                f"    return isinstance(e, {exc}) and {literal} in str(e)")  # fmt: skip

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        exc = f.record.exception or ("AssertionError" if f.site.kind is SiteKind.ASSERT
                                     else "Exception")  # fmt: skip
        if f.site.kind is SiteKind.WARN:
            return (f"import warnings\nwith warnings.catch_warnings():\n"
                    f"    warnings.simplefilter(\"error\")\n    try:\n        {call}\n"
                    f"    except Warning as e:\n        if {literal} not in str(e):\n"
                    f"            raise\n        ...  # {advice}")  # fmt: skip
        check = "" if f.site.variant else f"    if {literal} not in str(e):\n        raise\n"
        return (f"try:\n    {call}\nexcept {exc} as e:\n{check}"
                f"    raise RuntimeError({quote(advice)}) from e")  # fmt: skip


WRITER = PythonWriter()
