"""What stands in front of a message on a line: log timestamps and levels, `Error:`, an
exception type, a panic header. The rules are data (PREFIX_RULES, applied in order, again
and again, until none applies); `strip_prefixes` applies them.

Applying thirteen anchored regexes one by one cost more than everything else a one-line
paste needs, so each rule also says which characters a match can start with, and the
rules that can start with a given character are tried as one alternation (the first
alternative that matches is the first rule that matches, as in the one-by-one loop). This
module knows nothing about tracebacks, Debug values or templates.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import NamedTuple

from errdex.languages import all_specs

_LEVEL = r"(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|CRITICAL|FATAL)"
_LEVEL_STARTS = "EWIDTCF"
_TIMESTAMP = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?"
)


@dataclass(frozen=True)
class Frame:
    """Where the text says the error was raised: a traceback's last frame, a panic's
    location, a warning's `path:line`."""

    path: str
    line: int


@dataclass(frozen=True)
class PrefixRule:
    """A prefix in front of a message. Named groups say what it tells: `exc` the
    exception type, `path`/`line` where it was raised, `msg` the message itself when
    something follows it on the line (an old Rust panic's `', src/x.rs:1:2`).

    `starts` holds every character a match can start with (None: any character, and
    necessarily None for a pattern that can match the empty string); a rule is not tried
    where the rest of the line starts with anything else, so it must never be too small.
    `colon` says every match holds a `:`. tests/test_prefixes.py checks both against the
    patterns."""

    name: str
    pattern: re.Pattern[str]
    starts: frozenset[str] | None = None
    colon: bool = False  # every match holds a `:`, so a line without one isn't tried


def _rule(name: str, pattern: str, starts: str | None = None, colon: bool = False) -> PrefixRule:
    compiled = re.compile(pattern)
    return PrefixRule(name, compiled, None if starts is None else frozenset(starts), colon)


_ASCII_LETTERS = string.ascii_letters + "_"

# Applied in order at the start of each line, again and again (a log prefix, then
# `ValueError: `), until none applies. Patterns are anchored by `match`, never by `^`.
PREFIX_RULES: tuple[PrefixRule, ...] = (
    _rule("indent", r"[ \t]+", " \t"),
    _rule(
        "bracketed_log",
        r"\[(?:[^\]\s]{1,64}[ \t]+)?" + _LEVEL + r"(?:[ \t]+[^\]]{0,200})?\][ \t:]*",
        "[",
    ),
    _rule(
        "timestamp",
        r"\[?" + _TIMESTAMP + r"\]?(?:[ \t]+|[ \t]*[|:-][ \t]*)",
        None,  # `\d` is any Unicode digit (`٢٠٢٤-...`): too many to list
        colon=True,
    ),
    _rule(
        "python_logging",
        r"(?:CRITICAL|ERROR|WARNING|INFO|DEBUG):[\w.]{0,200}:",
        "CEWID",
        colon=True,
    ),
    _rule("error_word", r"(?:Error|error|ERROR)(?:\[E\d+\])?:(?:[ \t]+|$)", "Ee", colon=True),
    # `ERROR app.db: ...`: Python logging's `%(levelname)s %(name)s: %(message)s`.
    _rule(
        "level_logger",
        _LEVEL + r"[ \t]+[A-Za-z_][\w.\-]{0,100}:[ \t]+",
        _LEVEL_STARTS,
        colon=True,
    ),
    _rule("level", r"\[?" + _LEVEL + r"\]?(?:[ \t]*[:|-][ \t]*|[ \t]+)", "[" + _LEVEL_STARTS),
    _rule(
        "rust_target",
        r"[a-z_]\w{0,64}(?:::\w{1,64}){1,12}:[ \t]+",
        string.ascii_lowercase + "_",
        colon=True,
    ),
    _rule(
        "rust_unwrap",
        r"called `(?:Result|Option)::unwrap\(\)` on an `(?:Err|None)` value:[ \t]*",
        "c",
        colon=True,
    ),
    _rule(
        "rust_panic_old",
        r"thread '[^']{0,200}' panicked at '(?P<msg>.*)', "
        r"(?P<path>[^\s:]{1,500}):(?P<line>\d+):\d+[ \t]*$",
        "t",
        colon=True,
    ),
    _rule(
        "rust_panic",
        r"thread '[^']{0,200}' panicked at (?P<path>[^\s:]{1,500}):(?P<line>\d+):\d+:[ \t]*",
        "t",
        colon=True,
    ),
    _rule(
        "python_warning",
        r"(?P<path>[^\s:]{1,500}\.py):(?P<line>\d+): (?P<exc>[A-Z]\w{0,120}):[ \t]+",
        colon=True,
    ),
    # A Java stack trace's first line (`Exception in thread "main" java.lang.X: msg`) and
    # its chained ones (`Caused by: pkg.Y: msg`, `Suppressed: ..`): the type follows.
    _rule("java_thread", r'Exception in thread "[^"\n]{0,200}"[ \t]+', "E"),
    _rule("java_cause", r"(?:Caused by|Suppressed|Fatal Exception):[ \t]+(?=[A-Za-z_])", "CSF",
          colon=True),
    # A Java logger's name before the message (logback's `c.e.grid.Shape - `, Spring
    # Boot's `[main] c.e.grid.Shape : `): a dotted name with a capital last part.
    _rule("java_thread_name", r"\[[\w .:/@-]{1,100}\][ \t]+(?=" + _LEVEL + r"\b)", "["),
    _rule(
        "java_logger",
        r"(?:[0-9]{1,10}[ \t]+---[ \t]+)?(?:\[[\w .:/@-]{1,100}\][ \t]+)?"
        r"(?:[a-z_$][\w$]{0,60}\.){2,12}[A-Z][\w$]{0,120}(?::\d{1,6})?[ \t]+[-:][ \t]+",
        "[" + string.ascii_lowercase + string.digits + "_$",
    ),
    _rule(
        "exception_type",
        r"(?P<exc>(?:[A-Za-z_]\w{0,120}\.){0,12}[A-Z]\w{0,120}):(?:[ \t]+|$)",
        _ASCII_LETTERS,
        colon=True,
    ),
)


