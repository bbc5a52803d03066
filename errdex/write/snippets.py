"""The code on a page: the example fix (a "before" that violates the requirement and an
"after" that satisfies it) and the defensive patterns (validate first, a type guard, a
try/catch), in the library's own language.

What is written differently per language is the language's code writer
(`errdex.languages.<name>.writer`); this module holds what every language shares.

Built only from the page's facts (`errdex.write.pagefacts`); what isn't known is written `...`,
so a snippet never names a function or option the code doesn't have.
"""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.languages import spec_for
from errdex.languages.writer import CodeWriter
from errdex.models import ExampleFix
from errdex.write.pagefacts import (
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


def _writer(f: PageFacts) -> CodeWriter:
    return spec_for(f.lang).writer()


def _positive(f: PageFacts) -> str:
    """The guard negated, as code: what must be true."""
    guard, w = f.guard or "", _writer(f)
    cond = facts.parse_guard(guard, f.lang)
    if isinstance(cond, facts.Leaf) and cond.rel in w.ops:
        flipped = facts.deny(cond).leaf
        if flipped is not None and flipped.rel in w.ops:
            return f"{flipped.subject} {w.ops[flipped.rel]} {flipped.obj}"
    if isinstance(cond, facts.Group) and cond.op == "not":
        inner = re.sub(r"^(!|not\s+)", "", guard.strip())
        return inner[1:-1] if facts.parse_guard(inner[1:-1], f.lang) == cond.parts[0] else inner
    single = len(facts.split_top(guard.strip(), r"\s", f.lang)) == 1
    if isinstance(cond, facts.Leaf) and cond.rel.startswith("+") and single:
        return w.negate(guard, bare=True)
    if isinstance(cond, facts.Leaf) and cond.rel == "true":
        return w.negate(guard, bare=True)
    return w.negate(guard, bare=False)


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
    w = _writer(f)
    note, end, inline = w.comment, w.statement_end, w.inline_comment
    stmt = w.statement(f, w.call(f))
    message = quote(message_text(f.record))
    leaf, pair = single_leaf(f), None
    if leaf is not None:
        pair = _samples(leaf)
    if leaf is not None and pair is not None:
        subject = facts.clean(leaf.subject, f.lang)
        target = next((o for o in f.origins if o.how != "parameter" and w.copies_fields), None)
        param = any(o.how == "parameter" for o in f.origins)
        call = w.call(f)
        if param and w.keyword_arguments and f"{subject}=..." in call:
            good = f"{f.req}".replace("`", "")
            before = call.replace(f"{subject}=...", f"{subject}={pair[0]}")
            after = call.replace(f"{subject}=...", f"{subject}={pair[1]}")
            return ExampleFix(f"{before}{inline} fails: {message}", f"{after}{inline} {good}")
        if target and re.fullmatch(r"[\w.]+", target.expression):
            lhs = target.expression
        elif w.binding or param:
            lhs = w.binding + subject
        else:
            lhs = subject
        if re.fullmatch(r"(let )?[\w.]+", lhs):
            good = f"{f.req}".replace("`", "")
            return ExampleFix(
                before=f"{lhs} = {pair[0]}{end}\n{stmt}{inline} fails: {message}",
                after=f"{lhs} = {pair[1]}{end}{inline} {good}\n{stmt}",
            )
    if f.guard:
        positive = w.caller_code(f, _positive(f))
        return ExampleFix(
            before=f"{stmt}{inline} `{w.caller_code(f, f.guard)}` holds: {message}",
            after=f"{note} only call once the inputs are fixed so that this holds\n"
            f"{w.if_block(positive, stmt)}",
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
    w = _writer(f)
    stmt = w.statement(f, w.call(f))
    if f.req and f.guard:
        guard, plain = w.caller_code(f, f.guard), quote(f.req.replace("`", ""))
        return w.validate(f, guard, plain, stmt)
    note = w.comment
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
    w, stem = _writer(f), _stem(f)
    if f.req and f.guard:
        positive = w.predicate_body(_positive(f))
        code = facts._STRING.sub('""', positive)
        roots = {n.split(".")[0] for n in f.names}
        params = [r for r in dict.fromkeys(re.findall(r"(?<![\w.:])[A-Za-z_]\w*", code))
                  if r in roots or (r == "self" and "self." in code)]  # fmt: skip
        return w.predicate(f, stem, positive, params)
    return w.error_test(f, stem, quote(f.literal or message_text(f.record)))


def try_catch(f: PageFacts) -> str:
    literal = quote(f.literal or message_text(f.record))
    advice = (f.req or f"see {loc(f.site)}").replace("`", "")
    return _writer(f).try_catch(f, _writer(f).call(f), literal, advice)
