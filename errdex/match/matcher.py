"""The matching engine: pasted text in, the records it contains out, with the values the
text puts in each template's holes.

Built once from every template, immutable afterwards; matching never changes it. Each
template is indexed by its rarest literal fragment in one Aho-Corasick automaton, and a
candidate is verified by finding its literal pieces in order around the anchor with plain
substring search (no regular expressions, so no backtracking). Every search window is
bounded and the work per input is budgeted, so hostile input stays linear. Understanding
the paste (prefixes, tracebacks, Rust Debug values) is `errdex.match.paste`'s job, what a hole
may hold is `errdex.match.holes`', and what a traceback says about the library it came from is
`errdex.match.evidence`'.
"""

from __future__ import annotations

import re
import zlib
from array import array
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import ahocorasick_rs

from errdex.errors import EmptyInputError
from errdex.match.evidence import components as _components
from errdex.match.evidence import library_rank as _library_rank
from errdex.match.evidence import path_agrees as _path_agrees
from errdex.match.evidence import text_libraries
from errdex.match.evidence import type_tail as _type_tail
from errdex.match.holes import TYPE_CHECKS as _TYPE_CHECKS
from errdex.match.holes import hole_kinds as _hole_kinds
from errdex.match.near import NearIndex, literal_words, near_detail
from errdex.match.paste import DebugHit, Doc, Frame, Group, Paste, parse_paste
from errdex.match.prefixes import strip_prefixes
from errdex.memory import release_free_memory
from errdex.models import Match, Template

MIN_ANCHOR: Final = 8  # an anchor fragment this long is "of decent length"
CHECK_WORD: Final = 3  # a check word (see Matcher._build_anchors) is at least this long
CHECK_TEXT: Final = 1 << 14  # texts up to this long are searched for check words
POSTING: Final = 5  # numbers per posting in Matcher._postings
# Set in a posting's literal index when its template must be the whole line and opens
# with the anchor's literal (closes with the anchor): an occurrence after (before) other
# text on its line is not verified.
OPENS_LINE: Final = 1 << 31
CLOSES_LINE: Final = 1 << 30
_LINE_FLAGS: Final = OPENS_LINE | CLOSES_LINE
SHORT_TEMPLATE: Final = 4  # fewer literal non-space chars: must cover the whole message line
EDGE_TEMPLATE: Final = 16  # a hole at an end and fewer literal chars: must cover it too
# A template whose fixed text is one short word between holes that take anything
# (`{} must {}`) fits half the sentences there are: it is claimed exactly only where its
# literal text is at least this share of the line, and is a near miss otherwise.
WEAK_COVERAGE: Final = 0.25
MAX_HOLE: Final = 20_000  # longest value a hole may take
MAX_OCCURRENCES: Final = 64  # anchor occurrences verified per anchor fragment per document
# An anchor shared by templates with this many different check words has its check words
# found in one pass over the text (see Matcher._crowd_postings), not one search per word.
CROWDED: Final = 8
APPROX_MAX_GROUPS: Final = 1_000  # messages that get a nearest-record lookup, per input
TRIM_AFTER: Final = 10_000  # templates from which a build gives its freed memory back
DF_SLOTS: Final = 1 << 22  # hashed counters for fragment rarity (16 MB while building)
EMPTY_PENALTY: Final = 0.9  # score factor per empty hole

_TOKEN = re.compile(r"\S+")
MAX_KEY: Final = 256  # an anchor is at most this long (a longer literal is anchored at its start)
ANCHOR_CHUNK: Final = 1 << 16  # a longer text is searched for anchors piece by piece
MIN_SCAN_KEY: Final = 5  # anchors shorter than this are too common to pre-filter a log with
SCAN_ASK: Final = -1  # `scan_keys`' tag for a line only the matcher can judge (a Debug value)
_DEBUG_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\t": "\\t", "\r": "\\r"})


@dataclass(frozen=True)
class MatchEntry:
    record_id: str
    repo: str
    exception: str | None  # "ValueError", "Error::ShapeMismatchBinaryOp", None
    template: Template
    sites: tuple[tuple[str, int], ...]  # (path relative to the repo root, line), in order
    variant: str | None = None  # Rust error variant whose #[error] text is the template
    variant_fields: tuple[str, ...] = ()  # its fields in declared order
    language: str = "python"  # "python" | "rust"
    version: str | None = None  # the indexed snapshot's release version, where known


@dataclass(slots=True)
class MatchStats:
    """The work one `match` call did, for tests and benchmarks that bound it."""

    anchor_hits: int = 0  # automaton hits looked at
    verifications: int = 0  # (candidate, anchor occurrence) pairs verified
    scanned: int = 0  # characters inside search windows and hole checks
    approximate: int = 0  # postings entries read by the nearest-record lookup
    exhausted: bool = False  # the budget ran out: later text was not fully verified

    def __init__(
        self, anchor_hits: int = 0, verifications: int = 0, scanned: int = 0,
        approximate: int = 0, exhausted: bool = False
    ) -> None:
        self.anchor_hits = anchor_hits
        self.verifications = verifications
        self.scanned = scanned
        self.approximate = approximate
        self.exhausted = exhausted

    @property
    def work(self) -> int:
        return self.anchor_hits + self.verifications + self.scanned + self.approximate