# What a language's runtime prints before a message (its spec's `output_prefixes`), tried
# before a bare exception type (`Uncaught TypeError: ..` is read as `TypeError: ..`).
# Languages that share a runtime (TypeScript runs as JavaScript) declare the same rules once.
PREFIX_RULES = (
    *PREFIX_RULES[:-1],
    *(_rule(name, pattern, starts) for name, (pattern, starts) in {
        name: (pattern, starts) for spec in all_specs()
        for name, pattern, starts in spec.output_prefixes}.items()),
    PREFIX_RULES[-1],
)  # fmt: skip


class _Prefixed(NamedTuple):
    """What the prefixes of one line say (a tuple: one is made per line, cheaply)."""

    start: int
    end: int
    exception: str | None
    frame: Frame | None
    panic_header: bool  # a new-style panic: the message is on the following lines


# --- rules tried together ----------------------------------------------------------------

_GROUP_NAME = re.compile(r"\(\?P<(\w+)>")


class _Groups(NamedTuple):
    """One rule inside an alternation: the names its groups have there."""

    rule: PrefixRule
    exc: str | None
    path: str | None
    line: str | None
    msg: str | None
    panic: bool  # a new-style panic header


# An alternation of rules and, by the name of its outer groups, what each rule's groups
# are called in it; None where no rule can apply.
_Alternation = tuple["re.Pattern[str] | None", dict[str, _Groups]]


def _alternation(indexes: list[int]) -> _Alternation:
    """Rules, in order, as one regex `(?P<_r0>rule0)|(?P<_r1>rule1)|...`: the alternative
    that matches is the first rule that matches on its own. Each rule's named groups get
    its index as a suffix so they stay apart; `lastgroup` is the outer group, which closes
    last."""
    parts = []
    groups: dict[str, _Groups] = {}
    for i in indexes:
        rule = PREFIX_RULES[i]
        names = {name: f"{name}_{i}" for name in rule.pattern.groupindex}
        body = _GROUP_NAME.sub(rf"(?P<\1_{i}>", rule.pattern.pattern)
        parts.append(f"(?P<_r{i}>{body})")
        groups[f"_r{i}"] = _Groups(
            rule, names.get("exc"), names.get("path"), names.get("line"), names.get("msg"),
            rule.name == "rust_panic",
        )
    return (re.compile("|".join(parts)) if parts else None), groups


