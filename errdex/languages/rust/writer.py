"""The Rust code of a page's code sections: calls with `?`, `if ... { return Err(..) }`,
`fn ..._ok(..) -> bool` and `match`/`catch_unwind` handlers. It writes code text from the
page's facts only; what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.languages.writer import COMPARISONS
from errdex.models import SiteKind
from errdex.write.pagefacts import PageFacts, quote


class RustWriter:
    ops = COMPARISONS
    comment = "//"
    inline_comment = " //"
    statement_end = ";"
    binding = "let "
    keyword_arguments = False
    copies_fields = True

    def negate(self, guard: str, *, bare: bool) -> str:
        return f"!{guard.strip()}" if bare else f"!({guard})"

    def call(self, f: PageFacts) -> str:
        fn = f.site.function
        return f"{fn}(...)" if fn else "..."

    def statement(self, f: PageFacts, call: str) -> str:
        if call == "...":
            return call
        returns = f.site.kind in (SiteKind.BAIL, SiteKind.CONTEXT, SiteKind.ERROR_ENUM,
                                  SiteKind.RAISE)
        return f"{call}?;" if returns else f"{call};"

    def caller_code(self, f: PageFacts, code: str) -> str:
        for origin in f.origins:  # a Rust struct field is copied once
            if origin.how == "field" and re.fullmatch(r"[\w.]+", origin.expression):
                code = re.sub(rf"\bself\.{re.escape(origin.name)}\b", origin.expression, code)
        return facts.strip_self(code)

    def if_block(self, condition: str, body: str) -> str:
        return f"if {condition} {{\n    {body}\n}}"

    def validate(self, f: PageFacts, guard: str, plain: str, stmt: str) -> str:
        return f"if {guard} {{\n    return Err({plain}.into());\n}}\n{stmt}"

    def predicate_body(self, positive: str) -> str:
        return facts.strip_self(positive).replace(")?", ").ok()")

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        params = [p for p in params if p != "self"]
        typed = ", ".join(f"{p}: {facts.declared_type(f.site, p) or '...'}" for p in params)
        if re.search(r"\bself\.", positive):
            typed = ", ".join(["&self", typed]) if typed else "&self"
        return f"fn {stem}_ok({typed}) -> bool {{\n    {positive}\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        return (f"fn is_{stem}_error(e: &dyn std::error::Error) -> bool {{\n"
                f"    e.to_string().contains({literal})\n}}")  # fmt: skip

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        if f.site.kind in (SiteKind.PANIC, SiteKind.ASSERT, SiteKind.EXPECT):
            return (f"match std::panic::catch_unwind(|| {call}) {{\n    Ok(v) => v,\n"
                    f"    Err(p) if p.downcast_ref::<String>().is_some_and(|s| s.contains("
                    f"{literal})) => {{\n        panic!({quote(advice + ': {:?}')}, p)\n    }}\n"
                    f"    Err(p) => std::panic::resume_unwind(p),\n}}")  # fmt: skip
        if f.site.kind is SiteKind.ERROR_ENUM and f.site.exception:
            fields = f.site.variant_fields
            shape = "" if not fields else " { .. }" if not fields[0].isdigit() else "(..)"
            arm = f"Err(e @ {f.site.exception}{shape})"
        else:
            arm = f"Err(e) if e.to_string().contains({literal})"
        return (f"match {call} {{\n    Ok(v) => v,\n    {arm} => {{\n"
                f"        return Err(format!(\"{_format_literal(advice)}: {{e}}\").into());\n"
                f"    }}\n    Err(e) => return Err(e.into()),\n}}")  # fmt: skip


def _format_literal(text: str) -> str:
    """Text made safe inside a Rust `format!("...")`: quotes, backslashes and braces."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("{", "{{").replace("}", "}}")


WRITER = RustWriter()