@dataclass(slots=True)
class _Compiled:
    """What verification needs of a template, kept small: a million of these stay in
    memory (specs, types and the word set are shared or recomputed, never copied).
    Never changed once built; not frozen, and with an __init__ of its own, because a
    million of them are made (see the note on errdex.match.paste's data classes)."""

    literals: tuple[str, ...]
    names: tuple[str, ...]  # the holes' names
    specs: tuple[str, ...]
    types: tuple[str, ...]
    empty_ok: tuple[bool, ...]
    single_line: tuple[bool, ...]  # per hole: its value can't span lines (all but `{:#?}`)
    literal_length: int  # every literal character, spaces included
    solid_chars: int  # literal non-space characters
    whole_line: bool  # too short to trust inside other text: must be the whole message
    weak: bool  # one short word and a hole that takes anything: see WEAK_COVERAGE
    exception: str | None
    sites: tuple[tuple[tuple[str, ...], int], ...]

    def __init__(
        self, literals: tuple[str, ...], names: tuple[str, ...], specs: tuple[str, ...],
        types: tuple[str, ...], empty_ok: tuple[bool, ...], single_line: tuple[bool, ...],
        literal_length: int, solid_chars: int, whole_line: bool, weak: bool,
        exception: str | None, sites: tuple[tuple[tuple[str, ...], int], ...]
    ) -> None:
        self.literals = literals
        self.names = names
        self.specs = specs
        self.types = types
        self.empty_ok = empty_ok
        self.single_line = single_line
        self.literal_length = literal_length
        self.solid_chars = solid_chars
        self.whole_line = whole_line
        self.weak = weak
        self.exception = exception
        self.sites = sites


@lru_cache(maxsize=65536)
def _single_line(specs: tuple[str, ...]) -> tuple[bool, ...]:
    return tuple("#?" not in spec for spec in specs)


@dataclass(slots=True)
class _Found:
    entry: int
    exact: bool
    values: tuple[tuple[str, str], ...]
    span: tuple[int, int]
    score: float
    group: int
    detail: str

    rank: tuple[int | float, ...] = ()
    why: str = ""
    site_index: int | None = None
    variant: bool = False  # found as a Rust Debug value, not as text
    order: float = 0.0  # approximate only: share of the template's indexed word pairs kept
    partial: bool = False  # exact, but text is left over on the message's line(s)
    words: tuple[int, int] = (0, 0)  # approximate only: template words kept, of all

    def __init__(
        self, entry: int, exact: bool, values: tuple[tuple[str, str], ...], span: tuple[int, int],
        score: float, group: int, detail: str, rank: tuple[int | float, ...] = (), why: str = "",
        site_index: int | None = None, variant: bool = False, order: float = 0.0,
        partial: bool = False, words: tuple[int, int] = (0, 0)
    ) -> None:
        self.entry = entry
        self.exact = exact
        self.values = values
        self.span = span
        self.score = score
        self.group = group
        self.detail = detail
        self.rank = rank
        self.why = why
        self.site_index = site_index
        self.variant = variant
        self.order = order
        self.partial = partial
        self.words = words


