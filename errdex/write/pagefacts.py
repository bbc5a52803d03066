"""The facts one page is written from, gathered once for `prose` and `snippets`: the
primary site, its guard and requirement, where the guarded values come from, the checks
before and after it in the same function, and small helpers both writers share.

It only reads the record (and the `RecordFacts` gathered by `errdex.analyze.facts`); it writes
no page text beyond short phrases.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from errdex.analyze import before as earlier
from errdex.analyze import facts
from errdex.analyze.facts import Need, Origin
from errdex.analyze.fixedargs import outcome
from errdex.analyze.inputs import ReadInput, read_input
from errdex.analyze.origins import Computed, computed_from_arguments
from errdex.extract.structure import EXCEPT
from errdex.languages import spec_for
from errdex.languages.writer import raised_at
from errdex.models import (
    Language,
    Program,
    Record,
    RecordFacts,
    Site,
    SiteFacts,
    SiteKind,
    StateFact,
    TestRef,
)
from errdex.write import branches, commandline, escapes, impossible, invariants, passed, reading
from errdex.write.impossible import RuledOut
from errdex.write.lifted import Lifted, lift
from errdex.write.loops import for_each, items_of

# What the code does when the error fires, by kind ("{exc}" is the exception type).
_ACTION = {
    SiteKind.BAIL: "bails: it returns an Err carrying this message",
    SiteKind.PANIC: "panics with this message (the thread unwinds; there is no Result to handle)",
    SiteKind.EXPECT: "panics through .expect with this message",
    SiteKind.CONTEXT: "wraps the underlying error with this message as context",
    SiteKind.ERROR_ENUM: "returns the error `{exc}`, whose display text is this message",
    SiteKind.WARN: "emits this warning and carries on",
    SiteKind.LOG: "logs this message (a log line, not a raised error)",
}
# Unguarded sites, recognised from the raising line: (pattern, nature).
_NATURES = (
    (r"\b(todo|unimplemented)!|NotImplementedError", "unimplemented"),
    (r"\bunreachable!", "unreachable"),
)

@dataclass(frozen=True)
class PageFacts:
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
    known: RecordFacts | None = None  # the record's facts: typed origins, tests, history
    site_facts: SiteFacts | None = None  # those of the primary site
    # What the user touches: the public functions that reach the site (the site's own
    # function when it is public), nearest first; empty when none is known.
    users: tuple[str, ...] = ()
    public: bool | None = None  # the site's function is callable by users (None: unknown)
    user_terms: bool = False  # the requirement reads only the public function's parameters
    params: tuple[str, ...] | None = None  # the site's function's parameters, when shown
    comment: str | None = None  # the comment just above the check, as written
    doc: str | None = None  # the first sentence of the function's doc comment
    invariant: bool = False  # the code says this should never happen (a bug if it does)
    debug_only: bool = False  # `debug_assert!`: checked in debug builds only
    exc_class: str | None = None  # the error type a caller can match (not a helper)
    # A class as the sites write it -> as users import it (`errors.HeaderParseError` ->
    # `email.errors.HeaderParseError`), where the analysis found that
    imported: Mapping[str, str] = field(default_factory=dict)
    # The check restated at the public caller (`guard`, `need`, `names` and `params` are
    # then the caller's), and the check as the site's function writes it.
    lifted: Lifted | None = None
    checked: str | None = None
    # The sites whose check an earlier check on their path already makes pass, and why
    ruled_out: tuple[tuple[Site, RuledOut], ...] = ()
    on_receiver: bool = False  # the requirement is on the object the method is called on
    # The sites whose error a handler of their own function catches (the handler's line)
    swallowed: tuple[tuple[Site, int], ...] = ()
    caught_above: tuple[tuple[Site, tuple[str, ...]], ...] = ()  # every caller catches it
    never_seen: bool = False  # every site's error is caught in the library: none reaches you
    selects: str | None = None  # a check inside a handler, which picks this message
    cli: str | None = None  # the parsed command line the check reads (its fields are flags)
    program: Program | None = None  # the program of its own the site is in, and its flags
    paths: Mapping[str, str] = field(default_factory=dict)  # locals that are files under a flag
    only_when: str | None = None  # what leads to a value's `.expect`/`.context` (not its cause)
    read_input: ReadInput | None = None  # the file or model the check is on, when it reads one
    items: tuple[Origin, ...] = ()  # the loop items its requirement holds for, each in turn
    computed: tuple[Computed, ...] = ()  # the locals it reads computed from the arguments
    # The site function's parameters that every call of it in the code passes a literal
    # (SiteFacts.fixed), with the literals: none is a value of the user's
    fixed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fixed_outcome: bool | None = None  # False: the check never fails for them; True: always

    @property
    def entry(self) -> str:
        """The function(s) the user called, in backticks: "`Tensor::reshape`" or
        "`A`, `B` or `C`"; the raising function when no public one is known."""
        if self.program is not None and (self.cli is not None or self.program.command):
            return commandline.entry(self.program)
        if not self.users:
            return self.where
        names = [f"`{u}`" for u in self.users[:3]]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    @property
    def direct(self) -> bool:
        """The user calls the site's own function (or builds its class), not a function
        that reaches it: its parameters are the arguments the user passes."""
        return not self.users or re.sub(r"\.__(?:init|new)__$", "", self.site.function or "") \
            == self.users[0]

    @property
    def reported(self) -> bool:
        """The message is logged or emitted as a warning, not raised: nothing reaches the
        caller as an error, and nothing chains a cause."""
        return self.site.kind in (SiteKind.LOG, SiteKind.WARN)

    @property
    def always_fails(self) -> bool:
        """The check reads only parameters the code's calls fix, and fails for all of them."""
        return bool(self.fixed) and self.fixed_outcome is True

    @property
    def own_params(self) -> set[str]:
        """The parameters a caller gives values of its own: not `self`, not `fixed` ones."""
        return set(self.params or ()) - {"self"} - set(self.fixed)

    @property
    def state(self) -> tuple[StateFact, ...]:
        """The receiver's fields the check reads that other methods set."""
        return self.site_facts.state if self.site_facts else ()

    @property
    def state_only(self) -> bool:
        """The check reads the receiver's state and none of the function's parameters:
        no argument of this call changes the outcome; an earlier call's effect does."""
        if not self.state or all(fact.built_by for fact in self.state):
            return False  # an object the user's call builds is made of that call's arguments
        params = set(self.params or ()) - {"self"}
        if self.params:
            params -= {self.params[0]}  # the receiver (`self`, Go's `p`)
        roots = {n.split(".")[0] for n in self.names}
        return not (roots & params) and not any(o.how == "parameter" for o in self.origins)

    @property
    def receiver_only(self) -> bool:
        """The check reads the object the method is called on (`self.environment.is_async`)
        and none of the other arguments: earlier calls or its constructor decide."""
        if not self.guard or not self.params or self.params[0] not in ("self", "cls"):
            return False
        receiver = self.params[0]
        if not re.search(rf"(?<![\w.]){receiver}\.", self.guard) and (
                self.read_input or _values_read(self.guard) != {receiver}):
            return False  # neither its field nor it alone as a value (`matches!(self, ..)`)
        if any(field for e in self.site_facts.entry_points for field, _ in e.set_from
               if re.search(rf"\.{field}\b", self.guard)) if self.site_facts else False:
            return False  # a caller builds it from its own argument (`Gather { ids_l, .. }`)
        words = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", self.guard))
        return not (words & set(self.params[1:])) and not any(
            o.how == "parameter" for o in self.origins)

    @property
    def reached(self) -> tuple[str, ...]:
        """What else holds whenever the primary site is reached (enclosing branches,
        the arms before its own, earlier returns not taken), in words."""
        return tuple(self.said(step.text, step.line) for step in self.site_facts.reached) \
            if self.site_facts else ()  # fmt: skip

    @property
    def runs(self) -> Program | None:
        """The program the user runs (or builds) to reach the site, when it is one."""
        return self.program if self.program is not None and self.program.command else None

    def said(self, text: str, line: int = 0) -> str:
        """Code spans of `text` (`num_heads` differs from ..) with the locals that hold a
        part of the inputs written as that part (`q.dim(1)`), as the requirement is; for a
        condition at `line`, only the locals assigned before it (`if dest is None:` tests
        the argument, not the `dest = ..` its body computes)."""
        text = commandline.as_flags(text, self.program, self.lang) or text
        known = [o for o in self.origins if o.how == "local" and not (line and o.line >= line)]
        return re.sub(r"`([^`]+)`", lambda m: "`" + (facts.through_locals(
            m.group(1), known, self.lang) or m.group(1)) + "`", text) if known else text

    @property
    def internal(self) -> bool:
        """The site's function is not one the user calls (or not known to be)."""
        return not self.public

    def source_of(self, name: str) -> str | None:
        """The typed origin of a guarded name ("Config.kv_repeat"), if one was found."""
        return next((o.source for o in (self.site_facts.origins if self.site_facts else ())
                     if o.name == name and o.source), None)


