"""Prefix rules tried together give what trying them one by one, in order, gives; and the
facts each rule declares to make that fast (`starts`, `colon`) hold for its pattern."""

from __future__ import annotations

import random
import re
import re._constants as sre_constants
import re._parser as sre_parser
from typing import Any

import pytest

from errdex.match.prefixes import PREFIX_RULES, Frame, PrefixRule, strip_prefixes

ANY = None  # a first character that can be anything


def _first(items: Any) -> tuple[set[str] | None, bool]:
    """(characters a match of the sequence can start with, or ANY; can it match empty)."""
    chars: set[str] = set()
    for op, av in items:
        found, nullable = _first_item(op, av)
        if found is ANY:
            return ANY, True
        chars |= found
        if not nullable:
            return chars, False
    return chars, True


def _first_item(op: Any, av: Any) -> tuple[set[str] | None, bool]:
    c = sre_constants
    if op is c.LITERAL:
        return {chr(av)}, False
    if op is c.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is c.LITERAL:
                chars.add(chr(value))
            elif kind is c.RANGE:
                chars |= {chr(x) for x in range(value[0], value[1] + 1)}
            else:  # NEGATE, CATEGORY: too many to list
                return ANY, False
        return chars, False
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        low, _high, sub = av
        found, nullable = _first(sub)
        return found, nullable or low == 0
    if op is c.SUBPATTERN:
        return _first(av[3])
    if op is c.BRANCH:
        union: set[str] = set()
        any_nullable = False
        for alternative in av[1]:
            found, nullable = _first(alternative)
            if found is ANY:
                return ANY, True
            union |= found
            any_nullable = any_nullable or nullable
        return union, any_nullable
    if op is c.AT:
        return set(), True
    return ANY, True


def _holds_colon(items: Any) -> bool:
    """Every match of the sequence holds a `:`."""
    c = sre_constants
    for op, av in items:
        if op is c.LITERAL and av == ord(":"):
            return True
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] > 0 and _holds_colon(av[2]):
            return True
        if op is c.SUBPATTERN and _holds_colon(av[3]):
            return True
        if op is c.BRANCH and all(_holds_colon(alternative) for alternative in av[1]):
            return True
    return False


@pytest.mark.parametrize("rule", PREFIX_RULES, ids=lambda rule: rule.name)
def test_declared_starts_and_colon_hold_for_the_pattern(rule: PrefixRule) -> None:
    parsed = sre_parser.parse(rule.pattern.pattern)
    first, nullable = _first(parsed)
    if first is ANY or nullable:
        assert rule.starts is None
    elif rule.starts is not None:
        assert first <= rule.starts, sorted(first - rule.starts)
    if rule.colon:
        assert _holds_colon(parsed)


def one_by_one(line: str) -> tuple[int, int, str | None, Frame | None, bool]:
    """The definition: each rule in order at the current position, again and again."""
    pos, end = 0, len(line)
    exception: str | None = None
    frame: Frame | None = None
    panic_header = False
    for _ in range(10):
        for rule in PREFIX_RULES:
            m = rule.pattern.match(line, pos, end)
            if m is None or (m.end() == pos and m.lastgroup is None):
                continue
            found = m.groupdict()
            if found.get("exc"):
                exception = found["exc"]
            if found.get("path") and found.get("line"):
                frame = Frame(found["path"], int(found["line"]))
            if found.get("msg") is not None:
                pos, end = m.start("msg"), m.end("msg")
            else:
                pos = m.end()
                panic_header = rule.name == "rust_panic" and not line[pos:end].strip()
            break
        else:
            break
    return pos, end, exception, frame, panic_header


PREFIXES = [
    "", "  ", "\t", " \t ",
    "[2024-01-01T00:00:00Z ERROR candle::model] ", "[ERROR] ", "[main WARN x] :",
    "2024-01-01 12:00:00,123 ", "[2024-01-01 12:00:00] ", "2024-01-01T10:00:00.5Z  ",
    "2024-01-01 12:00 UTC | ", "2024-01-01T10:00:00+02:00 - ",
    "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0661 \u0661\u0662:\u0660\u0660 ",  # Arabic-Indic
    "ERROR:root:", "WARNING:app.db:", "Error: ", "error: ", "ERROR: ", "error[E0425]: ", "Error:",
    "ERROR app.db: ", "WARN my-crate: ", "ERROR ", "[WARN] ", "INFO - ", "FATAL| ", "TRACE:",
    "candle_core::tensor: ", "my_crate::a::b:\t",
    "called `Result::unwrap()` on an `Err` value: ", "called `Option::unwrap()` on a `None` value",
    "thread 'main' panicked at src/lib.rs:10:5:", "thread 'main' panicked at src/lib.rs:10:5: ",
    "thread '<unnamed>' panicked at 'boom: 1', src/x.rs:1:2",
    "/srv/app/x.py:12: UserWarning: ", "x.py:1: DeprecationWarning: ",
    "ValueError: ", "json.decoder.JSONDecodeError: ", "KeyError:", "a.b.C: ", "Ünï: ",
]
BODIES = [
    "shape mismatch k [2, 16] and v [2, 32]", "cannot open '/home/u/data/run3/model-1.safetensors'",
    "Expecting value: line 1 column 1 (char 0)", "boom", "", " ", "\t", ":", "::", "x::y: z",
    "'index out of bounds: 3', src/lib.rs:10:5", "Size [2, 3] out of range",
    '"writer" must be writable', 'Msg("a \\"b\\" c\\n d")', "UnexpectedDType(F32)",
    'WithBacktrace { inner: Msg("boom"), backtrace: x }', "Foo(", "Foo {", '"unterminated',
    "ShapeMismatch { lhs: [2, 3], rhs: [4] }", 'Context { context: "while", error: Io(X) }',
    "ünïcödé 错误: 値 \u00a0", "note: run with `RUST_BACKTRACE=1` to see", "note: other",
    "[Previous line repeated 3 more times]", '  File "/x/y.py", line 4, in f', 'File "<stdin>"',
    "Traceback (most recent call last):", "Caused by:", "Stack backtrace:", "Backtrace:",
    "During handling of the above exception, another exception occurred:",
    "   0: anyhow::error::msg", "ERROR", "Error", "thread 'x' panicked at a.rs:1:2:",
]
SUFFIXES = ["", "", "", " ", "\r", " \t", ")", '"', "]", "}", ":", " x.py:3: W: y"]
NOISE = ":[]()\"' \tEeWIDTCFntc.py0123456789\u0663-_/aZé{}\r|,U\u00a0"


def generated_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        if rng.random() < 0.15:
            lines.append("".join(rng.choice(NOISE) for _ in range(rng.randint(0, 30))))
            continue
        prefixes = "".join(rng.choice(PREFIXES) for _ in range(rng.randint(0, 3)))
        lines.append(prefixes + rng.choice(BODIES) + rng.choice(SUFFIXES))
    return lines


def test_together_as_one_by_one_on_generated_lines() -> None:
    for line in generated_lines(4000, seed=1) + PREFIXES + BODIES:
        assert tuple(strip_prefixes(line)) == one_by_one(line), repr(line)


def test_an_alternation_names_the_rule_that_matched() -> None:
    found = strip_prefixes("/srv/app/x.py:12: UserWarning: careful")
    assert (found.exception, found.frame) == ("UserWarning", Frame("/srv/app/x.py", 12))
    assert re.fullmatch(r"\w+", PREFIX_RULES[0].name)
