"""Guards read as conditions: the `if` in front of an error parsed into a small tree of
tests, turned into the requirement that must hold instead ("`kv_repeat` must be 1"), and
the names it reads.

Pure text work on the guard as the extractor captured it; it never reads files. When a
guard can't be read the answer is None and callers show the raw condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache

from errdex.analyze.masking import mask as _mask
from errdex.analyze.masking import split_top as split_top
from errdex.analyze.masking import strip_parens as _strip_parens
from errdex.languages import spec_for
from errdex.models import Language

# --- a guard as a tree -------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """One test: `subject <rel> obj`. Predicates are "+name"/"-name" ("+is_empty")."""

    subject: str
    rel: str
    obj: str = ""


@dataclass(frozen=True)
class Group:
    op: str  # "and" | "or" | "not"
    parts: tuple[Cond, ...]


Cond = Leaf | Group

_NEGATE = {"eq": "ne", "lt": "ge", "gt": "le", "is": "is_not", "in": "not_in", "true": "false"}
_NEGATE |= {v: k for k, v in _NEGATE.items()}
_MIRROR = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
_CMP_OPS = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
            "===": "eq", "!==": "ne"}  # strict equality (a `compare` regex may match it)
_PY_WORD_OPS = {"in": "in", "is": "is", "notin": "not_in", "isnot": "is_not"}

# Predicates read from calls: name -> (index of subject arg or -1 for the receiver, has obj)
_FUNCTION_PREDICATES = {
    "isinstance": True,
    "issubclass": True,
    "hasattr": True,
    "callable": False,
    "exists": False,
    "isfile": False,
    "isdir": False,
    "matches": True,
}
_METHOD_PREDICATES = {
    "is_empty",
    "is_none",
    "is_some",
    "is_ok",
    "is_err",
    "exists",
    "is_file",
    "is_dir",
    "contains",
    "contains_key",
    "starts_with",
    "ends_with",
    "startswith",
    "endswith",
}


@lru_cache(maxsize=8192)
def parse_guard(guard: str, language: Language) -> Cond | None:
    """The guard as a tree of tests, or None when it isn't a condition we can read."""
    text = _strip_parens(guard.strip().removesuffix(":"), language)
    if not text or ";" in _mask(text, language) or re.match(r"except\b", text):
        return None
    spec = spec_for(language)
    case = re.fullmatch(spec.case_arm, text) if spec.case_arm else None
    if case:  # a `case` arm of a `match`; the catch-all `_` says nothing by itself
        return (
            None if case.group(2).strip() == "_" else Leaf(case.group(1), "+matches", case.group(2))
        )
    for op, sep in spec.bool_ops:
        parts = split_top(text, sep, language)
        if len(parts) > 1:
            parsed = [parse_guard(p, language) for p in parts]
            if any(p is None for p in parsed):
                return None
            return Group(op, tuple(p for p in parsed if p is not None))
    return _parse_not(text, language)


def _parse_not(text: str, language: Language) -> Cond | None:
    masked, spec = _mask(text, language), spec_for(language)
    negation = re.match(spec.negation, text)
    if negation:
        rest = text[negation.end() :].strip()
        if not (spec.negation_yields_to_compare and re.search(spec.compare, _mask(rest, language))):
            inner = parse_guard(rest, language)
            return None if inner is None else Group("not", (inner,))
    if spec.pattern_guard and text.startswith(spec.pattern_guard):
        m = re.search(r"(?<![=!<>])=(?![=>])", masked)
        if m is None:
            return None
        pattern = text[len(spec.pattern_guard) : m.start()].strip()
        value = re.sub(r"\s+else$", "", text[m.end() :].strip())
        # A `let ... else` guard fails when the value does not match the pattern.
        return Group("not", (Leaf(value, "+matches", pattern),))
    return _parse_compare(text, masked, language)


