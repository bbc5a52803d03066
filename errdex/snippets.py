"""The code on a page: the example fix (a "before" that violates the requirement and an
"after" that satisfies it) and the defensive patterns (validate first, a type guard, a
try/catch), in the library's own language.

Built only from the page's facts (`errdex.pagefacts`); what isn't known is written `...`,
so a snippet never names a function or option the code doesn't have.
"""

from __future__ import annotations

import re

from errdex import facts
from errdex.models import ExampleFix, SiteKind
from errdex.pagefacts import (
    PYTHON,
    RUST,
    PageFacts,
    fn_name,
    loc,
    message_text,
    quote,
    single_leaf,
)

# Sample values for an `isinstance` fix: type -> (a wrong value, a right value).
_TYPE_SAMPLES = {
    "int": ('"1"', "1"),
    "float": ('"1.0"', "1.0"),
    "str": ("1", '"..."'),
    "bool": ('"yes"', "True"),
    "list": ("(...)", "[...]"),
    "dict": ("[...]", "{...}"),
    "bytes": ('"..."', 'b"..."'),
    "tuple": ("[...]", "(...)"),
}
_RUST_OPS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_PY_OPS = _RUST_OPS | {"is": "is", "is_not": "is not", "in": "in", "not_in": "not in"}


def _call(f: PageFacts) -> str:
    """How a caller reaches the site, in the library's language, arguments unknown."""
    fn = f.site.function
    if not fn:
        module = re.sub(r"(/__init__)?\.py$", "", f.site.path).replace("/", ".")
        return f"import {module}" if f.lang is PYTHON else "..."
    if f.lang is RUST:
        return f"{fn}(...)"
    parts = fn.split(".")
    params = {o.name for o in f.origins if o.how == "parameter"}
    args = ", ".join(f"{p}=..." for p in sorted(params)) or "..."
    if re.search(rf"def\s+{re.escape(parts[-1])}\s*\(\s*(self|cls)\b", f.site.snippet.code):
        owner = parts[-2] if len(parts) > 1 else "..."
        return (
            f"{owner}({args})" if parts[-1] == "__init__" else f"{owner}(...).{parts[-1]}({args})"
        )
    return f"{parts[-1]}({args})"


def _statement(f: PageFacts, call: str) -> str:
    if f.lang is PYTHON or call == "...":
        return call
    returns = f.site.kind in (SiteKind.BAIL, SiteKind.CONTEXT, SiteKind.ERROR_ENUM, SiteKind.RAISE)
    return f"{call}?;" if returns else f"{call};"


def _caller_code(f: PageFacts, code: str) -> str:
    """Guard code as a caller would write it: `self.x` -> where `x` comes from."""
    for origin in f.origins if f.lang is RUST else ():  # a Rust struct field is copied once
        if origin.how == "field" and re.fullmatch(r"[\w.]+", origin.expression):
            code = re.sub(rf"\bself\.{re.escape(origin.name)}\b", origin.expression, code)
    return facts.strip_self(code) if f.lang is RUST else code


def _positive(f: PageFacts) -> str:
    """The guard negated, as code: what must be true."""
    guard = f.guard or ""
    cond = facts.parse_guard(guard, f.lang)
    ops = _PY_OPS if f.lang is PYTHON else _RUST_OPS
    if isinstance(cond, facts.Leaf) and cond.rel in ops:
        flipped = facts.deny(cond).leaf
        if flipped is not None and flipped.rel in ops:
            return f"{flipped.subject} {ops[flipped.rel]} {flipped.obj}"
    if isinstance(cond, facts.Group) and cond.op == "not":
        inner = re.sub(r"^(!|not\s+)", "", guard.strip())
        return inner[1:-1] if facts.parse_guard(inner[1:-1], f.lang) == cond.parts[0] else inner
    single = len(facts.split_top(guard.strip(), r"\s", f.lang)) == 1
    if isinstance(cond, facts.Leaf) and cond.rel.startswith("+") and single:
        return f"not {guard.strip()}" if f.lang is PYTHON else f"!{guard.strip()}"
    if isinstance(cond, facts.Leaf) and cond.rel == "true":
        return f"not {guard.strip()}" if f.lang is PYTHON else f"!{guard.strip()}"
    return f"not ({guard})" if f.lang is PYTHON else f"!({guard})"


