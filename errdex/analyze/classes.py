"""The failure class of a record: one shared taxonomy across libraries (shape mismatch,
missing key, not implemented, ...), so pages of different libraries can point at each
other and explain the family an error belongs to.

The classes and their rules are data (`errdex/rules/classes.toml`); this module only
loads and applies them. It reads nothing but the record.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from errdex.analyze.facts import site_line
from errdex.errors import ConfigError
from errdex.models import FailureClass, Record, Site
from errdex.write.reading import comment_above

_SIGNALS = ("exceptions", "variants", "messages", "guards", "lines", "comments")
INVARIANT = "internal-invariant"  # the class of what the code says cannot happen


@dataclass(frozen=True)
class ClassRule:
    slug: str
    title: str
    background: str
    priority: int
    exceptions: frozenset[str]
    variants: tuple[re.Pattern[str], ...]
    messages: tuple[re.Pattern[str], ...]
    guards: tuple[re.Pattern[str], ...]
    lines: tuple[re.Pattern[str], ...]
    comments: tuple[re.Pattern[str], ...]


def _rule(entry: dict[str, Any], index: int) -> ClassRule:
    try:
        compiled = {
            key: tuple(re.compile(str(p)) for p in entry.get(key, []))
            for key in _SIGNALS
            if key != "exceptions"
        }
        return ClassRule(
            slug=str(entry["slug"]),
            title=str(entry["title"]),
            background=" ".join(str(entry["background"]).split()),
            priority=int(entry["priority"]),
            exceptions=frozenset(str(e) for e in entry.get("exceptions", [])),
            **compiled,
        )
    except (KeyError, ValueError, TypeError, re.error) as exc:
        raise ConfigError(
            f"built-in failure classes: class {index + 1} is invalid: {exc}"
        ) from None


@cache
def _data() -> dict[str, Any]:
    text = resources.files("errdex").joinpath("rules").joinpath("classes.toml").read_text()
    return tomllib.loads(text)


@cache
def rules() -> tuple[ClassRule, ...]:
    """The classes, highest priority first."""
    loaded = [_rule(entry, i) for i, entry in enumerate(_data().get("class", []))]
    return tuple(sorted(loaded, key=lambda r: -r.priority))


@cache
def _generic() -> frozenset[str]:
    """Error types raised for many causes: weaker evidence than the message's words."""
    return frozenset(str(name) for name in _data().get("generic", []))


CLASSES: tuple[tuple[str, str, str], ...] = tuple(
    (rule.slug, rule.title, rule.background) for rule in rules()
)


def _message_text(record: Record) -> str:
    """The message without its holes, lower-cased: what the words of the error say."""
    return " ".join(part.strip() for part in record.template.literals).lower()


def _exception_names(record: Record) -> set[str]:
    names = {record.exception or ""} | {site.exception or "" for site in record.sites}
    names |= {site.variant or "" for site in record.sites}
    out: set[str] = set()
    for name in names - {""}:
        out.add(name)
        out.add(re.split(r"::|\.", name)[-1])
    return out


def _by_type(rule: ClassRule, exceptions: set[str]) -> bool:
    return bool(rule.exceptions & exceptions) or any(
        p.search(e) for p in rule.variants for e in exceptions)


def _by_message(rule: ClassRule, message: str) -> bool:
    return any(p.search(message) for p in rule.messages)


def _by_comment(rule: ClassRule, record: Record) -> bool:
    """The comment just above every site says what the rule's `comments` say."""
    return bool(rule.comments) and all(
        any(p.search((comment_above(site) or "").lower()) for p in rule.comments)
        for site in record.sites)


def _invariant_rule() -> ClassRule:
    return next(rule for rule in rules() if rule.slug == INVARIANT)


def says_cannot_happen(text: str) -> bool:
    """The code's comment (or doc) says the case cannot happen: a bug if it does."""
    return any(p.search(text.lower()) for p in _invariant_rule().comments)


def message_says_cannot_happen(record: Record) -> bool:
    """The message's own words say the case is the library's bug ("internal error",
    "should never happen")."""
    return _by_message(_invariant_rule(), _message_text(record))


def line_says_cannot_happen(site: Site) -> bool:
    """The raising line marks the branch unreachable (`unreachable!()`)."""
    return any(p.search(site_line(site)) for p in _invariant_rule().lines)


def _by_code(rule: ClassRule, record: Record) -> bool:
    for site in record.sites:
        if site.guard and any(p.search(site.guard) for p in rule.guards):
            return True
        if rule.lines and any(p.search(site_line(site)) for p in rule.lines):
            return True
    return False


def classify(record: Record) -> FailureClass | None:
    """The class the strongest evidence names: the code's own comment above every site
    ("this should never happen": the invariant the page explains), then a specific error
    type (a
    `DeprecationWarning` whose text says "urllib.parse" is not a parse error), then the
    message's words, then a generic type (`ValueError`), then the guard and the raising
    line (`q.dtype()` in the guard of "unsupported sdpa type" says less than
    "unsupported"); within one kind of evidence, the highest priority. None when nothing
    fits: no class is guessed from words the message happens to share with a class's
    description."""
    message = _message_text(record)
    exceptions = _exception_names(record)
    specific, generic = exceptions - _generic(), exceptions & _generic()
    tiers: tuple[Callable[[ClassRule], bool], ...] = (
        lambda r: _by_comment(r, record), lambda r: _by_type(r, specific),
        lambda r: _by_message(r, message),
        lambda r: _by_type(r, generic), lambda r: _by_code(r, record))  # fmt: skip
    for fits in tiers:
        rule = next((r for r in rules() if fits(r)), None)
        if rule is not None:
            return FailureClass(slug=rule.slug, title=rule.title)
    return None


def background(slug: str) -> str | None:
    """The background paragraph of a class, for its page section."""
    return next((rule.background for rule in rules() if rule.slug == slug), None)