def _parse_compare(text: str, masked: str, language: Language) -> Cond | None:
    ops = list(re.finditer(spec_for(language).compare, masked))
    if not ops:
        return _parse_predicate(text, language)
    operands, start = [], 0
    for m in ops:
        operands.append(text[start : m.start()].strip())
        start = m.end()
    operands.append(text[start:].strip())
    if any(not o or not _looks_like_operand(o, language) for o in operands):
        return None
    leaves: list[Cond] = []
    for i, m in enumerate(ops):
        word = re.sub(r"\s+", "", m.group(0))
        rel = _CMP_OPS.get(word) or _PY_WORD_OPS[word]
        left, right = operands[i], operands[i + 1]
        if is_literal(left) and not is_literal(right) and rel in _MIRROR:
            left, right, rel = right, left, _MIRROR[rel]
        leaves.append(Leaf(left, rel, right))
    return leaves[0] if len(leaves) == 1 else Group("and", tuple(leaves))


def _looks_like_operand(text: str, language: Language) -> bool:
    masked = _mask(text, language).strip()
    not_operand = spec_for(language).not_operand
    if not_operand and re.search(not_operand, masked):
        return False
    return re.search(r"(?<![=!<>:])=(?![=>])", masked) is None


def _parse_predicate(text: str, language: Language) -> Cond | None:
    hooks = spec_for(language).before
    written = hooks.predicate(text) if hooks is not None else None
    if written is not None:  # a test errdex.analyze.before wrote in the language's idiom
        return Leaf(*written)
    masked = _mask(text, language)
    call = re.fullmatch(r"([A-Za-z_][\w.:]*)(!?)\(\x01*\)", masked)
    if call:
        name = call.group(1).replace("::", ".").split(".")[-1]
        args = split_top(text[len(call.group(0).split("(")[0]) + 1 : -1], ",", language)
        if name in _FUNCTION_PREDICATES and args and args[0]:
            if name == "matches" and call.group(2) != "!":
                return None
            obj = args[1] if _FUNCTION_PREDICATES[name] and len(args) > 1 else ""
            return Leaf(args[0], "+" + name, obj)
    method = re.fullmatch(r"(.+?)\.([A-Za-z_]\w*)\((\x01*)\)", masked)
    if method:
        name = method.group(2)
        if name in _METHOD_PREDICATES or re.match(r"(is|has)_[a-z]", name):
            arg_start = method.start(3)
            subject = text[: method.start(2) - 1]
            return Leaf(subject, "+" + name, text[arg_start : method.end(3)].strip())
    if is_literal(text) or _STRING.fullmatch(text.strip()):
        return None
    if re.fullmatch(r"[&*]*[A-Za-z_][\w.:?\[\]()'\"\x01]*", masked.strip()):
        return Leaf(text, "true")
    return None


# --- the requirement: what must hold instead --------------------------------------


@dataclass(frozen=True)
class Need:
    """A requirement: leaves (as in the guard) joined by "all" / "any"."""

    op: str  # "leaf" | "all" | "any"
    leaf: Leaf | None = None
    parts: tuple[Need, ...] = ()


def _flip(leaf: Leaf) -> Leaf:
    if leaf.rel[0] in "+-":
        return Leaf(leaf.subject, ("-" if leaf.rel[0] == "+" else "+") + leaf.rel[1:], leaf.obj)
    return Leaf(leaf.subject, _NEGATE[leaf.rel], leaf.obj)


def deny(cond: Cond) -> Need:
    """What must hold for the guard to be false (De Morgan through the tree)."""
    if isinstance(cond, Leaf):
        return Need("leaf", _flip(cond))
    if cond.op == "not":
        return affirm(cond.parts[0])
    return Need("any" if cond.op == "and" else "all", parts=tuple(deny(p) for p in cond.parts))


def affirm(cond: Cond) -> Need:
    if isinstance(cond, Leaf):
        return Need("leaf", cond)
    if cond.op == "not":
        return deny(cond.parts[0])
    return Need("all" if cond.op == "and" else "any", parts=tuple(affirm(p) for p in cond.parts))


def requirement_of(guard: str | None, language: Language) -> Need | None:
    if not guard:
        return None
    cond = parse_guard(guard, language)
    return None if cond is None else deny(cond)


