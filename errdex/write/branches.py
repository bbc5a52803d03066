"""The requirement of a site in the last branch of a chain, over the whole chain.

`Some(other) => bail!(..)` after `Some("f16") => .., Some("f32") | None => ..` fails
only when none of the arms before it matched: the guard alone (`matches!(x,
Some(other))`) says "must be None", and the arms it comes after are the real ways to
pass. The same holds for the `else` of `if a: .. elif b: .. else: raise`. The ways to
pass are those branches that do not fail whenever they are taken (a sibling record
raised by the branch's own test is no way out) and that test the function's own values
(a platform flag of the module is not the caller's to pick), and failing the site's own
guard.

The combined guard is written with the language's own negation and conjunction, so
every section of the page (requirement, violation, validate) reads one condition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.analyze import facts
from errdex.analyze.origins import find_origins, shows_own_start
from errdex.extract.structure import EARLY_RETURN, ELSE
from errdex.languages import spec_for
from errdex.models import Language, PathStep, Record, Site, SiteFacts
from errdex.write.reading import bound_in

MAX_SUMMARY_PATH = 160  # characters of a path a summary says; a longer one of returns: by line


def chain_guard(
    site: Site, guard: str, known: SiteFacts, siblings: Sequence[Record], language: Language,
) -> str | None:  # fmt: skip
    """The guard that holds exactly when the site raises, over the branches before it
    that pass; None when the site ends no chain (or no branch before it passes)."""
    reached, params = known.reached, known.parameters
    spec = spec_for(language)
    mine = [s for other in siblings for s in other.sites
            if s.path == site.path and s.function == site.function]  # fmt: skip
    if reached and reached[-1].handled:
        later = [s.guard or "" for s in mine if s.line > site.line]
        return _after_arms(guard, reached[-1], [s.guard or "" for s in mine], spec.negated,
                           spec.conjunction, language, later)
    raised = [(s.line, (s.guard or "").strip()) for s in mine]
    chain: list[tuple[int, str]] = []
    for step in reversed(reached):
        if step.kind != ELSE or not step.branches:
            break
        chain[:0] = step.branches
    if not chain:
        return None
    ends = [line for line, _ in chain[1:]] + [site.line]
    # A branch that raises whenever it is taken (its raise's guard is the branch's own
    # test) passes nothing; one that raises only inside a nested check (an `except
    # ImportError:` in it) still passes the rest.
    selectable = [_selectable(site, code, chain[0][0], language, params) for _, code in chain]
    if None in selectable:
        return None  # a value the branches test is set anew before the site: not the same
    passing = [code for (line, code), end, picked in zip(chain, ends, selectable, strict=True)
               if picked and not any(line < at < end and said == code.strip()
                                     for at, said in raised)]  # fmt: skip
    if not passing:
        return None
    whole = f"({guard})" if re.search(r"\bor\b|\|\|", guard) else guard  # `a or b`: one test
    return spec.conjunction.join([*(spec.negated.format(code) for code in passing), whole])


def _selectable(
    site: Site, code: str, start: int, language: Language, params: Sequence[str] | None,
) -> bool | None:  # fmt: skip
    """Whether a branch's test reads a value of the site's function (a parameter, the
    object, a local, a loop's item), not only the module's state (`_mswindows`,
    `sys.platform`): only then is it a way the caller picks. A name the snippet does not
    show bound, in a function whose start it does not show either, is taken for a local
    unless it is written as a module's (`_private`, `CONSTANT`, `module.attr`). None when
    one of those values is set again between the chain's start and the site (`format =
    _find_unpack_format(filename)` in the `else`)."""
    values = facts.guarded_names(code, language)
    found = find_origins(site, values)
    if any(o.how != "parameter" and o.line > start for o in found):
        return None
    if found or params is None or {n.split(".")[0] for n in values} & set(params) \
            or bound_in(site.snippet.code, values) or re.search(r"\bself\.", code):
        return True  # fmt: skip
    # with the function's start not shown, a local may be bound unseen
    return not shows_own_start(site) and \
        not all("." in n or n.startswith("_") or n.isupper() for n in values)


def _after_arms(
    guard: str, arms: PathStep, others: Sequence[str], negated: str, conjunction: str,
    language: Language, later: Sequence[str] = (),
) -> str | None:  # fmt: skip
    """`guard` (a match of the arm's own pattern) after the arms before it that do not
    raise themselves (a sibling's guard is a match of that arm's pattern). When the one
    case the arm's own pattern leaves is an arm that raises too (`Some(_) => panic!(..),
    None => panic!(..)`), not matching it is no way out: only the arms before it are."""
    cond = facts.parse_guard(guard, language)
    if not isinstance(cond, facts.Leaf) or cond.rel != "+matches" or cond.subject != arms.subject:
        return None
    own = cond.obj.strip()
    if own not in guard:
        return None
    if not _binds(own):
        return None  # `Some("bad") =>`: failing the arm's own pattern is the whole way out
    failing = {p for other in others for p in _matched(other, arms.subject, language)}
    passing = [p for p in arms.handled if p not in failing]
    if not passing:
        return None
    alternatives = [_unbound(p) for p in passing] if len(passing) > 1 else passing
    before = negated.format(guard.replace(own, " | ".join(alternatives), 1))
    # `Some(other)` after `None =>`: not matching it is matching `None`, listed already.
    outside = facts.describe(facts.deny(cond), language)
    raising_after = [p for other in later for p in _matched(other, arms.subject, language)]
    if any(facts.describe(facts.Need("leaf", facts.Leaf(cond.subject, "+matches", p)),
                          language) == outside for p in [*passing, *raising_after]):  # fmt: skip
        return before
    return conjunction.join([before, guard])


def _binds(pattern: str) -> bool:
    """A pattern that binds what it matches (`Some(other)`, `other`, `_`, `Err(e)`),
    not one of fixed values (`Some("bad")`, `DType::F32`, `3`)."""
    fixed = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', pattern)
    return re.search(r"(?<![\w:.])[a-z_]\w*(?![\w(:])", fixed) is not None


_NAME_IN_PATTERN = re.compile(r"(?<![\w:.\"'])(?!true\b|false\b)[a-z_]\w*(?!\s*=|[\w(:\"'])")


def _unbound(pattern: str) -> str:
    """The pattern with the names it binds written `_`, to be one alternative of several
    (`Device::Cuda(device)` -> `Device::Cuda(_)`: `A | B(device)` is E0408 in Rust)."""
    pieces = re.split(r'("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')', pattern)
    return "".join(piece if i % 2 else _NAME_IN_PATTERN.sub("_", piece)
                   for i, piece in enumerate(pieces))  # fmt: skip


def _matched(guard: str, subject: str, language: Language) -> list[str]:
    """The patterns `guard` matches `subject` against (another arm's raise)."""
    cond = facts.parse_guard(guard, language) if guard else None
    if not isinstance(cond, facts.Leaf) or cond.rel != "+matches" or cond.subject != subject:
        return []
    return [p.strip() for p in facts.split_top(cond.obj, r"\|", language)]


def returns_past(reached: Sequence[PathStep]) -> list[tuple[int, str]]:
    """When all that leads to a site is earlier `return`s it did not take (the formats
    `Version.__setstate__` restores before it raises): each as (its line, when it is
    taken, in words), a way past the site; [] for any other path."""
    if not reached or any(s.kind != EARLY_RETURN or not s.returns_when for s in reached):
        return []
    return [(step.line, step.returns_when) for step in reached]


def returns_said(ways: Sequence[tuple[int, str]]) -> str:
    """"it returns at line 7 when `x` is 8; at line 12 when ..." for `returns_past`."""
    return "it returns " + "; ".join(f"at line {line} when {when}" for line, when in ways)


def path_in_short(said: str, reached: Sequence[PathStep]) -> str:
    """A site's path (`said` in words) as a summary says it: a long one that is all earlier
    returns as "it takes none of its earlier returns (lines 7, 12 and 17)"."""
    lines = [str(line) for line, _ in returns_past(reached)]
    if len(said) <= MAX_SUMMARY_PATH or len(lines) < 2:
        return said
    return f"it takes none of its earlier returns (lines {', '.join(lines[:-1])} and {lines[-1]})"
