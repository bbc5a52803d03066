"""Every section of an error's page, written deterministically from facts (`errdex.facts`).

Each section is a small function of one `_Facts`; wording that varies by kind or by
message lives in tables at the top. Code in backticks and in the example snippets names
only what the record shows (template, placeholders, guard, function, exception, snippet);
what isn't known is written `...`. This module never reads files or calls a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from errdex import facts
from errdex.facts import Need, Origin
from errdex.models import (
    Defensive,
    ExampleFix,
    Explanation,
    Language,
    Record,
    Site,
    SiteKind,
)

RUST, PYTHON = Language.RUST, Language.PYTHON

# What the code does when the error fires, by kind ("{exc}" is the exception type).
_ACTION = {
    SiteKind.BAIL: "bails: it returns an Err carrying this message",
    SiteKind.PANIC: "panics with this message (the thread unwinds; there is no Result to handle)",
    SiteKind.EXPECT: "panics through .expect with this message",
    SiteKind.CONTEXT: "wraps the underlying error with this message as context",
    SiteKind.ERROR_ENUM: "returns the error `{exc}`, whose display text is this message",
    SiteKind.WARN: "emits this warning and carries on",
}
_ACTION_BY_LANGUAGE = {
    (SiteKind.RAISE, PYTHON): "raises `{exc}` with this message",
    (SiteKind.RAISE, RUST): "returns `{exc}` with this message",
    (SiteKind.ASSERT, RUST): "fails an assertion and panics with this message",
    (SiteKind.ASSERT, PYTHON): "fails an assert and raises AssertionError with this message "
    "(asserts are skipped under python -O)",
}
# Unguarded sites, recognised from the raising line: (pattern, nature).
_NATURES = (
    (r"\b(todo|unimplemented)!|NotImplementedError", "unimplemented"),
    (r"\bunreachable!", "unreachable"),
)
# Situations suggested by the words of the message or guard (lower-cased).
_SITUATIONS = (
    (
        r"shape|dims?\b|size mismatch|rank",
        "Inputs whose shapes or sizes disagree, e.g. after a "
        "reshape, a transpose or a change of batch size upstream",
    ),
    (r"dtype|data type", "Mixing data types between inputs (for example half and full precision)"),
    (r"device", "Inputs that live on different devices"),
    (
        r"not supported|unsupported|only .* supported|does not support",
        "Using an option value or "
        "input kind this code path does not support, often copied from another implementation",
    ),
    (
        r"not (yet )?implemented|unimplemented|todo",
        "Reaching a combination of inputs the library has not implemented yet",
    ),
    (
        r"file|path|director",
        "A path that does not exist, is misspelled, or is relative to a "
        "different working directory",
    ),
    (
        r"\bkey\b|not found|missing|unknown",
        "A name or key spelled differently from what the "
        "library has registered (case, prefixes, a renamed entry)",
    ),
    (
        r"parse|syntax|unexpected (token|char|end)|decode|malformed",
        "Input text or data in a format, or a format version, the parser does not accept",
    ),
    (r"version|deprecat", "Data or settings written by a different version of the library"),
    (
        r"index|out of (range|bounds)",
        "An index or length that is off by one, or a sequence shorter than expected",
    ),
    (r"empty|is_empty", "An empty input where at least one item is needed"),
    (
        r"\bis none\b|is_none|must not be none",
        "A value left unset (None) because an earlier step was skipped or failed",
    ),
    (
        r"isinstance|type",
        "Passing a value of the wrong type, e.g. a string read from a config "
        "file or command line where a number is expected",
    ),
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


@dataclass(frozen=True)
class _Facts:
    record: Record
    site: Site  # the primary site: the first one with a readable guard, else the first
    lang: Language
    where: str  # "`StreamingMultiheadAttention::forward`" or "module `pkg/m.py`"
    guard: str | None
    need: Need | None
    req: str | None  # "`kv_repeat` must be 1"
    holds: str | None  # "`kv_repeat` is 1"
    names: tuple[str, ...]
    origins: tuple[Origin, ...]
    literal: str
    nature: str  # "guarded" | "unimplemented" | "unreachable" | "expect" | "context" | "always"
    receiver: str | None
    before: tuple[Record, ...]
    after: tuple[Record, ...]


def _gather(record: Record, siblings: Sequence[Record]) -> _Facts:
    sites = record.sites
    site = next((s for s in sites if facts.requirement_of(s.guard, s.language)), None)
    site = site or next((s for s in sites if s.guard), sites[0])
    lang, guard = site.language, site.guard
    nature, recv = "guarded" if guard else "always", None
    handler = re.match(r"except\*?\s*(.*)", guard or "")
    if handler:  # raised while handling another exception: that one is the cause
        nature, recv, guard = "handler", handler.group(1) or None, None
    need = facts.requirement_of(guard, lang)
    names = facts.guarded_names(guard, lang) if guard else ()
    line = facts.site_line(site)
    for pattern, kind in _NATURES:
        if re.search(pattern, line) or re.search(pattern, record.exception or ""):
            nature = kind if not guard else nature
    if site.kind in (SiteKind.EXPECT, SiteKind.CONTEXT):
        method = "expect" if site.kind is SiteKind.EXPECT else "context"
        recv = facts.receiver(site, method) or facts.receiver(site, "with_context")
        nature = "guarded" if guard else method
    where = f"`{site.function}`" if site.function else f"module `{site.path}`"
    position = (site.path, site.line)
    local = [s for s in siblings if s.id != record.id and _shares_function(s, site)]
    before = tuple(s for s in local if (s.sites[0].path, s.sites[0].line) < position)
    after = tuple(s for s in local if (s.sites[0].path, s.sites[0].line) > position)
    return _Facts(
        record, site, lang, where, guard, need,
        facts.describe(need, lang) if need else None,
        facts.describe(need, lang, mood="is") if need else None, names,
        tuple(o for o in facts.find_origins(site, names) if not facts.is_literal(o.expression)),
        facts.stable_literal(record), nature, recv,
        before, after,
    )  # fmt: skip


def _shares_function(other: Record, site: Site) -> bool:
    return any(s.path == site.path and s.function == site.function for s in other.sites)


def _message(record: Record) -> str:
    """The message as a reader sees it: Rust's format string as written; for Python (whose
    `message` is the source expression, quotes and all) the literal text with named holes."""
    return record.template.message if record.language is RUST else record.template.text


def _fn(f: _Facts) -> str:
    return facts.short_name(f.site.function) or f.site.path


def _loc(site: Site) -> str:
    return f"{site.path}:{site.line}"


def _leaf(f: _Facts) -> facts.Leaf | None:
    return f.need.leaf if f.need is not None and f.need.op == "leaf" else None


def _action(f: _Facts) -> str:
    kind, exc = f.site.kind, f.record.exception or f.site.exception
    text = _ACTION_BY_LANGUAGE.get((kind, f.lang)) or _ACTION.get(kind, "fails with this message")
    if "{exc}" in text and not exc:
        text = "raises an error with this message" if f.lang is PYTHON else "fails with it"
    return text.replace("{exc}", exc or "")


def _sibling_needs(records: Sequence[Record], limit: int = 3) -> list[str]:
    out = []
    for other in records[:limit]:
        s = other.sites[0]
        req = facts.requirement(s.guard, s.language) if s.guard else None
        message = _message(other)
        quoted = json.dumps(message, ensure_ascii=False)
        if message.count("`") % 2:  # an unpaired backtick would garble the prose around it
            quoted = f"raised at {_loc(s)}"
        out.append(f"{req} ({quoted})" if req else quoted)
    return out


# --- violation: what the bad input looks like ----------------------------------


def _violation(f: _Facts) -> str | None:
    """The guard in words: what the failing input looks like."""
    leaf = _leaf(f)
    if leaf is not None and leaf.rel == "eq":
        subject, obj = facts.show(leaf.subject, f.lang), facts.show(leaf.obj, f.lang)
        if facts.is_literal(leaf.obj):
            return f"{subject} is anything other than {obj}"
        return f"{subject} and {obj} differ"
    cond = facts.parse_guard(f.guard or "", f.lang)
    return None if cond is None else facts.describe(facts.affirm(cond), f.lang, mood="is")


# --- the sections --------------------------------------------------------------


def _summary(f: _Facts) -> str:
    others = len({(s.path, s.function) for s in f.record.sites}) - 1
    tail = f" (and {others} other place{'s' if others > 1 else ''})" if others > 0 else ""
    if f.req:
        return f"{f.req} when calling {f.where}{tail}"
    if f.guard:
        return f"{f.where} fails when `{f.guard}` holds{tail}"
    return {
        "unimplemented": f"{f.where} does not implement this case{tail}",
        "unreachable": f"{f.where} reached a branch its code marks as unreachable{tail}",
        "expect": f"`{f.receiver}` was None or an Err inside {f.where}{tail}"
        if f.receiver
        else f"A value {f.where} expects to be present was missing{tail}",
        "context": f"An operation inside {f.where} failed and was wrapped with this message{tail}",
        "handler": f"{f.where} raises this after catching "
        + (f"`{f.receiver}`" if f.receiver else "an exception")
        + tail,
    }.get(f.nature, f"{f.where} always {_verb(f)} on this path when it is reached{tail}")


def _verb(f: _Facts) -> str:
    return {SiteKind.PANIC: "panics", SiteKind.WARN: "warns", SiteKind.BAIL: "returns an Err",
            SiteKind.ASSERT: "fails"}.get(f.site.kind, "raises")  # fmt: skip


def _origin_sentence(f: _Facts, origin: Origin) -> str:
    name = f"`{origin.name}`"
    if origin.how == "parameter":
        typed = f" (type `{origin.expression}`)" if origin.expression else ""
        return f"{name} is a parameter of `{_fn(f)}`{typed}, so it comes straight from the caller."
    verb = "is copied from" if origin.how == "field" else "is computed as"
    return (
        f"{name} {verb} `{origin.expression}` (`{origin.text.rstrip(',;')}`, line {origin.line})."
    )


def _what_it_means(f: _Facts) -> str:
    out: list[str] = []
    if f.nature == "guarded":
        out.append(f"{f.where} checks `{f.guard}` and {_action(f)}.")
    elif f.nature == "unimplemented":
        out.append(f"{f.where} reaches a case that has not been implemented and {_action(f)}.")
    elif f.nature == "unreachable":
        out.append(
            f"{f.where} reaches a branch its authors considered impossible and "
            f"{_action(f)}; getting here points to an input or state it did not expect."
        )
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        out.append(
            f"{f.where} catches {caught} from the code in its try block and {_action(f)}; "
            "the caught exception is the real cause (it is chained as __context__)."
        )
    elif f.nature in ("expect", "context") and f.receiver:
        what = "is None or an Err" if f.nature == "expect" else "fails"
        out.append(f"{f.where} calls `{f.receiver}`; when that {what}, it {_action(f)}.")
    else:
        out.append(
            f"{f.where} {_action(f)} whenever this line is reached; no condition in "
            "front of it decides, so the path that leads here is the cause."
        )
    if f.req:
        violation = _violation(f)
        out.append(f"To pass, {f.req}" + (f"; it fails when {violation}." if violation else "."))
    out += [_origin_sentence(f, o) for o in f.origins]
    out += _variant_sentences(f)
    holes = [h for h in f.record.template.placeholders if h.expression]
    if holes:
        listed = ", ".join(
            f"`{h.expression}`"
            if h.expression == h.name
            else f"`{{{h.name}}}` from `{h.expression}`"
            for h in holes
        )
        out.append(f"The message fills in {listed}, so the text you got shows the actual values.")
    if f.before:
        out.append(
            f"Before this, `{_fn(f)}` has already checked: "
            + "; ".join(_sibling_needs(f.before))
            + "."
        )
    sites = f.record.sites
    if len(sites) > 1:
        listed = "; ".join(
            f"`{s.function or s.path}` ({_loc(s)}" + (f", when `{s.guard}`)" if s.guard else ")")
            for s in sites[:5]
        )
        more = f"; and {len(sites) - 5} more" if len(sites) > 5 else ""
        out.append(f"The same message is raised at {len(sites)} places: {listed}{more}.")
    return " ".join(out)


def _variant_sentences(f: _Facts) -> list[str]:
    site = f.site
    if not site.variant:
        return []
    fields = [x for x in site.variant_fields if not x.isdigit()]
    carried = (" It carries " + ", ".join(f"`{x}`" for x in fields) + ".") if fields else ""
    if f.lang is RUST:
        owner = f"`{site.exception}`" if site.exception else f"`{site.variant}`"
        return [f"{owner} is an error variant whose display text is this message.{carried}"]
    return [f"`{site.variant}` is an exception class that builds this message itself.{carried}"]


_MESSAGE_TIPS = (
    (r"not supported|unsupported|only .* supported|does not support",
     "Other values are not supported by {fn}; using one would mean extending the code at {loc}."),
    (r"not (yet )?implemented|unimplemented|todo", "If you need this case, it has to be "
     "implemented in {fn} ({loc}); check whether a newer release of {repo} has it."),
)  # fmt: skip


def _solutions(f: _Facts) -> tuple[str, ...]:
    out: list[str] = []
    fmt = {"fn": f.where, "loc": _loc(f.site), "repo": f.record.repo}
    if f.req:
        out.append(f"Make sure that {f.holds} before calling {f.where}.")
        leaf = _leaf(f)
        for origin in f.origins:
            if origin.how == "parameter":
                out.append(f"Check the `{origin.name}` argument you pass to `{_fn(f)}`.")
            elif leaf is not None and facts.clean(leaf.subject, f.lang) == origin.name:
                moved = facts.Need("leaf", facts.Leaf(origin.expression, leaf.rel, leaf.obj))
                out.append(
                    f"Fix the value at its source: `{origin.name}` is copied from "
                    f"`{origin.expression}`, so make sure that "
                    f"{facts.describe(moved, f.lang, mood='is')}."
                )
            else:
                out.append(
                    f"Fix it where it is set: `{origin.name}` comes from `{origin.expression}`."
                )
        out += _rel_tips(f)
    elif f.guard:
        out.append(f"Find which of your inputs makes `{f.guard}` true in {f.where} and change it.")
    elif f.nature == "unreachable":
        out.append(
            f"Treat it as a bug: reproduce it with the smallest input and report it to "
            f"{f.record.repo} with the full message and {_loc(f.site)}."
        )
        out.append(
            f"Check the values you pass to {f.where}; an unexpected one upstream leads here."
        )
    elif f.nature in ("expect", "context", "handler"):
        what = f"`{f.receiver}`" if f.receiver else "the operation it wraps"
        what = f"the code that raises {what}" if f.nature == "handler" else what
        out.append(f"Make {what} succeed: give {f.where} the input, file or state it relies on.")
        if f.nature in ("context", "handler"):
            out.append(
                "Print the whole error chain (the cause follows this message) to see "
                "what actually failed."
            )
    elif f.nature != "unimplemented":
        out.append(
            f"Avoid the path that reaches {_loc(f.site)} in {f.where}: read the code "
            "above that line to see which branch leads there."
        )
    else:
        out.append(f"Avoid this case: {f.where} does not handle it at {_loc(f.site)}.")
    text = f"{f.record.template.message} {f.guard or ''}".lower()
    out += [tip.format(**fmt) for pattern, tip in _MESSAGE_TIPS if re.search(pattern, text)]
    holes = [f"`{h.expression}`" for h in f.record.template.placeholders if h.expression]
    if holes:
        out.append(
            f"Read the values the message prints ({', '.join(holes)}) to see what the "
            "code actually received."
        )
    if f.after:
        out.append(
            f"Once this passes, `{_fn(f)}` goes on to check: "
            + "; ".join(_sibling_needs(f.after))
            + "."
        )
    return tuple(dict.fromkeys(out))


def _rel_tips(f: _Facts) -> list[str]:
    leaf = _leaf(f)
    if leaf is None:
        return []
    s, o = facts.show(leaf.subject, f.lang), facts.show(leaf.obj, f.lang)
    tips = {
        "eq": None if facts.is_literal(leaf.obj) else
        f"Print {s} and {o} just before the call to see which side is off, then fix how it "
        "is produced.",
        "+isinstance": f"Convert {s} before passing it, or fix the code that produces it.",
        "is_not": f"Pass a real value for {s}, or make sure the step that sets it ran first.",
        "in": f"Use a key that {o} contains; list its keys to see what is available.",
        "ge": f"Validate {s} against the bound where it is computed.",
        "+exists": f"Check that {s} exists and is spelled right; a relative path resolves from "
        "the working directory.",
    }  # fmt: skip
    tip = tips.get(leaf.rel)
    return [tip] if tip else []


# --- code: example fix and defensive patterns -----------------------------------


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _call(f: _Facts) -> str:
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


def _statement(f: _Facts, call: str) -> str:
    if f.lang is PYTHON or call == "...":
        return call
    returns = f.site.kind in (SiteKind.BAIL, SiteKind.CONTEXT, SiteKind.ERROR_ENUM, SiteKind.RAISE)
    return f"{call}?;" if returns else f"{call};"


def _caller_code(f: _Facts, code: str) -> str:
    """Guard code as a caller would write it: `self.x` -> where `x` comes from."""
    for origin in f.origins if f.lang is RUST else ():  # a Rust struct field is copied once
        if origin.how == "field" and re.fullmatch(r"[\w.]+", origin.expression):
            code = re.sub(rf"\bself\.{re.escape(origin.name)}\b", origin.expression, code)
    return facts.strip_self(code) if f.lang is RUST else code


def _positive(f: _Facts) -> str:
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


def _example_fix(f: _Facts) -> ExampleFix:
    rust = f.lang is RUST
    note, end = ("//", ";") if rust else ("#", "")
    inline = " //" if rust else "  #"
    stmt = _statement(f, _call(f))
    message = _quote(_message(f.record))
    leaf, pair = _leaf(f), None
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
        before=f"{stmt}{inline} reaches {_loc(f.site)}: {message}",
        after=f"{note} no argument makes {_loc(f.site)} pass: take a path that avoids it\n"
        f"{note} (see the solutions above), then\n{stmt}",
    )


def _strategy(f: _Facts) -> str:
    leaf = _leaf(f)
    if leaf is not None and leaf.rel in ("+isinstance", "-isinstance"):
        return "type check"
    return "validation" if f.req else "catch and translate"


def _validate(f: _Facts) -> str:
    stmt = _statement(f, _call(f))
    if f.req and f.guard:
        guard, plain = _caller_code(f, f.guard), _quote(f.req.replace("`", ""))
        if f.lang is RUST:
            return f"if {guard} {{\n    return Err({plain}.into());\n}}\n{stmt}"
        own = f.record.exception if not (f.site.variant or f.site.kind is SiteKind.WARN) else None
        exc = own or "ValueError"
        return f"if {guard}:\n    raise {exc}({plain})\n{stmt}"
    note = "//" if f.lang is RUST else "#"
    return (f"{note} {f.where.replace('`', '')} fails here without a condition the caller can "
            f"check first;\n{note} validate what leads to {_loc(f.site)}, or catch the error "
            f"(see try/catch).\n{stmt}")  # fmt: skip


def _stem(f: _Facts) -> str:
    for name in f.names:
        last = name.split(".")[-1].lstrip("_")
        if re.fullmatch(r"[A-Za-z]\w*", last):
            return last.lower()
    return re.sub(r"\W", "_", _fn(f)).strip("_").lower() or "call"


def _type_guard(f: _Facts) -> str:
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
    literal = _quote(f.literal or _message(f.record))
    if f.lang is PYTHON:
        exc = f.record.exception or "Exception"
        return (f"def is_{stem}_error(e: BaseException) -> bool:\n"
                f"    return isinstance(e, {exc}) and {literal} in str(e)")  # fmt: skip
    return (f"fn is_{stem}_error(e: &dyn std::error::Error) -> bool {{\n"
            f"    e.to_string().contains({literal})\n}}")  # fmt: skip


def _try_catch(f: _Facts) -> str:
    literal = _quote(f.literal or _message(f.record))
    advice = (f.req or f"see {_loc(f.site)}").replace("`", "")
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
                f"    raise RuntimeError({_quote(advice)}) from e")  # fmt: skip
    if f.site.kind in (SiteKind.PANIC, SiteKind.ASSERT, SiteKind.EXPECT):
        return (f"match std::panic::catch_unwind(|| {call}) {{\n    Ok(v) => v,\n"
                f"    Err(p) if p.downcast_ref::<String>().is_some_and(|s| s.contains({literal}))"
                f" => {{\n        panic!({_quote(advice + ': {:?}')}, p)\n    }}\n"
                f"    Err(p) => std::panic::resume_unwind(p),\n}}")  # fmt: skip
    if f.site.kind is SiteKind.ERROR_ENUM and f.site.exception:
        fields = f.site.variant_fields
        shape = "" if not fields else " { .. }" if not fields[0].isdigit() else "(..)"
        arm = f"Err(e @ {f.site.exception}{shape})"
    else:
        arm = f"Err(e) if e.to_string().contains({literal})"
    return (f"match {call} {{\n    Ok(v) => v,\n    {arm} => {{\n"
            f"        return Err(format!(\"{advice}: {{e}}\").into());\n    }}\n"
            f"    Err(e) => return Err(e.into()),\n}}")  # fmt: skip


def _prevention(f: _Facts) -> tuple[str, ...]:
    out: list[str] = []
    if f.req:
        out.append(
            f"Check that {f.holds} where the inputs of {f.where} are built, not just "
            "before the call."
        )
    for origin in f.origins:
        if origin.how != "parameter":
            out.append(
                f"Validate `{origin.expression}` where it is loaded or constructed, so a "
                "bad value fails early with a clear message."
            )
    leaf = _leaf(f)
    if leaf is not None and leaf.rel in ("+isinstance", "is_not") and f.lang is PYTHON:
        out.append(
            f"Annotate {facts.show(leaf.subject, f.lang)} in your own code and run a "
            "type checker (mypy or pyright) over the callers."
        )
    if f.before or f.after:
        needs = _sibling_needs([*f.before, *f.after], limit=4)
        out.append(f"Check all of `{_fn(f)}`'s requirements together: " + "; ".join(needs) + ".")
    if f.site.kind is SiteKind.WARN:
        out.append("Turn warnings into errors in your test suite so this one is noticed.")
    if f.nature == "unimplemented":
        when = f.record.version or (f.record.commit or "")[:10] or "this version"
        out.append(f"Track {f.record.repo} releases: the case is unimplemented in {when}.")
    out.append(
        f"Add a test that calls {f.where} with the inputs you use in production, so a "
        "change that triggers this shows up in CI."
    )
    return tuple(out)


def _trigger(f: _Facts) -> str:
    if f.guard:
        violation = _violation(f)
        text = f"Calling {f.where} when `{f.guard}` holds" + (f", i.e. {violation}" if violation
                                                              else "") + "."  # fmt: skip
    elif f.nature == "handler":
        caught = f"`{f.receiver}`" if f.receiver else "an exception"
        text = f"{caught} raised inside the try block of {f.where} ({_loc(f.site)})."
    elif f.nature in ("expect", "context") and f.receiver:
        failing = "returns None or an Err" if f.nature == "expect" else "fails"
        text = f"`{f.receiver}` {failing} inside {f.where} ({_loc(f.site)})."
    elif f.nature == "unimplemented":
        text = (
            f"Calling {f.where} with inputs that reach the unimplemented branch at {_loc(f.site)}."
        )
    else:
        text = f"Execution reaching {_loc(f.site)} inside {f.where}."
    others = [s for s in f.record.sites if s is not f.site]
    if others:
        listed = ", ".join(f"`{s.function or s.path}` ({_loc(s)})" for s in others[:4])
        text += f" It can also come from {listed}" + (" and more." if len(others) > 4 else ".")
    return text


def _situations(f: _Facts) -> tuple[str, ...]:
    out: list[str] = []
    violation = _violation(f)
    for origin in f.origins:
        if origin.how == "parameter":
            what = f" when {violation}" if violation else " that fails the check"
            out.append(f"Passing `{origin.name}` to `{_fn(f)}`{what}")
        else:
            out.append(
                f"A configuration or constructor input that sets `{origin.expression}` "
                "to a value this check rejects"
            )
    text = " ".join([f.record.template.message, f.guard or "", f.record.exception or ""]).lower()
    out += [phrase for pattern, phrase in _SITUATIONS if re.search(pattern, text)]
    if not out:
        out.append(f"Calling {f.where} with inputs for which `{f.guard}` holds" if f.guard
                   else f"Any call that reaches {_loc(f.site)}")  # fmt: skip
    return tuple(out[:4])


def write_explanation(record: Record, siblings: Sequence[Record] = ()) -> Explanation:
    """The page's prose for `record`, from its own facts; `siblings` are the other records
    raised in the same function(s), in source order."""
    f = _gather(record, siblings)
    return Explanation(
        summary=_summary(f),
        what_it_means=_what_it_means(f),
        solutions=_solutions(f),
        example_fix=_example_fix(f),
        defensive=Defensive(
            strategy=_strategy(f),
            validate=_validate(f),
            type_guard=_type_guard(f),
            try_catch=_try_catch(f),
        ),
        prevention=_prevention(f),
        trigger=_trigger(f),
        common_situations=_situations(f),
    )