_LITERAL = re.compile(
    r"-?(?:0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?:[iu](?:8|16|32|64|128|size)|f32|f64)?|None|True|False|true|false"
)
_STRING = re.compile(r"""[rbfu]*(?:"[^"]*"|'[^']*')""")


def is_literal(text: str) -> bool:
    return bool(_LITERAL.fullmatch(text.strip()))


def show(expr: str, language: Language) -> str:
    """An operand as the prose shows it: literals bare, code in backticks."""
    text = clean(expr, language)
    return text if is_literal(text) else f"`{text}`"


def strip_self(code: str) -> str:
    """Rust fields read through `self` (`self.kv_repeat` -> `kv_repeat`); method calls
    (`self.shape()`) keep their receiver."""
    return re.sub(r"\bself\.(?![A-Za-z_]\w*\s*(?:\(|::))", "", code)


def clean(expr: str, language: Language) -> str:
    text = _strip_parens(expr, language)
    spec = spec_for(language)
    if spec.reference_prefix:
        text = re.sub(spec.reference_prefix, "", text)
    if spec.can("fields_read_through_self") and text.startswith("self."):
        text = strip_self(text)
    return text


_PRED_PHRASES: dict[str, tuple[str, str]] = {
    "is_empty": ("be empty", "not be empty"),
    "is_none": ("be None", "not be None"),
    "is_some": ("be set (not None)", "be None"),
    "is_ok": ("be Ok", "be an error"),
    "is_err": ("be an error", "be Ok"),
    "exists": ("exist", "not exist"),
    "is_file": ("be an existing file", "not be a file"),
    "isfile": ("be an existing file", "not be a file"),
    "is_dir": ("be an existing directory", "not be a directory"),
    "isdir": ("be an existing directory", "not be a directory"),
    "contains": ("contain {obj}", "not contain {obj}"),
    "contains_key": ("contain the key {obj}", "not contain the key {obj}"),
    "starts_with": ("start with {obj}", "not start with {obj}"),
    "startswith": ("start with {obj}", "not start with {obj}"),
    "ends_with": ("end with {obj}", "not end with {obj}"),
    "endswith": ("end with {obj}", "not end with {obj}"),
    "callable": ("be callable", "not be callable"),
    "hasattr": ("have an attribute {obj}", "not have an attribute {obj}"),
    "other_keys": ("have keys other than {obj}", "have no keys other than {obj}"),
    "isinstance": ("be an instance of {obj}", "not be an instance of {obj}"),
    "issubclass": ("be a subclass of {obj}", "not be a subclass of {obj}"),
    "matches": ("match {obj}", "not match {obj}"),
}
# (phrase when the other side is a literal, phrase when it is an expression)
_REL_PHRASES: dict[str, tuple[str, str]] = {
    "eq": ("be {obj}", "equal {obj}"),
    "ne": ("not be {obj}", "differ from {obj}"),
    "ge": ("be at least {obj}", "be at least {obj}"),
    "gt": ("be greater than {obj}", "be greater than {obj}"),
    "le": ("be at most {obj}", "be at most {obj}"),
    "lt": ("be less than {obj}", "be less than {obj}"),
    "is": ("be {obj}", "be {obj}"),
    "is_not": ("not be {obj}", "not be {obj}"),
    "in": ("be one of {obj}", "be in {obj}"),
    "not_in": ("not be one of {obj}", "not be in {obj}"),
}
def _pred_object(name: str, obj: str, language: Language) -> str:
    if name in ("isinstance", "issubclass"):
        names = [n for n in split_top(_strip_parens(obj, language), ",", language) if n]
        return " or ".join(f"`{n}`" for n in names)
    if name == "hasattr" and _STRING.fullmatch(obj.strip()):
        return f"`{obj.strip()[1:-1]}`"
    if name == "hasattr" and obj.strip():  # a name held in a value: the value names it
        return f"named by {show(obj, language)}"
    if name == "other_keys":
        keys = [k.strip() for k in split_top(obj, ",", language) if k.strip()]
        return ", ".join(f"`{k[1:-1]}`" if _STRING.fullmatch(k) else show(k, language)
                         for k in keys)  # fmt: skip
    return show(obj, language) if obj else ""


