"""Error helpers found in the code, not only listed: a function whose body raises the
message its caller hands it (`[[noreturn]] void fail(const std::string &why) { throw
std::runtime_error(why); }`, `inline void set_error(const handle &type, const char *msg) {
PyErr_SetString(type.ptr(), msg); }`) is a rule of the repository, as if its errdex.toml
listed it: every call of it, in any file, is a site of the caller's message with the
caller's function, guard and snippet.

Each extractor says which helpers a file defines (`FileExtraction.helpers`, read by the
language's own folder); this module, after every file was read once, makes the rules of
the whole repository from them and says which files call them, to be read again with
those rules (errdex.index). A name is a helper only where the repository leaves no doubt:
every helper of that name raises alike, the rules already listed keep their names, and
another function of the same name (not a helper) must differ from it by its number of
parameters, which the rule then asks of each call.

Language-neutral: which languages' files call which languages' helpers is each spec's
`helpers_reach`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from errdex.extract import Rule
from errdex.languages import spec_for
from errdex.models import FileExtraction, Helper, Language, SourceFile

MAX_HELPERS = 500  # per language: every call a file makes is looked up among them
_READ_LIMIT = 2_000_000  # bytes of a file searched for a helper's call


@dataclass(frozen=True)
class Discovered:
    """The rules made of a repository's helpers, by the language whose files call them,
    and the helpers behind them."""

    rules: Mapping[Language, tuple[Rule, ...]]
    helpers: tuple[Helper, ...]

    def names(self) -> frozenset[str]:
        """The names whose calls are read again (those the language finds anyway are not)."""
        read = {h.name.rsplit("::", 1)[-1] for h in self.helpers if h.calls_read}
        return frozenset(rule.name for rules in self.rules.values() for rule in rules
                         if rule.name not in read)  # fmt: skip


def _reach(language: Language) -> frozenset[Language]:
    return spec_for(language).helpers_reach or frozenset({language})


def _signature(helper: Helper) -> tuple[object, ...]:
    return (helper.kind, helper.message_arg, helper.exception, helper.guard_arg,
            helper.format_args, helper.details)  # fmt: skip


def discover(
    extractions: Iterable[FileExtraction], listed: Mapping[Language, Sequence[Rule]],
    languages: Mapping[str, Language],
) -> Discovered:
    """The rules the `extractions`' helpers make for each language (`listed`: the rules
    each language reads already, whose names are kept; `languages`: each file's)."""
    extractions = list(extractions)
    helpers = [h for e in extractions for h in e.helpers]
    # The other definitions of every helper's name, by the language of their file.
    named = {h.name.rsplit("::", 1)[-1] for h in helpers}
    others: dict[tuple[Language, str], list[int | None]] = defaultdict(list)
    for extraction in extractions:
        structure = extraction.structure
        language = languages.get(structure.path) if structure is not None else None
        if structure is None or language is None:
            continue
        own = {h.line for h in extraction.helpers}
        for definition in structure.defs:
            if definition.name in named and definition.line not in own:
                params = definition.params
                others[language, definition.name].append(
                    None if params is None else len(params))
    rules: dict[Language, list[Rule]] = defaultdict(list)
    kept: list[Helper] = []
    by_target: dict[Language, dict[str, list[Helper]]] = defaultdict(lambda: defaultdict(list))
    for helper in helpers:
        for target in _reach(helper.language):
            by_target[target][helper.name.rsplit("::", 1)[-1]].append(helper)
    for target, by_name in sorted(by_target.items(), key=lambda kv: kv[0].value):
        taken = {r.name.rsplit("::", 1)[-1] for r in listed.get(target, ())}
        for name, candidates in sorted(by_name.items()):
            if name in taken:
                continue
            found, rest = _one_signature(candidates)
            arities = _arities(found, [*rest, *(n for lang in _reach(target) | {target}
                                                for n in others.get((lang, name), ()))])
            if arities is None:
                continue
            first = min(found, key=lambda h: (h.path, h.line))
            rules[target].append(Rule(
                name=name, form="call", kind=first.kind, message_arg=first.message_arg,
                guard_arg=first.guard_arg, exception=first.exception,
                format_args=first.format_args, arities=arities, details=first.details,
            ))  # fmt: skip
            if len(rules[target]) >= MAX_HELPERS:
                break
            kept += [h for h in found if h not in kept]
    kept.sort(key=lambda h: (h.name, h.path, h.line))
    return Discovered({k: tuple(v) for k, v in rules.items()}, tuple(kept))


def _one_signature(found: Sequence[Helper]) -> tuple[list[Helper], list[int | None]]:
    """The helpers of one name that a rule stands for, and the parameter counts of the
    others: overloads that raise differently (`raise_from(type, msg)` and
    `raise_from(err, type, msg)`) leave the first defined, told from the rest by their
    number of parameters."""
    groups: dict[tuple[object, ...], list[Helper]] = defaultdict(list)
    for helper in sorted(found, key=lambda h: (h.path, h.line)):
        groups[_signature(helper)].append(helper)
    first, *others = groups.values()
    return first, [h.arity for group in others for h in group]


def _arities(found: Sequence[Helper], others: Sequence[int | None]) -> tuple[int, ...] | None:
    """The argument counts a call of the helpers `found` must have: () when no other
    function has their name; None when one does that calls cannot be told from them."""
    if not others:
        return ()
    own = {h.arity for h in found}
    if None in own or None in others or own & set(others):
        return None
    return tuple(sorted(a for a in own if a is not None))


def calling(files: Sequence[SourceFile], found: Discovered,
            names: frozenset[str] | None = None) -> list[SourceFile]:  # fmt: skip
    """The files that write a call of one of `found`'s rules (of those `names`), in
    their order."""
    patterns: dict[Language, re.Pattern[bytes]] = {}
    wanted = found.names() if names is None else found.names() & names
    for language, rules in found.rules.items():
        named = sorted(r.name for r in rules if r.name in wanted)
        if not named:
            continue
        words = b"|".join(re.escape(name.encode()) for name in named)
        patterns[language] = re.compile(rb"(?<![\w])(?:" + words + rb")\s*\(")
    out: list[SourceFile] = []
    for file in files:
        pattern = patterns.get(file.language)
        if pattern is None:
            continue
        try:
            with open(file.absolute, "rb") as handle:
                text = handle.read(_READ_LIMIT)
        except OSError:
            continue
        if pattern.search(text):
            out.append(file)
    return out


def merged(
    first: Sequence[FileExtraction], again: Sequence[FileExtraction]
) -> list[FileExtraction]:
    """`first` with each file read again replaced by its new reading, in `first`'s order;
    a file whose second reading failed keeps its first."""
    by_path = {e.structure.path: e for e in again if e.structure is not None}
    return [by_path.get(e.structure.path, e) if e.structure is not None else e for e in first]


def shown(helpers: Sequence[Helper]) -> tuple[str, ...]:
    """The helpers as the index summary names them: `name (path:line)`, one a name."""
    seen: dict[str, Helper] = {}
    for helper in helpers:
        seen.setdefault(helper.name, helper)
    return tuple(f"{h.name} ({h.path}:{h.line})" for h in seen.values())