def gather(
    record: Record, siblings: Sequence[Record], known: RecordFacts | None = None
) -> PageFacts:
    sites = record.sites
    # A site whose check an earlier one already makes pass is explained last: the page
    # leads with a place the user can really reach.
    ruled = [impossible.ruled_out(s, _earlier_checks(s, siblings, record.id)) for s in sites]
    handled = [escapes.caught_at(s) for s in sites]  # raised and caught in its own function
    above = escapes.caught_above(sites, handled, known)  # caught where it is called
    possible = [s for s, why, at, up in zip(sites, ruled, handled, above, strict=True)
                if why is None and at is None and not up] or list(sites)  # fmt: skip
    site = next((s for s in possible if facts.requirement_of(s.guard, s.language)), None)
    site = site or next((s for s in possible if s.guard), possible[0])
    ruled_out = tuple((s, why) for s, why in zip(sites, ruled, strict=True) if why is not None)
    swallowed = tuple((s, at) for s, at in zip(sites, handled, strict=True) if at is not None)
    caught_above = tuple((s, up) for s, up in zip(sites, above, strict=True) if up)
    lang, guard = site.language, site.guard
    nature, recv = "guarded" if guard else "always", None
    selects = None  # a check inside a handler: it selects the message, not the cause
    handler = re.match(r"except(?:\*|\b)\s*(.*)", guard or "")  # not `exceptionMessage`
    if handler:  # raised while handling another exception: that one is the cause
        nature, recv, guard = "handler", handler.group(1) or None, None
    names, origins, need = earlier.read_guard(site, guard)
    line = facts.site_line(site)
    for pattern, kind in _NATURES:
        if re.search(pattern, line) or re.search(pattern, record.exception or ""):
            nature = kind if not guard else nature
    if not guard and nature == "always":  # `x.ok_or_else(|| Error::Msg(..))`: x was None
        unwrapped = facts.receiver(site, "ok_or_else") or facts.receiver(site, "ok_or")
        if unwrapped:
            nature, recv = "expect", unwrapped
    fallback = re.fullmatch(r"(.+)\.is_(?:none|err)\(\)", guard or "")
    if fallback and re.search(r"\.(?:ok_or(?:_else)?|map_err)\s*\(", " ".join(
            site.snippet.code.splitlines()[max(site.line - site.snippet.start_line - 2, 0):
                                           site.line - site.snippet.start_line + 1])):
        nature, recv = "expect", fallback.group(1)  # the error a fallback builds: x was None
    only_when = None  # the enclosing condition of a value that was None or an Err
    if site.kind in (SiteKind.EXPECT, SiteKind.CONTEXT):
        method = "expect" if site.kind is SiteKind.EXPECT else "context"
        recv = facts.receiver(site, method) or facts.receiver(site, "with_context")
        clean = recv is not None and _whole(recv)
        nature = method if clean or not guard else "guarded"
        if clean and guard:  # `x.expect(..)` inside `if c {..}`: x failed, c only led there
            only_when, guard, names, origins, need = guard, None, (), (), None
    where = f"`{site.function}`" if site.function else f"module `{site.path}`"
    position = (site.path, site.line)
    local = sorted((s for s in siblings if s.id != record.id and shares_function(s, site)
                    and passed.declaration(s) is None),  # a `?` that converts checks nothing
                   key=lambda s: (_line_in(s, site) or 0, s.id))  # code order, not the caller's
    # Only checks the snippet shows on this very path: not another arm, not an else.
    before = tuple(s for s in local if (at := _line_in(s, site)) is not None
                   and at < site.line and reading.on_same_path(site, at, site.line))
    after = tuple(s for s in local if (at := _line_in(s, site)) is not None
                  and at > site.line and reading.on_same_path(site, site.line, at,
                                                                always=False))
    site_facts = next((sf for sf in known.sites if (sf.path, sf.line) == position), None) \
        if known else None  # fmt: skip
    apart = {(c.record_id, c.line) for c in site_facts.siblings if c.position == "apart"} \
        if site_facts else set()  # on a branch this site's path excludes  # fmt: skip
    before = tuple(s for s in before if (s.id, _line_in(s, site)) not in apart)
    after = tuple(s for s in after if (s.id, _line_in(s, site)) not in apart)
    read, (guard, nature, site_facts, checked) = guard, earlier.before_check(
        site, guard, nature, site_facts, local)  # an earlier `return`, `del kwargs[..]`
    chained = branches.chain_guard(site, guard, site_facts, local, lang) \
        if guard and site_facts is not None and nature == "guarded" else None  # fmt: skip
    if chained is not None:  # the last branch of a chain: the ones before it pass
        checked, guard = checked or guard, chained
    if guard != read:
        names, origins, need = earlier.read_guard(site, guard)
    handling = next((step for step in reversed(site_facts.reached)
                     if step.kind == EXCEPT), None) if site_facts is not None else None
    caught = handling.subject if handling is not None else None
    if caught and nature == "guarded" and handling is not None and (
            guard == caught or escapes.rethrows(site, handling.line)):
        # The site's guard is the handler itself (Java's `catch (E e)`), or a check inside
        # it that picks how to report the caught error (a message, or a bare re-raise):
        # the caught exception is the cause, the check only selects.
        nature, recv, selects, guard = "handler", caught, None if guard == caught else guard, None
        names, origins, need = (), (), None
    tried = earlier.handled_guard(guard if nature == "guarded" else None, site_facts, lang)
    if tried is not None:  # in `except AttributeError:` of a `getattr`: it had none
        checked, guard = checked or guard, tried
        names, origins, need = earlier.read_guard(site, guard)
    public = reading.is_public(site)
    if site_facts is not None and site_facts.public is not None:
        public = site_facts.public  # from the definition's tree: `pub`, a trait impl, `_`
    users: tuple[str, ...] = ()
    if public and site.function:  # a constructor is called as its class
        users = (re.sub(r"\.__(?:init|new)__$", "", site.function),)
    elif site_facts is not None:
        users = _nearest_users(site, [e.function for e in site_facts.entry_points])
    # From the definition's tree when the index read it (a header above the snippet, a
    # receiver written as `self`), else from the header the snippet shows.
    params = list(site_facts.parameters) if site_facts is not None and \
        site_facts.parameters is not None else reading.parameters(site)
    comment = reading.comment_above(site)
    doc = reading.doc_comment(site)
    text = " ".join(t for t in (comment, doc if nature == "always" else None) if t)
    invariant, worded = invariants.said(record, site, text, nature, site_facts, params)
    debug_only = bool(re.search(r"\bdebug_assert", line))
    # A debug-only assertion in the library's own code checks what it computed itself,
    # unless it is a public trait's method (`GgmlType::to_float(xs, ys)`: the facts know
    # its parameters, not its visibility) checking its own arguments: users call that.
    by_trait = site_facts is not None and site_facts.public is None \
        and site_facts.parameters is not None
    if debug_only and by_trait and invariants.reads_parameters(" ".join(
            [guard or "", *(o.expression for o in origins if o.how == "local")]),
            site_facts, params):
        public = True  # only then: a None (not known) stays None
    never_seen = len(swallowed) + len(caught_above) == len(sites)
    # What the check gives for every literal the code's calls pass (errdex.analyze.fixedargs)
    worked = outcome(site.guard, dict(site_facts.fixed)) if site_facts is not None else None
    invariant = invariant or (debug_only and not public) or len(ruled_out) == len(sites) \
        or never_seen or (len(sites) == 1 and worked is False)
    own = ({o.name for o in origins if o.how == "parameter"} | set(params or ())) - {"self"}
    own |= {o.name for o in origins if o.how == "field" and users_value(o)}
    read_in = read_input(site, site_facts.reached if site_facts else (), site.guard)
    items = items_of(origins, own) if read_in is None else ()  # `for x in xs:`, xs theirs
    own |= {o.name for o in items}
    # A module called through (`inspect.ismodule(module)`) is not a value the check reads;
    # a name the function binds (an origin, an assignment or binding the snippet shows) is.
    bound = {o.name for o in origins} | reading.bound_in(site.snippet.code, names)
    builtin = spec_for(lang).builtin_names - own - {o.name for o in origins}  # `str`, `bytes`
    roots = facts.value_roots(names, guard or "", own | bound) - builtin
    said = facts.through_locals(guard, origins, lang)
    if said and said != guard:  # locals that hold a part of the inputs (`q.dim(1)`)
        roots = facts.value_roots(facts.guarded_names(said, lang), said, own | bound) - builtin
    # A check on the receiver's own methods (`self.elem_count() == 0`) is on the value the
    # user calls the method on.
    on_receiver = bool(guard) and not roots and "self" in (params or ()) and bool(
        re.search(r"\bself\.\w+\s*\(", guard or ""))
    config = {o.name for o in origins if o.how == "field" and users_value(o)}
    user_terms = bool(need is not None and (
        (public and ((roots and roots <= own) or on_receiver))
        or (roots and roots <= config and users)))  # a config field the user set  # fmt: skip
    lifted = None
    if not user_terms and not public and guard and users and params is not None \
            and site_facts is not None:  # fmt: skip
        read = facts.through_locals(guard, origins, lang) or guard  # `match` -> its value
        lifted = lift(read, facts.guarded_names(read, lang), params,
                      site_facts.entry_points, users[0], lang, origins)
    if lifted is not None:  # the requirement on what the user passes to the caller
        checked, guard = checked or guard, lifted.guard
        names = facts.guarded_names(guard, lang)
        need, origins, user_terms, items = facts.requirement_of(guard, lang), (), True, ()
        users = (re.sub(r"\.__(?:init|new)__$", "", lifted.entry.function),)  # the class
        params = list(lifted.entry.parameters or ())
    fixed = dict(site_facts.fixed) if site_facts is not None and lifted is None else {}
    w, raised, imported = spec_for(lang).writer(), raised_at(record, site), \
        _imported(sites, known)  # a class as written -> as users import it
    items = tuple(o for o in items if o.name in roots)  # those the requirement speaks of
    req = for_each(facts.describe(need, lang) if need else None, items)
    holds = for_each(facts.describe(need, lang, mood="is") if need else None, items)
    program = site_facts.program if site_facts is not None else None
    paths = commandline.under_flags(program, origins, lang)
    cli = commandline.reads_flags(program, guard, paths) if need is not None and \
        lifted is None else None  # fmt: skip
    if cli is not None:  # `args.dtype` of `let args = Args::parse()` is the `--dtype` flag
        req = commandline.as_flags(req, program, lang, paths)
        holds = commandline.as_flags(holds, program, lang, paths)
        user_terms, users = True, ()
    if program is not None and program.command:
        users = ()  # a program's own functions are not called: the program is run
        user_terms = user_terms and cli is not None  # its functions' arguments are not yours
    return PageFacts(
        record, site, lang, where, guard, need, req, holds, names,
        origins,
        facts.stable_literal(record), nature, recv,
        before, after, known, site_facts, users=users, public=public,
        user_terms=user_terms, params=tuple(params) if params is not None else None,
        comment=comment, doc=doc,
        invariant=invariant or (worded and not (user_terms and req is not None)),
        debug_only=debug_only, ruled_out=ruled_out, swallowed=swallowed,
        caught_above=caught_above, never_seen=never_seen,
        on_receiver=user_terms and on_receiver and not roots and lifted is None,
        selects=selects,
        exc_class=w.exception_class(raised) or (raised if raised in imported else None),
        imported=imported,
        lifted=lifted, checked=checked, cli=cli, only_when=only_when, program=program,
        paths=paths,
        read_input=read_in, items=items,
        computed=computed_from_arguments(site, guard, names, origins,
                                         [p for p in params or () if p not in fixed]),
        fixed=fixed, fixed_outcome=worked,
    )  # fmt: skip