_ORDINAL_FROM_END = {1: "last", 2: "second-to-last", 3: "third-to-last", 4: "fourth-to-last"}
_ASPECT = re.compile(
    r"(?P<x>[A-Za-z_][\w.]*?)\s*(?:\.(?P<m>dim|size)\s*\((?P<a>[^()]*(?:\([^()]*\))?)\)"
    r"|\.(?P<p>shape|dims|dtype|device|rank|ndim)(?:\s*\(\s*\))?(?:\.dims\d?\(\s*\)\??)?"
    r"(?:\s*\[(?P<i>[^\]]+)\])?)\??$"
)


def _dimension(arg: str) -> str | None:
    """"D::Minus1" -> "last dimension", "-2" -> "second-to-last dimension", "0" -> ..."""
    m = re.fullmatch(r"D::Minus\(?(\d+)\)?|-\s*(\d+)", arg.strip())
    if m:
        n = int(m.group(1) or m.group(2))
        return f"{_ORDINAL_FROM_END.get(n, f'dim -{n}')} dimension"
    if re.fullmatch(r"\d+|D::\w+", arg.strip()):
        return f"dimension {arg.strip().removeprefix('D::')}"
    return None


def aspect(expr: str) -> tuple[str, str] | None:
    """(whose, what) for an expression that reads one aspect of a value: `q_l.dim(D::Minus1)?`
    -> ("q_l", "last dimension"), `x.shape[0]` -> ("x", "dimension 0"), `a.dtype()`."""
    m = _ASPECT.fullmatch(expr.strip())
    if m is None:
        return None
    whose = strip_self(m.group("x"))
    if m.group("m"):
        what = _dimension(m.group("a")) if m.group("a").strip() else "shape"
    elif m.group("i") is not None:
        what = _dimension(m.group("i")) if m.group("p") in ("shape", "dims") else None
    else:
        what = {"dims": "shape", "ndim": "rank"}.get(m.group("p"), m.group("p"))
    return None if what is None else (whose, what)


def phrase(leaf: Leaf, language: Language) -> tuple[str, str]:
    """(subject, what it must do): ("`kv_repeat`", "be 1")."""
    subject = show(leaf.subject, language)
    if leaf.rel in ("eq", "ne"):
        left, right = aspect(leaf.subject), aspect(leaf.obj)
        if left and right and left[1] == right[1] and left[0] != right[0]:
            same = "have the same" if leaf.rel == "eq" else "not have the same"
            return f"`{left[0]}` and `{right[0]}`", f"{same} {left[1]}"
    if leaf.rel[0] in "+-":
        name = leaf.rel[1:]
        # `Some(x)`/`Ok(_)`: any value inside (not `Some("f16")`, a value of its own)
        wrapped = re.fullmatch(r"(Some|Ok)\s*\(\s*(?:_|[a-z_]\w*)\s*\)", leaf.obj.strip())
        alternatives = [a.strip() for a in split_top(leaf.obj, r"\|", language)]
        if name == "matches" and all(is_literal(a) or _STRING.fullmatch(a) for a in alternatives):
            shown = ", ".join(show(a, language) for a in alternatives)
            text = f"be {shown}" if len(alternatives) == 1 else f"be one of {shown}"
            return subject, text if leaf.rel[0] == "+" else "not " + text
        if name == "matches" and wrapped:
            good = "be set (not None)" if wrapped.group(1) == "Some" else "be Ok"
            bad = "be None" if wrapped.group(1) == "Some" else "be an error"
            return subject, good if leaf.rel[0] == "+" else bad
        if name in _PRED_PHRASES:
            text = _PRED_PHRASES[name][0 if leaf.rel[0] == "+" else 1]
        elif leaf.obj.strip():  # `self.has_extn("auth")`: its argument is half of what it asks
            call = f"`{clean(leaf.subject, language)}.{name}({leaf.obj.strip()})`"
            return call, "be true" if leaf.rel[0] == "+" else "be false"
        else:
            verb, _, rest = name.partition("_")
            words = ("be " if verb == "is" else "have ") + rest.replace("_", " ")
            text = words if leaf.rel[0] == "+" else "not " + words
        if name == "hasattr" and leaf.subject.strip() == "self":
            subject = "the object (`self`)"  # the caller's object: a method its class has
        return subject, text.replace("{obj}", _pred_object(name, leaf.obj, language))
    truth = spec_for(language).truth
    if leaf.rel in truth:
        return subject, truth[leaf.rel]
    if leaf.rel in ("eq", "ne") and leaf.obj.strip() == "0":
        parts = split_top(leaf.subject, r"%", language)
        if len(parts) == 2:
            multiple = f"be a multiple of {show(parts[1], language)}"
            return show(parts[0], language), multiple if leaf.rel == "eq" else "not " + multiple
    obj = leaf.obj.strip()
    if leaf.rel in ("eq", "ne", "is", "is_not") and re.fullmatch(
        r"\(\s*\)|\[\s*\]|\{\s*\}|\"\"|''", obj
    ):
        return subject, "be empty" if leaf.rel in ("eq", "is") else "not be empty"
    if leaf.rel in ("in", "not_in") and re.fullmatch(r"[(\[{]\x01*[)\]}]", _mask(obj, language)):
        items = [i for i in split_top(obj[1:-1], ",", language) if i]
        listed = ", ".join(show(i, language) for i in items)
        return subject, _REL_PHRASES[leaf.rel][0].replace("{obj}", listed)
    literal = is_literal(obj) and leaf.rel not in ("in", "not_in")
    template = _REL_PHRASES[leaf.rel][0 if literal else 1]
    return subject, template.replace("{obj}", show(obj, language))


