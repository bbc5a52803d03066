"""Facts read out of a record's code, gathered into the `RecordFacts` a page is written
from and that the JSON shows: per site the requirement its guard implies, where the
guarded values come from, the sibling checks of its function and the public functions
that reach it; per record the tests that exercise it and its git history.

The guard grammar lives in `errdex.analyze.guards`, origins in `errdex.analyze.origins`,
the call graph, tests and history in their own modules; this module only reads the site
and combines what those found. Nothing here is guessed: what can't be read is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from errdex.analyze.commandline import program_facts
from errdex.analyze.guards import _STRING as _STRING
from errdex.analyze.guards import (
    Cond,
    Group,
    Leaf,
    Need,
    affirm,
    aspect,
    clean,
    deny,
    describe,
    guarded_names,
    is_literal,
    names_in,
    parse_guard,
    phrase,
    requirement,
    requirement_of,
    show,
    split_top,
    strip_self,
    value_roots,
)
from errdex.analyze.guards import _leaves as leaves
from errdex.analyze.origins import Origin, declared_type, find_origins, owner_of, short_name
from errdex.analyze.reached import site_path
from errdex.extract.structure import ELSE, IF, FieldWrite, FileStructure, OutlineDef, TypedBinding
from errdex.languages import spec_for
from errdex.models import (
    EntryPoint,
    History,
    Language,
    OriginFact,
    PathStep,
    Record,
    RecordFacts,
    Setter,
    SiblingCheck,
    Site,
    SiteFacts,
    StateFact,
    TestRef,
)

__all__ = [
    "Cond", "Group", "Leaf", "Need", "Origin", "affirm", "balanced", "clean", "declared_type",
    "deny", "describe", "find_origins", "guarded_names", "is_literal", "known_names", "leaves",
    "names_in", "parse_guard", "phrase", "receiver", "record_facts", "requirement",
    "requirement_of", "short_name", "show", "site_line", "split_top", "stable_literal",
    "strip_self", "value_roots",
]  # fmt: skip

# A guarded expression that reads a tensor's or array's shape, or a type.
_SHAPE = re.compile(r"\.(?:dims?\d?|shape|size|rank|ndim|len|elem_count)\b|\bdims\d\b|\blen\(")
_SIZED = re.compile(r"\blen\(\s*([A-Za-z_][\w.]*)\s*\)")
_DTYPE = re.compile(r"\.dtype\b")
_DEVICE = re.compile(r"\.(?:device|is_cuda|is_metal|is_cpu)\b")
_ENV = re.compile(
    r"""(?:env::var(?:_os)?|os\.environ(?:\.get)?|os\.getenv|getenv)\s*[(\[]\s*["']([^"']+)"""
)


# --- the message, the call, the receiver -------------------------------------------


def stable_literal(record_or_site: Record | Site) -> str:
    """The longest literal run of the message: what to look for in an error's text."""
    parts = [p.strip(" \t\n:=([{") for p in record_or_site.template.literals]
    best = max(parts, key=len, default="")
    return best if len(best) >= 3 else ""


def site_line(site: Site) -> str:
    lines = site.snippet.code.splitlines()
    index = site.line - site.snippet.start_line
    return lines[index] if 0 <= index < len(lines) else ""


def receiver(site: Site, method: str) -> str | None:
    """The expression `.expect(...)` / `.context(...)` is called on, when the snippet shows it."""
    lines = site.snippet.code.splitlines()
    index = site.line - site.snippet.start_line
    for i in range(max(0, index), min(len(lines), index + 3)):
        at = lines[i].find(f".{method}(")
        if at < 0:
            continue
        before, above = lines[i][:at].strip(), i
        while (not before or before.startswith(".")) and above > 0:  # a chain split over lines
            above -= 1
            before = lines[above].strip() + before
        before = re.sub(r"^(?:let\s+(?:mut\s+)?[\w()\s,]+(?::[^=]+)?=|return\b)\s*", "", before)
        return before.rstrip("?") or None
    return None


def known_names(record: Record, siblings: Sequence[Record] = ()) -> frozenset[str]:
    """Every identifier the record (and the given siblings) mentions: the only names an
    explanation may cite."""
    words: set[str] = set()
    for rec in (record, *siblings):
        texts = [rec.template.message, rec.exception or "", rec.repo]
        for hole in rec.template.placeholders:
            texts += [hole.name, hole.expression]
        for site in rec.sites:
            texts += [site.guard or "", site.function or "", site.snippet.code, site.path]
            texts += [site.exception or "", site.variant or "", *site.variant_fields]
            texts += [f"{k} {v}" for k, v in site.bound]
        for text in texts:
            words.update(re.findall(r"[A-Za-z_]\w*", text))
    return frozenset(words)


# --- the facts of a record ----------------------------------------------------------

TypedBindings = Callable[[str], "Sequence[TypedBinding] | None"]  # path -> its typed names
Structures = Callable[[str], "FileStructure | None"]  # path -> its extracted structure
EntryPoints = Callable[[Site], tuple[EntryPoint, ...]]
CaughtBy = Callable[[Site], tuple[str, ...]]  # where callers catch a site's error
FixedBy = Callable[[Site], tuple[tuple[str, tuple[str, ...]], ...]]  # SiteFacts.fixed
Builds = Callable[[EntryPoint, str], bool]  # whether an entry point builds a value of a type
# (a class as a site writes it, the site's path, its language) -> as users import it
Importable = Callable[[str, str, Language], "str | None"]


def _kind_of_value(expression: str, site: Site) -> str | None:
    """What a guarded expression reads, when its own text says it: a shape, a dtype, a
    device, an environment variable."""
    env = _ENV.search(expression)
    if env:
        return f"environment variable {env.group(1)}"
    hooks = spec_for(site.language).before
    idiom = hooks.value_kind(expression, site.snippet.code) if hooks is not None else None
    if idiom:  # `itemsize * len(m)` of `m = memoryview(buf)`: the byte size of `buf`
        return idiom
    sized = _SIZED.search(expression)  # the value whose size it reads, not the first name
    roots = [n for n in names_in(sized.group(1) if sized else expression) if n]
    root = f"`{roots[0].split('.')[0]}`" if roots else "the input"
    if _SHAPE.search(expression):
        return f"shape of {root}"
    if _DTYPE.search(expression):
        return f"dtype of {root}"
    if _DEVICE.search(expression):
        return f"device of {root}"
    return None


def through_locals(
    guard: str | None, origins: Sequence[Origin | OriginFact], language: Language
) -> str | None:
    """The guard with a local that only holds a shape (`let expected_v =
    k_l.shape().dims4()?`) replaced by what it holds, so the requirement names the inputs:
    "`k_l` and `v_l` must have the same shape" rather than "`expected_v` must equal ..."."""
    for origin in origins:
        if not guard or origin.how != "local" or origin.name not in guard:
            continue
        pattern = _named(origin.name)
        if aspect(origin.expression) or _PART.fullmatch(origin.expression):
            value = origin.expression.rstrip("?")  # the value, not how its error is passed on
            guard = pattern.sub(value.replace("\\", "\\\\"), guard)
        elif _is_flag(guard, origin.name, language) and balanced(origin.expression):
            # `let supported = matches!(d, 32 | 64); if !supported {..}`: the flag's own
            # test is the requirement ("`d` must match `32 | 64`"), not "`supported`".
            guard = pattern.sub(f"({origin.expression})".replace("\\", "\\\\"), guard)
    return guard


# A local that only names another value, a part of it or its length (`let y = point.1`,
# `low = b`, `let k = ys.len()`): the requirement is on that value.
_PART = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[\d+\])*(?:\.len\(\))?")


# The regexes of a name, compiled once each: the same locals come back for every site
# and page (re's own cache of 512 is cycled through by all of errdex's).
@lru_cache(maxsize=4096)
def _named(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(name)}\b")


@lru_cache(maxsize=4096)
def _flag(negation: str, name: str) -> re.Pattern[str]:
    return re.compile(rf"\s*(?:{negation})?\s*\(?\s*{re.escape(name)}\s*\)?\s*")


def _is_flag(guard: str, name: str, language: Language) -> bool:
    """Whether the guard is `name` or its negation alone."""
    if name not in guard:
        return False
    return _flag(spec_for(language).negation, name).fullmatch(guard) is not None


def balanced(expression: str) -> bool:
    """Its brackets (outside string literals) all closed, none closed before opened."""
    depth = 0
    for char in _STRING.sub('""', expression):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def origin_facts(
    site: Site, typed: Sequence[TypedBinding] | None = None
) -> tuple[OriginFact, ...]:
    """Where each value the guard reads comes from, most specific first."""
    if not site.guard:
        return ()
    names = guarded_names(site.guard, site.language)
    out: list[OriginFact] = []
    for origin in find_origins(site, names):
        if is_literal(origin.expression):
            continue
        source = None
        if origin.how == "parameter":
            source = f"parameter `{origin.name}` of `{short_name(site.function)}`"
        else:
            source = owner_of(origin, site, typed) or _kind_of_value(origin.expression, site)
        out.append(OriginFact(origin.name, origin.how, origin.expression, site.path,
                              origin.line, origin.text, source))  # fmt: skip
    cond = parse_guard(site.guard, site.language)
    subjects = [leaf.subject for leaf in leaves(cond)] if cond is not None else []
    subjects += [leaf.obj for leaf in leaves(cond) if leaf.obj] if cond is not None else []
    for expression in subjects:
        kind = _kind_of_value(expression, site)
        if kind and not any(o.expression == expression for o in out):
            text = clean(expression, site.language)
            out.append(OriginFact(text, "value", text, site.path, site.line,
                                  site_line(site).strip(), kind))  # fmt: skip
    return tuple(out)


SiblingSite = tuple[Record, Site, tuple[PathStep, ...]]  # another record's site, its path


def sibling_sites(site: Site, record_id: str, siblings: Sequence[Record],
                  file: FileStructure | None) -> list[SiblingSite]:  # fmt: skip
    """The other records' sites in the site's function, each with its path (read once
    for both the sibling checks and the ways out they close)."""
    return [(other, s, site_path(s, file) if file is not None else ())
            for other in siblings if other.id != record_id for s in other.sites
            if s.path == site.path and s.function == site.function and s.line != site.line]


def sibling_checks(
    site: Site, others: Sequence[SiblingSite], reached: Sequence[PathStep] = (),
) -> tuple[SiblingCheck, ...]:  # fmt: skip
    """The other checks of the site's function, in source order, each with the conditions
    its own path adds to the site's (`reached`), read from the file's structure."""
    mine = {(step.kind, step.line) for step in reached}
    branch = {step.line: step.kind for step in reached if step.kind in (IF, ELSE)}
    out: list[tuple[int, SiblingCheck]] = []
    for other, s, theirs in others:
        req = requirement(s.guard, s.language) if s.guard else None
        position = "before" if s.line < site.line else "after"
        when = [step.text for step in theirs if (step.kind, step.line) not in mine]
        if any(step.kind in (IF, ELSE) and branch.get(step.line, step.kind) != step.kind
               for step in theirs):  # the `else` of this site's `if`, or the other way
            position = "apart"
        out.append((s.line, SiblingCheck(other.id, other.template.message, s.line, s.guard,
                                         req, position, tuple(when))))  # fmt: skip
    out.sort(key=lambda pair: pair[0])
    return tuple(check for _, check in out)


def closed_ways(
    site: Site, reached: tuple[PathStep, ...], others: Sequence[SiblingSite],
) -> tuple[PathStep, ...]:  # fmt: skip
    """The site's path (`reached`), each enclosing `if` marked `closed` when a sibling
    check in its `else` raises for the very inputs this check rejects (basicConfig:
    `"stream" in kwargs and "filename" in kwargs` here, `"stream" in kwargs or "filename"
    in kwargs` in the `else` of `if handlers is None:`): not entering the `if` raises that
    error instead. One that other inputs pass (json.loads' bytes, for a BOM check on a
    str) keeps it."""
    if not site.guard or not any(step.kind == IF for step in reached):
        return reached
    elsewhere = {step.line for _, s, theirs in others
                 if s.guard and _implies(site.guard, s.guard, site.language)
                 for step in theirs if step.kind == ELSE}  # fmt: skip
    return tuple(replace(step, closed=True) if step.kind == IF and step.line in elsewhere
                 else step for step in reached)  # fmt: skip


def _implies(mine: str, theirs: str, language: Language) -> bool:
    """Whether a guard holding (a conjunction of tests) makes another hold (a disjunction
    of tests): one test is in both. False when either cannot be read."""
    a, b = parse_guard(mine, language), parse_guard(theirs, language)
    if a is None or b is None:
        return False
    held = set(a.parts) if isinstance(a, Group) and a.op == "and" else {a}
    enough = set(b.parts) if isinstance(b, Group) and b.op == "or" else {b}
    return bool(held & enough)


def receiver_state(
    site: Site, file: FileStructure | None, own: OutlineDef | None,
    entries: Sequence[EntryPoint] = (), builds: Builds | None = None,
) -> tuple[StateFact, ...]:
    """The receiver's fields the guard reads (`self._eof`) that methods of the same
    class set, each with those methods: state left by an earlier call; unless only its
    constructor sets it and one of the `entries` builds the object (`builds`), in the
    same call as the user's."""
    if not site.guard or file is None or own is None or own.receiver is None:
        return ()
    receiver = own.receiver
    field = re.compile(rf"(?<![\w.]){re.escape(receiver)}\.([A-Za-z_]\w*)\b(?!\s*\()")
    read = {m.group(1) for m in field.finditer(site.guard)}
    constructors = spec_for(site.language).outline.constructors
    out = []
    for name in sorted(read):
        writes = [w for w in file.writes
                  if w.field == name and file.defs[w.writer].owner == own.owner]  # fmt: skip
        set_in = tuple(Setter(file.defs[w.writer].name, w.line) for w in writes)
        if any(s.function == own.name and _on_every_path(site, own, s.line) for s in set_in):
            continue  # the function sets it itself above the check: this call decides
        if set_in:
            out.append(StateFact(name, set_in, _built_by(site, own, set_in, entries, builds),
                                 _constructor_argument(file, writes, constructors)))
    field_at = rf"(?<![\w.]){re.escape(receiver)}\.\w+"
    inner = re.search(rf"{field_at}\s*[.\[]|\w\([^()]*{field_at}", site.guard)  # a call: `f(`
    if inner or {fact.field for fact in out if fact.argument} != read:
        # A field that other calls change as well (BoundedSemaphore's `_value`, which
        # `release` counts up), the state of the object a field holds
        # (`self._transport.is_closing()`) or what a call makes of it
        # (`getLogger(self.name) is not self`) decides too: not only how it was built.
        out = [replace(fact, argument=None) for fact in out]
    return tuple(out)


def _constructor_argument(
    file: FileStructure, writes: Sequence[FieldWrite], constructors: frozenset[str],
) -> str | None:  # fmt: skip
    """The constructor parameter a field is assigned as given (`self.loader = loader`),
    when that assignment in the class's constructor is the field's only one."""
    if len(writes) != 1:
        return None
    writer, value = file.defs[writes[0].writer], writes[0].value
    params = set(writer.params or ()) - {writer.receiver}
    return value if writer.name in constructors and value in params else None


_AUGMENTED = re.compile(r"[-+*/%&|^@]=|<<=|>>=|//=|\*\*=")


def _on_every_path(site: Site, own: OutlineDef, line: int) -> bool:
    """Whether the assignment at `line` runs on every way through the function to the
    site: above it, a plain assignment (not `-=`) that is a statement of the function's
    body itself, not of an `if` arm or a loop (by indentation, as the snippet shows)."""
    if not own.line <= line < site.line:
        return False
    lines = site.snippet.code.splitlines()
    at = line - site.snippet.start_line
    first = own.line - site.snippet.start_line + 1  # the body's first line, after the header
    if not 0 <= at < len(lines) or not 0 < first <= at:
        return False
    body = next((text for text in lines[first : at + 1] if text.strip()), "")
    written = lines[at]
    indent = len(written) - len(written.lstrip())
    return indent == len(body) - len(body.lstrip()) and not _AUGMENTED.search(written)


def _built_by(
    site: Site, own: OutlineDef, set_in: Sequence[Setter], entries: Sequence[EntryPoint],
    builds: Builds | None,
) -> str | None:  # fmt: skip
    """The first entry point that builds the site's object itself, when only the class's
    constructor sets the field: the object is made from that call's own arguments."""
    constructors = spec_for(site.language).outline.constructors
    if builds is None or own.owner is None or not all(s.function in constructors
                                                     for s in set_in):
        return None
    return next((e.function for e in entries if builds(e, own.owner)), None)


def site_public(own: OutlineDef | None) -> bool | None:
    """Whether users can call the site's function, from its tree. A trait impl's method
    is public by the trait, yet reached through what builds or holds the value: None, the
    page decides that from the snippet, unless the type itself is one users cannot name
    (a private `struct`)."""
    return own.public if own is not None and not (own.in_trait and own.public) else None


def record_facts(
    record: Record,
    siblings: Sequence[Record] = (),
    *,
    typed: TypedBindings | None = None,
    structure: Structures | None = None,
    entry_points: EntryPoints | None = None,
    tests: tuple[TestRef, ...] = (),
    history: History | None = None,
    importable: Importable | None = None,
    builds: Builds | None = None,
    conditions: Callable[[str, int], tuple[str, ...]] | None = None,
    caught_by: CaughtBy | None = None,
    fixed: FixedBy | None = None,
) -> RecordFacts:
    """Every fact of `record`: per site (at most 20 sites, the first ones in source order)
    and for the record as a whole."""
    sites = []
    for site in record.sites[:20]:
        entries = entry_points(site) if entry_points else ()
        file = structure(site.path) if structure else None
        own = file.def_at(site.line) if file is not None else None
        origins = origin_facts(site, typed(site.path) if typed else None)
        guard = through_locals(site.guard, origins, site.language)
        others = sibling_sites(site, record.id, siblings, file)
        reached = closed_ways(site, site_path(site, file), others) if file is not None else ()
        sites.append(SiteFacts(
            path=site.path,
            line=site.line,
            function=site.function,
            guard=site.guard,
            requirement=requirement(guard, site.language) if guard else None,
            origins=origins,
            siblings=sibling_checks(site, others, reached),
            entry_points=entries,
            caught_by=caught_by(site) if caught_by else (),
            fixed=fixed(site) if fixed else (),
            reached=reached,
            parameters=own.params if own is not None else None,
            public=site_public(own),
            results=own.results if own is not None else None,
            lazy=own.lazy if own is not None else "",
            state=receiver_state(site, file, own, entries, builds),
            exception=importable(site.exception, site.path, site.language)
            if importable and site.exception else None,
            built_when=conditions(site.path, site.line) if conditions else (),
            program=program_facts(site, file, own, reached, [o.expression for o in origins]),
        ))
    return RecordFacts(sites=tuple(sites), tests=tests, history=history)