def _imported(sites: Sequence[Site], known: RecordFacts | None) -> dict[str, str]:
    """Each class the sites raise, as written -> as users import it, where known."""
    facts_of = known.sites if known else ()  # the first sites only (record_facts)
    return {s.exception: sf.exception for s, sf in zip(sites, facts_of, strict=False)
            if s.exception and sf.exception}  # fmt: skip


def _whole(expression: str) -> bool:
    """An expression read whole: its brackets closed, no closure or `match` cut inside."""
    return facts.balanced(expression) and "|" not in expression and not re.search(
        r"\bmatch\b", expression)


def _earlier_checks(site: Site, siblings: Sequence[Record], own: str) -> list[tuple[int, str]]:
    """The checks of other records that run, and pass, before the site on its path:
    (line, failing guard)."""
    out = []
    for other in siblings:
        if other.id == own:
            continue
        for s in other.sites:
            if (s.path == site.path and s.function == site.function and s.guard
                    and s.line < site.line and reading.on_same_path(site, s.line, site.line)):
                out.append((s.line, s.guard))
    return out


def shows_values(f: PageFacts, verb: str = "rejected") -> str:
    """"; the message shows the values it rejected" when a hole of its template holds a
    value the check reads; else what the holes do hold ("; the message shows `op`": an
    op's name, an output path), or nothing when it has none."""
    holes = [h.expression or h.name for h in f.record.template.placeholders]
    if not holes:
        return ""
    read = {n.split(".")[0] for n in f.names} | {o.name for o in f.origins}
    bound = dict(f.site.bound)  # a variant's field set from an expression (`lhs: a.dims`)
    if any(read & set(facts.names_in(f"{hole} {bound.get(hole, '')}")) for hole in holes):
        return f"; the message shows the values it {verb}"
    return "; the message shows " + ", ".join(f"`{hole}`" for hole in holes[:3])