def stable_hash(text: str) -> int:
    """The same in every process (str's hash() is salted per process), so which fragment
    anchors a template, and so what a benchmark measures, doesn't change from run to run."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def _check_words(literals: tuple[str, ...]) -> set[str]:
    """What may be a template's check word: its literals' space-separated words of
    CHECK_WORD+ characters (punctuation included: it is found as a substring)."""
    return {word for literal in literals for word in literal.split() if len(word) >= CHECK_WORD}


def _fragments(literal: str, index: int) -> list[tuple[str, int, int]]:
    """Word-ish substrings (runs of one to three tokens) of a literal, with offsets."""
    spans = [m.span() for m in _TOKEN.finditer(literal)]
    return [
        (literal[spans[i][0] : spans[j][1]], index, spans[i][0])
        for i in range(len(spans))
        for j in range(i, min(i + 3, len(spans)))
        if MIN_ANCHOR <= spans[j][1] - spans[i][0] <= MAX_KEY
    ]


class Matcher:
    """Every template compiled into one automaton plus a word index for near misses."""

    def __init__(self, entries: Iterable[MatchEntry]) -> None:
        self.entries: tuple[MatchEntry, ...] = tuple(entries)
        interned: dict[Any, Any] = {}
        self._compiled = tuple(self._compile(entry, interned) for entry in self.entries)
        del interned
        # Postings of anchor k are _post_start[k] to _post_start[k + 1] - 1. Posting p is
        # _postings[5p:5p + 5]: template, literal index (| line flags), the anchor's
        # offset in that literal, check word + 1 (0 for none), and the literal's ends
        # (_literal_ends); side by side, so that a posting is one memory read, not five,
        # in a table of a million.
        self._key_length = array("H")
        self._post_start = array("I")
        self._postings = array("I")
        self._check_words: tuple[str, ...] = ()
        # key id -> an automaton of its postings' check words, the postings of each word
        # (by the word's pattern index), and the postings with no check word
        self._crowded: dict[int, tuple[Any, tuple[tuple[int, ...], ...], tuple[int, ...]]] = {}
        self._anchors = self._build_anchors()
        # What other modules build from this matcher once and keep with it (a log scan's
        # automaton): the matcher itself never changes, so neither do they.
        self.derived: dict[str, object] = {}
        self._variants: dict[str, list[int]] = defaultdict(list)
        # Exception types whose message is made at run time: found by the type alone.
        self._typed: dict[str, list[int]] = defaultdict(list)
        for i, entry in enumerate(self.entries):
            if entry.variant:
                self._variants[entry.variant].append(i)
            tail = _type_tail(entry.exception)
            if tail and self._compiled[i].literal_length == 0 and entry.language == "python":
                self._typed[tail].append(i)
        self._near = NearIndex(tuple(c.literals for c in self._compiled))
        if len(self.entries) >= TRIM_AFTER:
            release_free_memory()  # what building left in the C heap: 140 MB at 1M templates

    @staticmethod
    def _compile(entry: MatchEntry, interned: dict[Any, Any]) -> _Compiled:
        template = entry.template
        specs = tuple(p.spec for p in template.placeholders)
        specs = interned.setdefault(specs, specs)
        names = tuple(p.name for p in template.placeholders)
        types, empty_ok = _hole_kinds(specs)
        solid = sum(len(part) for lit in template.literals for part in lit.split())
        sites = tuple((_components(path), line) for path, line in entry.sites)
        return _Compiled(
            literals=template.literals,
            names=interned.setdefault(names, names),
            specs=specs,
            types=types,
            empty_ok=empty_ok,
            single_line=_single_line(specs),
            literal_length=sum(len(lit) for lit in template.literals),
            solid_chars=solid,
            # "interrupted", "unsupported dtype": a whole message, not words in a sentence.
            # `{!r} unclosed`, `closefd {}`: a few words and a hole that takes the rest.
            whole_line=solid < SHORT_TEMPLATE
            or (not template.placeholders and len(template.literals[0].split()) <= 2)
            or (solid < EDGE_TEMPLATE and len(template.literals) > 1
                and not (template.literals[0] and template.literals[-1])),
            weak=solid < EDGE_TEMPLATE and "any" in types
            and len(literal_words(template.literals)) <= 1,
            exception=_type_tail(entry.exception),
            sites=interned.setdefault(sites, sites),
        )

    def _build_anchors(self) -> Any:
        """Anchor each template at its rarest fragment (fewest templates share it, then
        longest); a template with no fragment of MIN_ANCHOR chars at (the first MAX_KEY
        characters of) its longest literal. One automaton holds every anchor, with the
        anchor's key id as its pattern index.

        Each template also gets a check word: its rarest other word of CHECK_WORD+
        characters, which any text it matches must hold too. A template whose check word
        is absent from the text is not verified: even a rare anchor (`resources`, `is not
        extra`) is mostly found in text the template doesn't match. A hundred templates
        anchored at `is not divisible` (each with its own check word) have their check
        words found in one pass over the text by a small automaton of their own, not a
        verification each, nor a search per word: a hundred separate words cost a hundred
        cache misses in a table of a million."""
        # Fragment counts in a fixed table of hashed counters: a collision only makes a
        # fragment look a little commoner, and a million templates' fragments (tens of
        # millions of strings) never have to be held at once.
        slots = max(1024, min(DF_SLOTS, 32 * len(self._compiled)))
        df = array("I", bytes(4 * slots))
        for compiled in self._compiled:
            for frag in {f[0] for i, lit in enumerate(compiled.literals)
                         for f in _fragments(lit, i)}.union(_check_words(compiled.literals)):
                df[stable_hash(frag) % slots] += 1
        anchors: list[tuple[str, int, int, int]] = []  # (key, entry, literal, offset)
        for entry_index, compiled in enumerate(self._compiled):
            frags = [f for i, lit in enumerate(compiled.literals) for f in _fragments(lit, i)]
            if frags:
                anchor = min(frags, key=lambda f: (df[stable_hash(f[0]) % slots], -len(f[0])))
            else:
                longest = max(
                    range(len(compiled.literals)), key=lambda i: len(compiled.literals[i].strip())
                )
                literal = compiled.literals[longest]
                text = literal.strip()
                if not text:
                    continue  # no literal text at all: reachable only as a Debug variant
                anchor = (text[:MAX_KEY], longest, literal.index(text))
            key, literal_index, offset = anchor
            anchors.append((key, entry_index, literal_index, offset))
        # Key ids in sorted order of the keys (an anchor's pattern index is its key id):
        # the automaton lays its states out in the order patterns are added, so sorted
        # keys put most states of a path side by side, and a search misses the cache less.
        anchors.sort()
        keys: list[str] = []
        check_ids: dict[str, int] = {}
        for key, entry_index, literal_index, offset in anchors:
            if not keys or key != keys[-1]:
                keys.append(key)
                self._post_start.append(len(self._postings) // POSTING)
            check = -1
            compiled = self._compiled[entry_index]
            words = [w for w in _check_words(compiled.literals) if w not in key]
            if words:
                word = min(words, key=lambda w: (df[stable_hash(w) % slots], -len(w), w))
                check = check_ids.setdefault(word, len(check_ids))
            ends = _literal_ends(compiled.literals[literal_index])
            if compiled.whole_line:
                literal_index |= _line_flags(compiled.literals, literal_index, offset, len(key))
            self._postings.extend((entry_index, literal_index, offset, check + 1, ends))
        self._post_start.append(len(self._postings) // POSTING)
        del anchors
        self._key_length = array("H", map(len, keys))
        self._check_words = tuple(check_ids)
        for key_id in range(len(keys)):
            if self._post_start[key_id + 1] - self._post_start[key_id] >= CROWDED:
                self._crowd(key_id)
        return ahocorasick_rs.AhoCorasick(keys) if keys else None

    def _crowd(self, key_id: int) -> None:
        """Postings of a key shared by templates with CROWDED+ different check words:
        grouped by check word, with an automaton of those words (see _crowd_postings)."""
        by_word: dict[int, list[int]] = defaultdict(list)
        for p in range(self._post_start[key_id], self._post_start[key_id + 1]):
            by_word[self._postings[POSTING * p + 3] - 1].append(p)
        unchecked = tuple(by_word.pop(-1, ()))
        if len(by_word) >= CROWDED:
            words = tuple(by_word)
            self._crowded[key_id] = (
                ahocorasick_rs.AhoCorasick([self._check_words[w] for w in words]),
                tuple(tuple(by_word[w]) for w in words), unchecked)

    def _crowd_postings(self, key_id: int, text: str) -> list[int] | None:
        """The postings of a crowded key whose check word is in `text` (found in one pass
        by the key's own automaton), with those that have none; None for a key that
        isn't crowded."""
        crowd = self._crowded.get(key_id)
        if crowd is None:
            return None
        automaton, by_word, unchecked = crowd
        found = {i for i, _, _ in automaton.find_matches_as_indexes(text, overlapping=True)}
        return sorted([*unchecked, *(p for i in found for p in by_word[i])])

    def _anchor_key(self, key_id: int) -> str:
        """The anchor text of a key id, read back from its first template (the automaton
        doesn't keep its patterns, and a million of them needn't be held twice)."""
        p = self._post_start[key_id]
        entry, literal_index, offset = self._postings[POSTING * p : POSTING * p + 3]
        literal = self._compiled[entry].literals[literal_index & ~_LINE_FLAGS]
        return literal[offset : offset + self._key_length[key_id]]

    def _anchor_hits(self, text: str) -> Iterable[tuple[int, int, int]]:
        """(key id, start, end) of every anchor occurrence, overlapping ones included.
        A long text is searched in ANCHOR_CHUNK pieces, overlapping by the longest key,
        so a hostile paste never builds one huge list of hits."""
        if self._anchors is None:
            return ()
        if len(text) <= ANCHOR_CHUNK:
            found: list[tuple[int, int, int]] = self._anchors.find_matches_as_indexes(
                text, overlapping=True
            )
            return found
        return self._chunked_hits(text)

    def _chunked_hits(self, text: str) -> Iterator[tuple[int, int, int]]:
        overlap = MAX_KEY
        for base in range(0, len(text), ANCHOR_CHUNK):
            piece = text[base : base + ANCHOR_CHUNK + overlap]
            for key_id, start, end in self._anchors.find_matches_as_indexes(
                piece, overlapping=True
            ):
                if start < ANCHOR_CHUNK:  # one that starts in the overlap is the next piece's
                    yield key_id, base + start, base + end

    def scan_keys(self) -> list[tuple[str, int]]:
        """What makes one log line worth a closer look, each with the tag to hand
        `plausible_hits`: every anchor of MIN_SCAN_KEY+ characters (tagged with its key
        id), also as a Rust Debug string escapes it, and every Rust variant name opening
        a Debug value, `Name(` or `Name {` (tagged SCAN_ASK). A log scanner finds
        these in big blocks with an automaton of its own, then asks about the few lines
        that hold one. Anchors holding a newline can't be in one line and are left out."""
        keys: list[tuple[str, int]] = []
        for key_id in range(len(self._key_length)):
            key = self._anchor_key(key_id)
            if len(key) < MIN_SCAN_KEY or "\n" in key:
                continue
            keys.append((key, key_id))
            escaped = key.translate(_DEBUG_ESCAPES)
            if escaped != key:
                keys.append((escaped, key_id))
        for name in self._variants:
            keys += [(name + "(", SCAN_ASK), (name + " {", SCAN_ASK),
                     (name + "{", SCAN_ASK)]
        return keys

    def plausible_hits(self, line: str, key_ids: Iterable[int]) -> bool:
        """False only if `match_with_stats(line, exact_only=True)` can't find an exact
        match anchored at any of `key_ids` (tags of `scan_keys` found in the one line
        `line`): no template anchored there has its literals in order in the line, or,
        for a template that must be the whole message, at the message's ends. A line
        with a backslash (a Debug or JSON string, matched unescaped), a Debug value of a
        known variant, or more checking than a few dozen passes over it is left to the
        matcher: True. A cheap rejection for the many log lines that share a word with
        some template and are no error at all."""
        if "\\" in line or "\n" in line:
            return True
        budget = 40 * len(line) + 100_000  # linear in the line, whatever it holds
        content: tuple[int, int] | None = None
        for key_id in set(key_ids):
            if key_id < 0:
                return True
            crowd = self._crowd_postings(key_id, line)
            for p in crowd if crowd is not None else range(
                    self._post_start[key_id], self._post_start[key_id + 1]):
                budget -= len(line)
                if budget < 0:
                    return True
                check = self._postings[POSTING * p + 3] - 1
                if crowd is None and check >= 0 and self._check_words[check] not in line:
                    continue
                compiled = self._compiled[self._postings[POSTING * p]]
                if not self._in_order(line, compiled.literals):
                    continue
                if not compiled.whole_line or '"' in line:
                    return True  # a quoted string may be matched on its own, unescaped
                if content is None:
                    prefixed = strip_prefixes(line.removesuffix("\r"))
                    start = prefixed.end if prefixed.panic_header else prefixed.start
                    content = (start, prefixed.end)
                if self._may_cover(line, compiled.literals, *content):
                    return True
        return False

    @staticmethod
    def _in_order(line: str, literals: tuple[str, ...]) -> bool:
        """The literals appear in `line` one after another (leftmost first is enough)."""
        pos = 0
        for literal in literals:
            found = line.find(literal, pos)
            if found < 0:
                return False
            pos = found + len(literal)
        return True

    @staticmethod
    def _may_cover(line: str, literals: tuple[str, ...], start: int, end: int) -> bool:
        """A template that must be the whole message can, in `line` whose message is
        line[start:end]: `_bind`'s test (only blanks between the message's ends and the
        match, or the match reaching past them) read as a condition on the first and
        last literals."""
        first, last = literals[0], literals[-1]
        if first and not (0 <= line.find(first) < start
                          or line[start:].lstrip().startswith(first.lstrip())):
            return False
        if not last:
            return True
        at = line.rfind(last)
        return (at >= 0 and at + len(last) > end) or line[:end].rstrip().endswith(last.rstrip())

    # --- matching ------------------------------------------------------------------------

    def match(self, text: str, limit: int = 10) -> list[Match]:
        """The records found in `text`, best first (see `match_with_stats`)."""
        return self.match_with_stats(text, limit)[0]

    def match_with_stats(
        self, text: str, limit: int = 10, *, exact_only: bool = False
    ) -> tuple[list[Match], MatchStats]:
        """Rank: exact matches first; then a site a traceback frame points at (path and
        line, then path only); then the exception type agreeing with the text's `Type:`
        prefix; then more literal characters; then a match that accounts for its whole
        line over one that leaves text over; then the record of the library (and
        version) the text's frames come from; then fewer holes; then score. Each record
        appears once, at its best occurrence. `exact_only` skips the nearest-record
        lookup and matches by exception type alone (what a log scan wants)."""
        if not text or not text.strip():
            raise EmptyInputError("nothing to explain: the input is blank")
        stats = MatchStats()
        paste = parse_paste(text)
        budget = 40 * len(text) + 2_000_000
        hit_cap = len(text) // 2 + 100_000
        found: list[_Found] = []
        for doc_index, doc in enumerate(paste.docs):
            if stats.exhausted:
                break
            found.extend(self._exact(doc, doc_index, stats, budget, hit_cap))
        for hit in paste.debug:
            found.extend(self._variant(hit, paste))
        if not exact_only:
            found.extend(self._by_type(paste))
            found.extend(self._approximate(paste, _explained(paste, found), stats))
        if not found:
            return [], stats
        libraries = text_libraries(text)
        # In a traceback, the exception that ended it comes first; its causes follow.
        final = next((g.index for g in reversed(paste.groups) if g.frame is not None), None)
        # Each entry's best occurrence, then, best first, each record's first entry: a
        # record is one entry from a store, so this reads the entries of what is shown.
        best: dict[int, _Found] = {}
        for item in found:
            self._rank(item, paste, final, libraries)
            if item.entry not in best or item.rank < best[item.entry].rank:
                best[item.entry] = item
        ordered = list(best.values())
        if len(ordered) > 1:
            ordered.sort(key=_rank_of)
        matches: list[Match] = []
        shown: set[str] = set()
        for f in ordered:
            if len(matches) >= limit:
                break
            record_id = self.entries[f.entry].record_id
            if record_id in shown:
                continue
            shown.add(record_id)
            doc = paste.docs[paste.groups[f.group].doc]
            span = f.span if doc.pieces == _IDENTITY else doc.span_to_original(*f.span)
            score = round(min(1.0, max(0.0, f.score)), 4)
            matches.append(_new_match(record_id, score, f.exact, f.values, span,
                                      f.why or _detail(f), f.site_index))
        return matches, stats

    def _exact(
        self, doc: Doc, doc_index: int, stats: MatchStats, budget: int, hit_cap: int
    ) -> list[_Found]:
        out: list[_Found] = []
        occurrences: dict[int, int] = {}
        seen: set[tuple[int, int]] = set()
        text = doc.text
        post_start, postings = self._post_start, self._postings
        # check word -> in the text, looked for once; a long text has no room for
        # a search through all of it per word, and is verified without them.
        check_words = self._check_words
        present: dict[int, bool] = {}
        crowded = self._crowded
        # crowded key -> the postings of it to read here, found once (see _crowd_postings)
        crowd_found: dict[int, list[int] | None] = {}
        size = len(text)
        checked = size <= CHECK_TEXT
        hits = 0
        for key_id, anchor_start, anchor_end in self._anchor_hits(text):
            hits += 1
            if hits > hit_cap or stats.scanned > budget:
                stats.exhausted = True
                break
            seen_here = occurrences.get(key_id, 0) + 1
            occurrences[key_id] = seen_here
            if seen_here > MAX_OCCURRENCES:
                continue
            crowd: list[int] | None = None
            if checked and key_id in crowded:
                crowd = crowd_found.get(key_id)
                if crowd is None:
                    stats.scanned += len(text)
                    crowd = crowd_found[key_id] = self._crowd_postings(key_id, text)
            for p in crowd if crowd is not None else range(
                    post_start[key_id], post_start[key_id + 1]):
                if stats.scanned > budget:
                    stats.exhausted = True
                    break
                at = POSTING * p
                entry = postings[at]
                literal_start = anchor_start - postings[at + 2]
                if literal_start < 0 or (entry, literal_start) in seen:
                    continue
                ends = postings[at + 4]
                if ends:
                    # The anchor's literal must fit the text at both ends: part of what
                    # _verify tests first, made from the posting alone. A key shared by
                    # templates of like wording is mostly found inside another's literal.
                    literal_end = literal_start + (ends >> 16)
                    if literal_end > size:
                        continue
                    first, last = ends >> 8 & 0xFF, ends & 0xFF
                    if first and ord(text[literal_start]) != first:
                        continue
                    if last and ord(text[literal_end - 1]) != last:
                        continue
                literal_index = postings[at + 1]
                if literal_index & _LINE_FLAGS:
                    # _bind's test that the match is its whole line, made before reading
                    # the template: most of these occurrences are words inside a sentence.
                    if literal_index & OPENS_LINE and not _blank(
                            text, doc.line_at(literal_start).content_start, literal_start):
                        continue
                    if literal_index & CLOSES_LINE and not _blank(
                            text, anchor_end, doc.line_at(anchor_end - 1).content_end):
                        continue
                    literal_index &= ~_LINE_FLAGS
                check = postings[at + 3] - 1
                if check >= 0 and checked and crowd is None:
                    there = present.get(check)
                    if there is None:
                        stats.scanned += len(text)
                        there = present[check] = check_words[check] in text
                    if not there:
                        continue
                seen.add((entry, literal_start))
                stats.verifications += 1
                item = self._verify(entry, literal_index, literal_start, doc, stats)
                if item is not None:
                    out.append(item)
        stats.anchor_hits += hits
        return out

    def _verify(
        self, entry: int, index: int, start: int, doc: Doc, stats: MatchStats
    ) -> _Found | None:
        """Find the template's literals around one anchor occurrence, in linear time."""
        c = self._compiled[entry]
        text, lits = doc.text, c.literals
        anchor = lits[index]
        stats.scanned += len(anchor)
        if not text.startswith(anchor, start):
            return None
        n = len(lits)
        if n == 1:
            return self._bind(entry, [start], doc, stats)
        starts = [0] * n
        starts[index] = start
        pos = start + len(anchor)
        size = len(text)
        last_window: tuple[int, int] | None = None  # where the last literal was looked for
        for k in range(index + 1, n):
            lit = lits[k]
            if k == n - 1 and not lit:
                break  # a trailing hole: runs to the end of the line
            limit = pos + MAX_HOLE
            if limit > size:
                limit = size
            if c.single_line[k - 1]:
                newline = text.find("\n", pos, limit)
                if newline >= 0:
                    limit = newline
            stats.scanned += limit - pos + len(lit)
            found = text.find(lit, pos, limit + len(lit))
            if found < 0:
                return None
            if k == n - 1:
                last_window = (pos, limit + len(lit))
            starts[k] = found
            pos = found + len(lit)
        right = start
        for k in range(index - 1, -1, -1):
            lit = lits[k]
            if k == 0 and not lit:
                break  # a leading hole: runs from the start of the line's message
            low = right - MAX_HOLE
            if low < 0:
                low = 0
            if c.single_line[k]:
                newline = text.rfind("\n", low, right)
                if newline >= 0:
                    low = newline + 1
            low = max(0, low - len(lit))
            stats.scanned += right - low
            found = text.rfind(lit, low, right)
            if found < 0:
                return None
            starts[k] = right = found
        item = self._bind(entry, starts, doc, stats)
        if item is None and last_window is not None:
            # The last literal may occur inside the value before it too (`.` after
            # 'model.safetensors'): one more try at its last occurrence in the window.
            later = text.rfind(lits[-1], *last_window)
            if later > starts[-1]:
                stats.scanned += last_window[1] - last_window[0]
                starts[-1] = later
                return self._bind(entry, starts, doc, stats)
        return item

    def _bind(self, entry: int, starts: list[int], doc: Doc, stats: MatchStats) -> _Found | None:
        c = self._compiled[entry]
        text, lits, n = doc.text, c.literals, len(c.literals)
        match_start, match_end = starts[0], starts[n - 1] + len(lits[n - 1])
        bounds = [(starts[k] + len(lits[k]), starts[k + 1]) for k in range(n - 1)]
        if n > 1 and not lits[0]:
            line = doc.line_at(starts[1])
            match_start = line.content_start if line.content_start <= starts[1] else line.start
            bounds[0] = (match_start, starts[1])
        if n > 1 and not lits[-1]:
            last = starts[n - 2] + len(lits[n - 2])
            line = doc.line_at(last)
            match_end = line.content_end if last <= line.content_end else max(last, line.end)
            bounds[-1] = (last, match_end)
        first_line = doc.line_at(match_start)
        last_line = first_line if match_end <= first_line.end else doc.line_at(match_end - 1)
        if first_line.group < 0:
            return None  # inside a traceback frame, code line or header
        whole = _blank(text, first_line.content_start, match_start) and _blank(
            text, match_end, last_line.content_end
        )
        if c.whole_line and not whole:
            return None
        values: list[tuple[str, str]] = []
        empties = 0
        if n > 1:
            names = c.names
            for k, (lo, hi) in enumerate(bounds):
                if hi - lo > MAX_HOLE or hi < lo:
                    return None
                stats.scanned += hi - lo
                value = text[lo:hi]
                if (k == 0 and not lits[0]) or lits[k][-1:].isspace():
                    value = value.lstrip()
                if (k == n - 2 and not lits[-1]) or lits[k + 1][:1].isspace():
                    value = value.rstrip()
                if not value:
                    if not c.empty_ok[k]:
                        return None
                    empties += 1
                else:
                    check = _TYPE_CHECKS.get(c.types[k])
                    if check is not None and not check.fullmatch(value.strip()):
                        return None
                values.append((names[k], value))
        covered = max(1, last_line.content_end - first_line.content_start)
        coverage = min(1.0, c.literal_length / covered)
        score = coverage * EMPTY_PENALTY**empties
        exact = not c.weak or coverage >= WEAK_COVERAGE
        if not exact:
            fixed = " ".join(" ".join(lits).split())
            detail = (f"template fits, but its only fixed text {fixed!r} is {coverage:.0%} of"
                      " the line: too little to be sure")
        elif empties:
            detail = f"exact template ({empties} empty hole(s))"
        else:
            detail = "exact template"
        return _Found(
            entry, exact, tuple(values), (match_start, match_end), score, first_line.group,
            detail, partial=not whole,
        )

    def _variant(self, hit: DebugHit, paste: Paste) -> list[_Found]:
        """A Rust Debug value `Variant { field: .. }` or `Variant(..)` against entries
        whose template is that variant's #[error] text; fields bind holes by name."""
        node = hit.value
        out: list[_Found] = []
        names = [key for key, _ in node.fields]
        fields = dict(node.fields)
        group = paste.groups[hit.group]
        for entry_index in self._variants.get(node.name or "", ()):
            entry = self.entries[entry_index]
            if entry.variant_fields and (
                len(names) != len(entry.variant_fields)
                if node.kind == "variant"
                else set(names) != set(entry.variant_fields)
            ):
                continue
            values: list[tuple[str, str]] = []
            placeholders = entry.template.placeholders
            for p in placeholders:
                key = p.name if p.name in fields else _field_of(p.expression)
                if key in fields:
                    values.append((p.name, fields[key].binding()))
            if not values and node.kind == "variant" and len(names) == len(placeholders):
                values = [
                    (p.name, fields[k].binding()) for p, k in zip(placeholders, names, strict=True)
                ]
            size = max(1, group.end - group.start)
            score = min(1.0, (node.end - node.start) / size)
            detail = f"Rust Debug form of {node.name} ({len(values)} field(s) bound)"
            out.append(
                _Found(
                    entry_index,
                    True,
                    tuple(values),
                    (node.start, node.end),
                    score,
                    hit.group,
                    detail,
                    variant=True,
                )
            )
        return out

    def _by_type(self, paste: Paste) -> list[_Found]:
        """Messages whose `Type:` prefix names an exception the library raises with a
        message made at run time. Both names must agree as far as both are qualified."""
        out: list[_Found] = []
        if not self._typed:
            return out
        for group in paste.groups:
            for i in self._typed.get(_type_tail(group.exception) or "", ()):
                named, known = group.exception or "", self.entries[i].exception or ""
                if not (named.endswith("." + known) or known.endswith("." + named)
                        or named == known):
                    continue
                doc = paste.docs[group.doc]
                value = doc.text[group.start : group.end].strip()
                detail = f"exception type {known} (its message is made at run time)"
                name = self.entries[i].template.placeholders[0].name
                out.append(_Found(i, True, ((name, value),), (group.start, group.end), 0.0,
                                  group.index, detail))
        return out

    def _approximate(self, paste: Paste, matched: set[int], stats: MatchStats) -> list[_Found]:
        """Nearest records for messages with no exact match (`errdex.match.near` says how
        they are found and what their score means), each distinct message looked up once."""
        out: list[_Found] = []
        if len(matched) >= len(paste.groups):
            return out  # every message has its exact match (most pastes)
        budget = 20 * sum(len(doc.text) for doc in paste.docs) + 1_000_000
        done: dict[str, list[tuple[int, float, tuple[int, int], float]]] = {}
        for group in paste.groups:  # a message repeated later was already matched
            if group.index in matched:
                done[self._message(paste, group)] = []
        for group in paste.groups:
            if group.index in matched or group.debug or group.end <= group.start:
                continue
            message = self._message(paste, group)
            if message not in done:
                if len(done) > APPROX_MAX_GROUPS or stats.approximate > budget:
                    break
                done[message] = self._nearest(message, stats)
            for i, score, words, order in done[message]:
                span = (group.start, group.end)
                out.append(_Found(i, False, (), span, score, group.index, "", order=order,
                                  words=words))
        return out

    @staticmethod
    def _message(paste: Paste, group: Group) -> str:
        doc = paste.docs[group.doc]
        return doc.text[group.start : min(group.end, group.start + 2_000)]

    def _nearest(
        self, message: str, stats: MatchStats
    ) -> list[tuple[int, float, tuple[int, int], float]]:
        found, read = self._near.nearest(message)
        stats.approximate += read
        return found

    def _rank(
        self,
        item: _Found,
        paste: Paste,
        final: int | None,
        libraries: frozenset[tuple[str, str | None]],
    ) -> None:
        c = self._compiled[item.entry]
        group: Group = paste.groups[item.group]
        reasons: list[str] = []  # besides item.detail
        frame_rank = 2
        frame: Frame | None = group.frame
        if frame is not None:
            frame_path = _components(frame.path)
            for i, (path, line) in enumerate(c.sites):
                if _path_agrees(path, frame_path):
                    if line == frame.line:
                        frame_rank, item.site_index = 0, i
                        break
                    frame_rank = 1
            where = f"{'/'.join(frame_path[-2:])}:{frame.line}"
            if frame_rank == 0:
                reasons.append(f"traceback frame {where}")
            elif frame_rank == 1:
                reasons.append(f"same file as frame {where}, other line")
        text_type = _type_tail(group.exception) if group.exception else None
        agrees = text_type is not None and text_type == c.exception
        if agrees:
            reasons.append(f"exception type {text_type} agrees")
        holes = len(c.specs)
        # A traceback's final exception, else a message that is not a `Caused by:` line.
        # Text inside a Debug value's quotes is matched again, unescaped, in a doc of its own.
        last = int(group.cause or (group.debug and not item.variant))
        if final is not None:
            last = 0 if item.group == final else 1
        library = 2
        if libraries:
            entry = self.entries[item.entry]
            library = _library_rank(entry.repo, entry.version, libraries)
            if library < 2:
                reasons.append("traceback comes from " + entry.repo
                               + (f" {entry.version}" if library == 0 else ""))
        if item.exact:
            item.rank = (0, last, frame_rank, 0 if agrees else 1, -c.solid_chars,
                         item.partial, library, holes, -item.score)
        else:
            item.rank = (1, last, frame_rank, 0 if agrees else 1, -item.score, -item.order,
                         library, -c.solid_chars, holes)
        if reasons:  # else the detail alone, made when shown (_detail)
            item.why = "; ".join([_detail(item), *reasons])


_IDENTITY = ((0, 0),)  # a Doc's offsets are the input's own
_new_object = object.__new__
_set_attribute = object.__setattr__


def _detail(found: _Found) -> str:
    """How a found template fits; for a near miss, made only for those shown."""
    return found.detail or near_detail(found.words, found.score)


def _rank_of(found: _Found) -> tuple[int | float, ...]:
    return found.rank


def _new_match(
    record_id: str, score: float, exact: bool, values: tuple[tuple[str, str], ...],
    span: tuple[int, int], why: str, site_index: int | None,
) -> Match:
    """A Match, as Match(...) makes it: a frozen dataclass sets each field through
    object.__setattr__, which cost a fifth of matching a one-line message; this sets them
    at once. tests/test_match.py checks it covers every field."""
    match = _new_object(Match)
    _set_attribute(match, "__dict__", {
        "record_id": record_id, "score": score, "exact": exact, "values": values,
        "span": span, "why": why, "site_index": site_index,
    })
    return match


def _explained(paste: Paste, found: list[_Found]) -> set[int]:
    """The messages exact matches account for: each match's own, and every other that
    lies inside a match (the later lines of a multi-line message, each a message of its
    own to the paste reader). A nearest record is looked up for none of them."""
    explained = {f.group for f in found if f.exact}
    if len(explained) == len(paste.groups):
        return explained
    spans = sorted((paste.groups[f.group].doc, f.span[0], f.span[1])
                   for f in found if f.exact and f.span[1] > f.span[0])
    if not spans:
        return explained
    reach: list[int] = []  # the furthest end of a match starting here or earlier in its doc
    for k, (doc, _, end) in enumerate(spans):
        reach.append(max(end, reach[-1]) if k and spans[k - 1][0] == doc else end)
    for group in paste.groups:
        if group.index not in explained:
            i = bisect_right(spans, (group.doc, group.start, 1 << 62)) - 1
            if i >= 0 and spans[i][0] == group.doc and group.end <= reach[i]:
                explained.add(group.index)
    return explained


def _line_flags(literals: tuple[str, ...], index: int, offset: int, key_length: int) -> int:
    """The line flags of a whole-line template anchored in literal `index` at `offset`:
    OPENS_LINE if that literal begins the template, CLOSES_LINE if the anchor ends it."""
    flags = OPENS_LINE if index == 0 and literals[0] else 0
    last = literals[-1]
    if index == len(literals) - 1 and last and offset + key_length == len(last):
        flags |= CLOSES_LINE
    return flags


def _literal_ends(literal: str) -> int:
    """A literal's length, first and last characters as `length << 16 | first << 8 |
    last`; a character past Latin-1 as 0 (not tested), and 0 for a literal too long."""
    if not literal or len(literal) > 0xFFFF:
        return 0
    first, last = ord(literal[0]), ord(literal[-1])
    return len(literal) << 16 | (first if first < 256 else 0) << 8 | (last if last < 256 else 0)


def _blank(text: str, start: int, end: int) -> bool:
    """Only whitespace between two offsets (short gaps only: a long one isn't blank)."""
    return end <= start or (end - start <= 64 and not text[start:end].strip())


def _field_of(expression: str) -> str:
    """`self.lhs` / `&self.0` / `lhs` -> the field it reads."""
    text = expression.strip().lstrip("&*").strip()
    return text[5:] if text.startswith("self.") else text