_CONJUGATE = (
    ("not be ", "is not "),
    ("be ", "is "),
    ("not ", "does not "),
    ("have ", "has "),
)


def _conjugate(text: str) -> str:
    """ "be 1" -> "is 1", "equal `b`" -> "equals `b`", "not exist" -> "does not exist"."""
    for prefix, replacement in _CONJUGATE:
        if text.startswith(prefix):
            return replacement + text[len(prefix) :]
    verb, _, rest = text.partition(" ")
    return (verb + ("es" if verb.endswith(("sh", "ch", "ss", "x")) else "s") + " " + rest).strip()


def describe(need: Need, language: Language, nested: bool = False, mood: str = "must") -> str:
    """The requirement in words: mood "must" ("`x` must be 1") or "is" ("`x` is 1")."""

    def say(subject: str, texts: list[str], joiner: str) -> str:
        if mood == "must":
            return f"{subject} must " + joiner.join(texts)
        plural = " and " in subject and all(t.startswith(("have ", "not have ")) for t in texts)
        if plural:
            return f"{subject} " + joiner.join(t.replace("not have", "do not have") for t in texts)
        return f"{subject} " + joiner.join(_conjugate(t) for t in texts)

    if need.op == "leaf" and need.leaf is not None:
        subject, text = phrase(need.leaf, language)
        return say(subject, [text], "")
    leaves = [p.leaf for p in need.parts if p.op == "leaf" and p.leaf is not None]
    joiner = " and " if need.op == "all" else " or "
    if len(leaves) == len(need.parts):
        phrased = [phrase(leaf, language) for leaf in leaves]
        if len({s for s, _ in phrased}) == 1:
            texts = [t for _, t in phrased]
            if all(t.startswith("be ") for t in texts):
                return (
                    say(phrased[0][0], [texts[0]], "")
                    + joiner
                    + joiner.join(t[3:] for t in texts[1:])
                )
            return say(phrased[0][0], texts, joiner)
    inner = "; ".join(describe(p, language, True, mood) for p in need.parts)
    heads = {
        "must": ("all of: ", "one of: "),
        "is": ("all of these hold: ", "one of these holds: "),
    }
    text = heads[mood][0 if need.op == "all" else 1] + inner
    return f"({text})" if nested else text