def _nearest_users(site: Site, functions: Sequence[str]) -> tuple[str, ...]:
    """The entry points a page names: those of the site's own type first (a method of
    another type that calls `Self::name` calls its own, not this one), a program's `main`
    only when nothing else reaches the site."""
    found = list(dict.fromkeys(functions))
    owner = re.split(r"::|\.", site.function or "")[:-1]
    if owner:
        mine = [u for u in found if re.split(r"::|\.", u)[:-1][-1:] == owner[-1:]]
        found = mine or found
    named = [u for u in found if re.split(r"::|\.", u)[-1] != "main"]
    return tuple(named or found)


def users_value(origin: Origin) -> bool:
    """A field copied from a value the caller built (`cfg.kv_repeat`), not from the
    object's own state or a computation."""
    root = origin.expression.split(".")[0]
    return bool(re.fullmatch(r"[A-Za-z_]\w*(\.\w+)+", origin.expression)) and root not in (
        "self", "Self")


_NOT_VALUES = frozenset({"not", "is", "in", "and", "or", "if", "else", "None", "True", "False"})


def _values_read(guard: str) -> set[str]:
    """The names a guard reads as values: not those it calls (`f(`, `m!(`), paths and
    types (`Self::Cuda`, `DType`), keywords or constants."""
    bare = re.sub(r"\b[A-Z]\w*(?:::\w+)*\([^()]*\)", "", guard)  # `Self::Cuda(d)` binds `d`
    names = re.findall(r"(?<![\w.:])([a-z_]\w*)\b(?!\s*[(!:])", bare)
    return {n for n in names if n not in _NOT_VALUES and n != "_"}