def _alternations(colon: bool) -> dict[str, _Alternation]:
    """By the first character of the rest of the line (`""`: any other character), the
    rules that can match there; `colon`: whether the rest of the line has a `:` (rules
    whose matches always hold one aren't tried if not)."""
    rules = [i for i, rule in enumerate(PREFIX_RULES) if colon or not rule.colon]
    starts: set[str] = set()
    for i in rules:
        starts |= PREFIX_RULES[i].starts or set()
    made: dict[tuple[int, ...], _Alternation] = {}
    table: dict[str, _Alternation] = {}
    for char in ["", *sorted(starts)]:
        indexes = [i for i in rules if PREFIX_RULES[i].starts is None
                   or char in (PREFIX_RULES[i].starts or ())]
        table[char] = made.setdefault(tuple(indexes), _alternation(indexes))
    return table


_WITH_COLON = _alternations(colon=True)
_WITHOUT_COLON = _alternations(colon=False)
_ALL_RULES = _alternation(list(range(len(PREFIX_RULES))))


def _one_by_one(line: str, pos: int, end: int) -> _Groups | None:
    """The rules in order, each on its own: the definition the alternations speed up,
    used where a match is empty (such a match of a rule without groups doesn't count)."""
    for rule in PREFIX_RULES:
        m = rule.pattern.match(line, pos, end)
        if m is None or (m.end() == pos and m.lastgroup is None):
            continue
        names = rule.pattern.groupindex
        return _Groups(
            rule,
            "exc" if "exc" in names else None,
            "path" if "path" in names else None,
            "line" if "line" in names else None,
            "msg" if "msg" in names else None,
            rule.name == "rust_panic",
        )
    return None


def strip_prefixes(line: str) -> _Prefixed:
    """Apply PREFIX_RULES to the start of one line."""
    return _Prefixed(*prefix_span(line))


def prefix_span(line: str) -> tuple[int, int, str | None, Frame | None, bool]:
    """`strip_prefixes` as a plain tuple, for callers that read one line in a few µs."""
    pos, end = 0, len(line)
    exception: str | None = None
    frame: Frame | None = None
    panic_header = False
    colon = line.find(":")  # the first `:` at or after pos (-1: none left)
    for _ in range(10):
        if pos < end:
            if colon >= end or 0 <= colon < pos:
                colon = line.find(":", pos, end)
            table = _WITH_COLON if colon >= 0 else _WITHOUT_COLON
            pattern, groups = table.get(line[pos]) or table[""]
        else:
            pattern, groups = _ALL_RULES
        if pattern is None:
            break
        m = pattern.match(line, pos, end)
        if m is None:
            break
        found = groups[m.lastgroup or ""]
        if m.end() == pos:
            one = _one_by_one(line, pos, end)
            if one is None:
                break
            found = one
            m = found.rule.pattern.match(line, pos, end)
            assert m is not None
        if found.exc is not None:
            exc = m.group(found.exc)
            if exc:
                exception = exc
        if found.path is not None and found.line is not None:
            path, number = m.group(found.path), m.group(found.line)
            if path and number:
                frame = Frame(path, int(number))
        if found.msg is not None and m.group(found.msg) is not None:
            pos, end = m.start(found.msg), m.end(found.msg)
            continue
        pos = m.end()
        panic_header = found.panic and not line[pos:end].strip()
    return pos, end, exception, frame, panic_header


# --- what stands after a message, and what joins it to a context -------------------------

# What an error type appends after its message on the same line: where in the input it
# failed (serde_json's ` at line 1 column 8`, Python json's `: line 1 column 1 (char 0)`
# and Python 2's range form `: line 2 column 15 - line 5 column 1 (char 15 - 46)`). A
# message that must be its whole line still is with one of these after it.
POSITION_TAIL = re.compile(
    r"(?:,? at line \d{1,9},? column \d{1,9}"
    r"|: line \d{1,9} column \d{1,9}(?: - line \d{1,9} column \d{1,9})?"
    r" \(char \d{1,12}(?: - \d{1,12})?\))\.?[ \t]*"
)
MAX_TAIL = 96  # longer than any POSITION_TAIL match: a longer rest is more text
# What joins a context to the error it wraps on one line (`invalid json: trailing
# characters`, anyhow's `{context}: {error}`): the wrapped message starts after it.
CHAIN_SEPARATOR = ": "


def position_tail(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is a position an error type appends to its message."""
    return 0 < end - start <= MAX_TAIL and POSITION_TAIL.fullmatch(text, start, end) is not None


def after_context(text: str, line_start: int, start: int) -> bool:
    """Whether the message at `start` follows a context and CHAIN_SEPARATOR on its line."""
    return start - len(CHAIN_SEPARATOR) > line_start and text.startswith(
        CHAIN_SEPARATOR, start - len(CHAIN_SEPARATOR)
    )