def _samples(leaf: facts.Leaf) -> tuple[str, str] | None:
    obj = leaf.obj.strip()
    if leaf.rel == "+isinstance":
        first = obj.strip("()").split(",")[0].strip()
        return _TYPE_SAMPLES.get(first, ("...", f"{first}(...)"))
    if leaf.rel == "is_not" and obj == "None":
        return "None", "..."
    m = re.fullmatch(r"-?\d+", obj)
    if not m:
        return (obj, "...") if leaf.rel == "ne" and facts.is_literal(obj) else None
    n = int(obj)
    table = {"eq": (n + 1, n), "ne": (n, n + 1), "ge": (n - 1, n), "gt": (n, n + 1),
             "le": (n + 1, n), "lt": (n, n - 1)}  # fmt: skip
    pair = table.get(leaf.rel)
    return None if pair is None else (str(pair[0]), str(pair[1]))


def example_fix(f: PageFacts) -> ExampleFix:
    rust = f.lang is RUST
    note, end = ("//", ";") if rust else ("#", "")
    inline = " //" if rust else "  #"
    stmt = _statement(f, _call(f))
    message = quote(message_text(f.record))
    leaf, pair = single_leaf(f), None
    if leaf is not None:
        pair = _samples(leaf)
    if leaf is not None and pair is not None:
        subject = facts.clean(leaf.subject, f.lang)
        target = next((o for o in f.origins if o.how != "parameter" and rust), None)
        param = any(o.how == "parameter" for o in f.origins)
        call = _call(f)
        if param and not rust and f"{subject}=..." in call:
            good = f"{f.req}".replace("`", "")
            before = call.replace(f"{subject}=...", f"{subject}={pair[0]}")
            after = call.replace(f"{subject}=...", f"{subject}={pair[1]}")
            return ExampleFix(f"{before}{inline} fails: {message}", f"{after}{inline} {good}")
        if target and re.fullmatch(r"[\w.]+", target.expression):
            lhs = target.expression
        elif rust or param:
            lhs = ("let " if rust else "") + subject
        else:
            lhs = subject
        if re.fullmatch(r"(let )?[\w.]+", lhs):
            good = f"{f.req}".replace("`", "")
            return ExampleFix(
                before=f"{lhs} = {pair[0]}{end}\n{stmt}{inline} fails: {message}",
                after=f"{lhs} = {pair[1]}{end}{inline} {good}\n{stmt}",
            )
    if f.guard:
        positive = _caller_code(f, _positive(f))
        after = f"if {positive} {{\n    {stmt}\n}}" if rust else f"if {positive}:\n    {stmt}"
        return ExampleFix(
            before=f"{stmt}{inline} `{_caller_code(f, f.guard)}` holds: {message}",
            after=f"{note} only call once the inputs are fixed so that this holds\n{after}",
        )
    if f.nature in ("expect", "context") and f.receiver:
        return ExampleFix(
            before=f"{stmt}{inline} `{f.receiver}` fails inside: {message}",
            after=f"{note} first provide what `{f.receiver}` needs (see what it means)\n{stmt}",
        )
    return ExampleFix(
        before=f"{stmt}{inline} reaches {loc(f.site)}: {message}",
        after=f"{note} no argument makes {loc(f.site)} pass: take a path that avoids it\n"
        f"{note} (see the solutions above), then\n{stmt}",
    )


def strategy(f: PageFacts) -> str:
    leaf = single_leaf(f)
    if leaf is not None and leaf.rel in ("+isinstance", "-isinstance"):
        return "type check"
    return "validation" if f.req else "catch and translate"