def requirement(guard: str, language: Language) -> str | None:
    """The guard turned into what must hold instead: "`kv_repeat` must be 1"."""
    need = requirement_of(guard, language)
    return None if need is None else describe(need, language)


# --- names the guard reads -------------------------------------------------------

_KEYWORD_TEXT = """self Self as true false True False None Some Ok Err mut ref let if else
match in is not and or lambda for while return crate super dyn impl move except case try
raise null nil"""
_KEYWORDS = frozenset(_KEYWORD_TEXT.split())
_CHAIN = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")
_TYPE_RELS = {"+isinstance", "-isinstance", "+issubclass", "-issubclass", "+matches", "-matches"}


def _leaves(cond: Cond) -> Iterable[Leaf]:
    if isinstance(cond, Leaf):
        yield cond
    else:
        for part in cond.parts:
            yield from _leaves(part)


def names_in(expression: str) -> list[str]:
    """Variables and fields an expression reads: `q_l.dim(D::Minus1)?` -> ["q_l"]."""
    text = _STRING.sub('""', expression)
    found: list[str] = []
    for m in _CHAIN.finditer(text):
        before, after = text[: m.start()].rstrip(), text[m.end() :].lstrip()
        if before.endswith("::") or after.startswith(("::", "!")):
            continue
        parts = [p.strip() for p in m.group(0).split(".")]
        if after.startswith("("):
            parts = parts[:-1]
        if parts and parts[0] == "self":
            parts = parts[1:]
        if parts and (parts[0] not in _KEYWORDS or _soft(parts[0], after, "." in m.group(0))):
            found.append(".".join(parts))
    return found


_SOFT_KEYWORDS = frozenset({"match", "case"})  # names too where no expression follows


def _soft(word: str, after: str, chained: bool) -> bool:
    """A soft keyword used as a name: `match` alone, or `match.group()` (Python's
    `match = pattern.search(text)`), not `match x {` or `case 1:`."""
    return word in _SOFT_KEYWORDS and (chained or not re.match(r"[\w(\[{'\"-]", after))


def value_roots(names: Sequence[str], guard: str, values: Set[str] = frozenset()) -> set[str]:
    """The roots of the names a guard reads, without a module named only to call through
    it (`inspect.ismodule(module)` reads `module`, not `inspect`), unless it is one of
    `values` (a parameter called as `cb.run(..)` is still read)."""
    roots = {n.split(".")[0] for n in names}
    text = _STRING.sub('""', guard)
    called = {r for r in roots - set(values) if _only_called_through(r, text)}
    return roots - called


@lru_cache(maxsize=4096)
def _only_called_through(root: str, text: str) -> bool:
    """`root` appears in `text` only as `root.name(`."""
    uses = [m.end() for m in re.finditer(rf"(?<![\w.]){re.escape(root)}\b", text)]
    return bool(uses) and all(re.match(r"\s*\.\w+\s*\(", text[at:]) for at in uses)


def guarded_names(guard: str, language: Language) -> tuple[str, ...]:
    """Identifiers and fields the guard reads: "self.kv_repeat != 1" -> ("kv_repeat",)."""
    cond = parse_guard(guard, language)
    expressions: list[str] = []
    if cond is None:
        expressions.append(guard)
    else:
        for leaf in _leaves(cond):
            expressions.append(leaf.subject)
            if leaf.rel not in _TYPE_RELS and leaf.rel not in ("+hasattr", "-hasattr"):
                expressions.append(leaf.obj)
    binding = spec_for(language).inner_binding
    # `c` of `any(c in mode for c in 'wax')`, `d` of `.any(|&d| d == 0)`: not values read
    bound = {re.sub(r"^[&\s]*(?:mut\s+)?", "", n).strip() for m in re.finditer(binding, guard)
             for n in m.group("names").split(",")} if binding else set()  # fmt: skip
    out: list[str] = []
    for expression in expressions:
        for name in names_in(expression):
            if name not in out and name.split(".")[0] not in bound:
                out.append(name)
    return tuple(out)