def _line_in(other: Record, site: Site) -> int | None:
    """The line `other` raises at in the site's function (its nearest such site)."""
    lines = [s.line for s in other.sites if s.path == site.path and s.function == site.function]
    return min(lines, key=lambda n: abs(n - site.line), default=None)


MAX_SETTERS = 6  # methods a page names as setting a field the check reads (Future's _state: 5)
MIN_TEST_LITERAL = 12  # a shorter message ("Expected {x}") is quoted by unrelated tests


def verified_tests(f: PageFacts) -> tuple[TestRef, ...]:
    """The tests that expect exactly this message: an expectation (not a mere mention)
    whose line quotes every literal part of the template in order."""
    if f.known is None or f.record.template.literal_chars < MIN_TEST_LITERAL:
        return ()
    parts = [p.strip() for p in f.record.template.literals if p.strip()]
    out = []
    for test in (t for t in f.known.tests if t.kind != "mentions"):
        text, at = re.sub(r"\\(?=[^A-Za-z0-9])", "", test.text), 0
        for part in parts:
            at = text.find(part, at)
            if at < 0:
                break
            at += len(part)
        else:
            out.append(test)
    return tuple(out)


def shares_function(other: Record, site: Site) -> bool:
    return any(s.path == site.path and s.function == site.function for s in other.sites)