def validate(f: PageFacts) -> str:
    stmt = _statement(f, _call(f))
    if f.req and f.guard:
        guard, plain = _caller_code(f, f.guard), quote(f.req.replace("`", ""))
        if f.lang is RUST:
            return f"if {guard} {{\n    return Err({plain}.into());\n}}\n{stmt}"
        own = f.record.exception if not (f.site.variant or f.site.kind is SiteKind.WARN) else None
        exc = own or "ValueError"
        return f"if {guard}:\n    raise {exc}({plain})\n{stmt}"
    note = "//" if f.lang is RUST else "#"
    return (f"{note} {f.where.replace('`', '')} fails here without a condition the caller can "
            f"check first;\n{note} validate what leads to {loc(f.site)}, or catch the error "
            f"(see try/catch).\n{stmt}")  # fmt: skip


def _stem(f: PageFacts) -> str:
    for name in f.names:
        last = name.split(".")[-1].lstrip("_")
        if re.fullmatch(r"[A-Za-z]\w*", last):
            return last.lower()
    return re.sub(r"\W", "_", fn_name(f)).strip("_").lower() or "call"


def type_guard(f: PageFacts) -> str:
    stem = _stem(f)
    if f.req and f.guard:
        positive = _positive(f)
        if f.lang is RUST:
            positive = facts.strip_self(positive).replace(")?", ").ok()")
        code = facts._STRING.sub('""', positive)
        roots = {n.split(".")[0] for n in f.names}
        params = [r for r in dict.fromkeys(re.findall(r"(?<![\w.:])[A-Za-z_]\w*", code))
                  if r in roots or (r == "self" and "self." in code)]  # fmt: skip
        if f.lang is PYTHON:
            return f"def {stem}_ok({', '.join(params)}) -> bool:\n    return {positive}"
        params = [p for p in params if p != "self"]
        typed = ", ".join(f"{p}: {facts.declared_type(f.site, p) or '...'}" for p in params)
        if re.search(r"\bself\.", positive):
            typed = ", ".join(["&self", typed]) if typed else "&self"
        return f"fn {stem}_ok({typed}) -> bool {{\n    {positive}\n}}"
    literal = quote(f.literal or message_text(f.record))
    if f.lang is PYTHON:
        exc = f.record.exception or "Exception"
        return (f"def is_{stem}_error(e: BaseException) -> bool:\n"
                f"    return isinstance(e, {exc}) and {literal} in str(e)")  # fmt: skip
    return (f"fn is_{stem}_error(e: &dyn std::error::Error) -> bool {{\n"
            f"    e.to_string().contains({literal})\n}}")  # fmt: skip


def try_catch(f: PageFacts) -> str:
    literal = quote(f.literal or message_text(f.record))
    advice = (f.req or f"see {loc(f.site)}").replace("`", "")
    call = _call(f)
    if f.lang is PYTHON:
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
    if f.site.kind in (SiteKind.PANIC, SiteKind.ASSERT, SiteKind.EXPECT):
        return (f"match std::panic::catch_unwind(|| {call}) {{\n    Ok(v) => v,\n"
                f"    Err(p) if p.downcast_ref::<String>().is_some_and(|s| s.contains({literal}))"
                f" => {{\n        panic!({quote(advice + ': {:?}')}, p)\n    }}\n"
                f"    Err(p) => std::panic::resume_unwind(p),\n}}")  # fmt: skip
    if f.site.kind is SiteKind.ERROR_ENUM and f.site.exception:
        fields = f.site.variant_fields
        shape = "" if not fields else " { .. }" if not fields[0].isdigit() else "(..)"
        arm = f"Err(e @ {f.site.exception}{shape})"
    else:
        arm = f"Err(e) if e.to_string().contains({literal})"
    return (f"match {call} {{\n    Ok(v) => v,\n    {arm} => {{\n"
            f"        return Err(format!(\"{_format_literal(advice)}: {{e}}\").into());\n    }}\n"
            f"    Err(e) => return Err(e.into()),\n}}")  # fmt: skip


def _format_literal(text: str) -> str:
    """Text made safe inside a Rust `format!("...")`: quotes, backslashes and braces."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("{", "{{").replace("}", "}}")
