"""Tests in the repository that exercise an error: a test that expects it
(`pytest.raises(..., match=...)`, `assertRaises`, `#[should_panic(expected = ...)]`), checks
that a call fails (`.is_err()` next to the call) or quotes its message.

Indexing skips test files (their raises are not the library's errors), so this module
lists them itself from the snapshot's root, bounded in count and size, and reads them as
text. Each reference is a path and a line: a working example of the trigger.
"""

from __future__ import annotations

import hashlib
import re
import stat
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import ahocorasick_rs

from errdex.analyze.callgraph import CallGraph
from errdex.analyze.facts import stable_literal
from errdex.languages import all_specs
from errdex.models import Language, Record, Snapshot, TestRef
from errdex.source.resolve import LANGUAGE_BY_SUFFIX, TEST_DIRS, TEST_NAME, is_utf8_name, walk_files

MAX_FILES = 1500
MAX_BYTES = 16_000_000
MAX_FILE_BYTES = 1_000_000
MAX_REFS = 5
MIN_KEY = 8  # a shorter literal would be found in unrelated strings

_STRING = re.compile(r"""[rbfu]*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
# Each language's idioms of a test expecting an error; one regex finds them all at once.
_KINDS = tuple(
    (idiom, re.compile(pattern)) for spec in all_specs() for idiom, pattern in spec.test_idioms
)
_REGEX_ESCAPE = re.compile(r"\\([^A-Za-z0-9])")
_CALLED = re.compile(r"(?:([A-Za-z_]\w*)\s*(?:::|\.))?\b([A-Za-z_]\w*)\s*\(")
_RAISED = re.compile(r"(?:raises|assertRaises\w*)\(\s*([\w.]+)")
_WORD = re.compile(r"\w+")
# File and directory names that say nothing about which module a file is.
_GENERIC_PARTS = frozenset({"src", "lib", "Lib", "mod", "__init__", "main", "index", "pkg",
                            "internal", "source", "java", "com", "org"})


def test_files(snapshot: Snapshot) -> list[tuple[str, Language, str]]:
    """(path, language, text) of the snapshot's test files, bounded in number and size.
    The tree is untrusted: it is walked without recursion and never through a link, and
    only regular files are read (a FIFO named `test_x.py` would block the read forever)."""
    root = Path(snapshot.root)
    out: list[tuple[str, Language, str]] = []
    total = 0
    for relative in walk_files(root):
        language = LANGUAGE_BY_SUFFIX.get(PurePosixPath(relative).suffix)
        parts = PurePosixPath(relative).parts
        in_tests = any(part in TEST_DIRS for part in parts[:-1])
        if language is None or not (in_tests or TEST_NAME.search(relative)):
            continue
        if not is_utf8_name(relative):
            continue
        path = root / relative
        try:
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                continue
            size = info.st_size
            if size > MAX_FILE_BYTES or total + size > MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        total += size
        out.append((relative, language, text))
        if len(out) >= MAX_FILES:
            return out
    return out


def _shape(record: Record) -> re.Pattern[str]:
    """What a string quoting the message looks like: every literal part in order, or the
    message cut short right after a hole that holds one token ("shape mismatch in matmul"
    for "shape mismatch in {op}, lhs: ..."), so a longer unrelated sentence that only
    shares the opening words does not count."""
    parts = [re.escape(p) for p in record.template.literals]
    options = ["".join(p + ("(?:.+?)" if i < len(parts) - 1 else "")
                       for i, p in enumerate(parts))]  # fmt: skip
    for cut in range(1, len(parts)):
        head = "".join(p + "(?:.+?)" for p in parts[: cut - 1]) + parts[cut - 1]
        options.append(head + r"\S+$")
    return re.compile("|".join(f"(?:{o})" for o in options), re.DOTALL)


def _automaton(
    records: Sequence[Record],
) -> tuple[ahocorasick_rs.AhoCorasick, list[list[str]]] | None:
    """Every record's stable literal in one automaton, and per pattern the ids carrying it."""
    keys: dict[str, list[str]] = defaultdict(list)
    for record in records:
        key = stable_literal(record)
        if len(key) >= MIN_KEY:
            keys[key].append(record.id)
    if not keys:
        return None
    return ahocorasick_rs.AhoCorasick(list(keys)), list(keys.values())


_ANY_KIND = re.compile("|".join(f"(?P<k{i}>{p.pattern})" for i, (_, p) in enumerate(_KINDS)))
# Where a match of `_ANY_KIND` may start: each idiom searched alone (a leading `\b`
# dropped, so the regex engine can skip ahead to its literal prefix), which is fast, where
# the one alternation over every idiom tries each of them at every offset of the file.
_STARTS = tuple(re.compile(p) for p in dict.fromkeys(
    p.pattern.removeprefix("\\b") for _, p in _KINDS))


def _matches(text: str) -> list[re.Match[str]]:
    """`_ANY_KIND.finditer(text)`, tried only where one idiom alone matches."""
    starts: set[int] = set()
    for idiom in _STARTS:
        found = idiom.search(text)
        while found is not None:
            starts.add(found.start())
            found = idiom.search(text, found.start() + 1)
    out, end = [], 0
    for at in sorted(starts):
        if at < end:
            continue  # inside the previous match, as finditer would skip it
        m = _ANY_KIND.match(text, at)
        if m is not None:
            out.append(m)
            end = max(m.end(), at + 1)
    return out


def _kinds_here(text: str, lines: list[str]) -> list[str | None]:
    """Per line, the expectation written on it: the idioms' matches in the whole file."""
    out: list[str | None] = [None] * len(lines)
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    for m in _matches(text):
        index = bisect_right(starts, m.start()) - 1
        if 0 <= index < len(out) and out[index] is None and m.lastgroup:
            out[index] = _KINDS[int(m.lastgroup[1:])][0]
    return out


_IDIOMS = frozenset(idiom for idiom, _ in _KINDS)


@dataclass
class KindsMemo:
    """`_kinds_here` of test files by their text's digest, from a previous index
    (`known`, as stored: each entry is checked before use) and as used now (`used`:
    what the next index may keep). A pure function of the text and of errdex's idioms,
    which the store's entry is keyed by."""

    known: Mapping[str, object] = field(default_factory=dict)
    used: dict[str, list[str | None]] = field(default_factory=dict)

    def kinds(self, text: str, lines: list[str]) -> list[str | None]:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        found = self.known.get(digest)
        if not (isinstance(found, list) and len(found) == len(lines)
                and all(kind is None or kind in _IDIOMS for kind in found)):
            found = _kinds_here(text, lines)
        self.used[digest] = found
        return found


def _kind(here: list[str | None], index: int) -> str:
    """What the test does at a line: expects an error there (or just above), or mentions."""
    for back in range(0, 3):
        if index - back >= 0 and here[index - back]:
            return here[index - back] or "mentions"
    return "mentions"


def _module_words(record: Record) -> frozenset[str]:
    """The names a test of this record's code would use for it: each site's file stem and
    the directories above it (`email/_policybase.py` -> `_policybase`, `email`;
    `candle-nn/src/ops.rs` -> `ops`, `candle_nn`)."""
    words: set[str] = set()
    for site in record.sites:
        path = PurePosixPath(site.path)
        for part in (path.stem, *path.parent.parts):
            name = part.replace("-", "_")
            if name not in _GENERIC_PARTS and name.isidentifier():
                words.add(name)
    return frozenset(words)


def _related(record: Record, words: frozenset[str], test_path: str,
             test_words: frozenset[str]) -> bool:  # fmt: skip
    """Whether a test file can be about this record's code (whose `_module_words` are
    `words`): it lies in the directory of one of its sites (a Go `_test.go` file beside its
    package) or names one of its modules. A test of another module that quotes the same
    words (CPython's tests of the C `io` quoting a message `_pyio` also raises) is not an
    example of this record."""
    folder = str(PurePosixPath(test_path).parent)
    if any(str(PurePosixPath(site.path).parent) == folder for site in record.sites):
        return True
    return not words.isdisjoint(test_words)


def find_test_refs(
    records: Sequence[Record], files: Sequence[tuple[str, Language, str]], graph: CallGraph,
    memo: KindsMemo | None = None,
) -> dict[str, tuple[TestRef, ...]]:
    """For each record id, the test lines that exercise it (expectations first); each
    file's expectations are read from `memo` where it holds them."""
    index_of_literals = _automaton(records)
    by_id = {r.id: r for r in records}
    shapes: dict[str, re.Pattern[str]] = {}
    modules: dict[str, frozenset[str]] = {}  # record id -> its `_module_words`, once asked

    def fits(record_id: str, literal: str) -> bool:
        if record_id not in shapes:  # compiled on first use: most records never need it
            shapes[record_id] = _shape(by_id[record_id])
        return shapes[record_id].search(literal) is not None

    by_function: dict[str, set[str]] = defaultdict(set)  # short function name -> record ids
    exception_of = {r.id: (r.exception or "").split("::")[-1].split(".")[-1] for r in records}
    for record in records:
        for site in record.sites:
            if site.function:
                short = re.split(r"::|\.", site.function)[-1]
                if len(graph.files_of.get(short, ())) == 1:  # only names that say which one
                    by_function[short].add(record.id)
    found: dict[str, list[TestRef]] = defaultdict(list)
    for path, _language, text in files:
        words: frozenset[str] | None = None
        lines = text.splitlines()
        here_kinds = memo.kinds(text, lines) if memo is not None else _kinds_here(text, lines)
        for index, line in enumerate(lines):
            quoted = '"' in line or "'" in line
            if not quoted and not here_kinds[index]:
                continue
            kind = _kind(here_kinds, index)
            ref = TestRef(path, index + 1, kind, line.strip()[:200])
            hit: set[str] = set()
            if index_of_literals is not None and quoted:
                automaton, ids_of = index_of_literals
                for m in _STRING.finditer(line):
                    literal = m.group(1)[1:-1]
                    if kind != "mentions":
                        literal = _REGEX_ESCAPE.sub(r"\1", literal)
                    for key, _, _ in automaton.find_matches_as_indexes(literal, overlapping=True):
                        for record_id in ids_of[key]:
                            if not fits(record_id, literal):
                                continue
                            if words is None:
                                words = frozenset(_WORD.findall(text))
                            if record_id not in modules:
                                modules[record_id] = _module_words(by_id[record_id])
                            if _related(by_id[record_id], modules[record_id], path, words):
                                hit.add(record_id)
            by_call = kind in ("is_err", "pytest.raises", "assertRaises")
            if by_call and here_kinds[index] == kind and not hit:
                hit |= _by_call(lines, index, kind, by_function, exception_of)
            for record_id in hit:
                refs = found[record_id]
                if len(refs) < 50 and ref not in refs:
                    refs.append(ref)
    order = {"mentions": 1}
    return {rid: tuple(sorted(refs, key=lambda r: (order.get(r.kind, 0), r.path, r.line))[
        :MAX_REFS]) for rid, refs in found.items()}  # fmt: skip


def _by_call(
    lines: list[str], index: int, kind: str, by_function: dict[str, set[str]],
    exception_of: dict[str, str],
) -> set[str]:
    """Records raised in a function this line (or the block it opens) calls."""
    window = lines[max(0, index - 2): index + 1] if kind == "is_err" else lines[index: index + 3]
    raised = _RAISED.search(lines[index])
    expected = raised.group(1).split(".")[-1] if raised else None
    out: set[str] = set()
    for line in window:
        for m in _CALLED.finditer(line):
            for record_id in by_function.get(m.group(2), ()):
                if expected is None or exception_of[record_id] in ("", expected):
                    out.add(record_id)
    return out