def message_text(record: Record) -> str:
    """The message as a reader sees it: Rust's format string as written; for Python (whose
    `message` is the source expression, quotes and all) the literal text with named holes."""
    if spec_for(record.language).can("message_is_source_expression"):
        return record.template.text
    return record.template.message


def fn_name(f: PageFacts) -> str:
    return facts.short_name(f.site.function) or f.site.path


def loc(site: Site) -> str:
    return f"{site.path}:{site.line}"


def single_leaf(f: PageFacts) -> facts.Leaf | None:
    return f.need.leaf if f.need is not None and f.need.op == "leaf" else None


def action(f: PageFacts) -> str:
    kind, exc, spec = f.site.kind, raised_at(f.record, f.site) or "", spec_for(f.lang)
    if exc in f.imported and spec.writer().exception_class(exc) is None:  # `source.error`
        exc = f.imported[exc]  # is `re.error`
    text = spec.actions.get(kind) or _ACTION.get(kind, "fails with this message")
    if "{exc}" in text and not exc:
        text = spec.unnamed_action
    return text.replace("{exc}", exc or "")


def violation_of(f: PageFacts) -> str | None:
    """The guard in words: what the failing input looks like."""
    leaf = single_leaf(f)
    if leaf is not None and leaf.rel == "eq":
        subject, obj = facts.show(leaf.subject, f.lang), facts.show(leaf.obj, f.lang)
        denied: str | None = f"{subject} is anything other than {obj}" \
            if facts.is_literal(leaf.obj) else f"{subject} and {obj} differ"  # fmt: skip
    else:
        cond = facts.parse_guard(f.guard or "", f.lang)
        denied = None if cond is None else facts.describe(facts.affirm(cond), f.lang, mood="is")
    if f.user_terms:  # inside a loop over the caller's values: one item fails it
        denied = for_each(denied, f.items, "some")
    return commandline.as_flags(denied, f.program, f.lang, dict(f.paths)) \
        if f.cli is not None else denied  # fmt: skip


def quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def raised_word(f: PageFacts) -> str:
    """How the message leaves the code: raised, or a warning emitted, or a line logged."""
    return {SiteKind.WARN: "emitted", SiteKind.LOG: "logged"}.get(f.site.kind, "raised")


def verb(f: PageFacts, this: bool = False) -> str:
    """What the site does: "panics"; with `this`, what it does with this message."""
    if this:
        return {SiteKind.PANIC: "panics with this message", SiteKind.WARN: "warns with this",
                SiteKind.ASSERT: "fails with this message", SiteKind.LOG: "logs this"}.get(
            f.site.kind, "raises this" if f.site.kind is SiteKind.RAISE else "returns this error")
    return {SiteKind.PANIC: "panics", SiteKind.WARN: "warns", SiteKind.BAIL: "returns an error",
            SiteKind.ASSERT: "fails", SiteKind.ERROR_ENUM: "returns this error"}.get(
        f.site.kind, "raises")  # fmt: skip


def joined(texts: Sequence[str]) -> str:
    """Conditions joined for a sentence: "a", "a and b", "a; b; and c"."""
    items = list(texts)
    if len(items) <= 2:
        return " and ".join(items)
    return "; ".join(items[:-1]) + "; and " + items[-1]
