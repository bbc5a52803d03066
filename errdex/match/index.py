"""The anchor index: every template anchored at its rarest literal fragment in one
Aho-Corasick automaton, with the postings that say which templates each anchor starts.

Built once from the compiled templates and never changed. It finds where anchors occur
in a text and which templates to verify there; verifying them is `errdex.match.verify`'s
job, and the index never reads a template's holes.
"""

from __future__ import annotations

import re
import zlib
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Final

import ahocorasick_rs

from errdex.match.compiled import Compiled

MIN_ANCHOR: Final = 8  # an anchor fragment this long is "of decent length"
CHECK_WORD: Final = 3  # a check word (see AnchorIndex) is at least this long
POSTING: Final = 5  # numbers per posting in AnchorIndex.postings
# Set in a posting's literal index when its template must be the whole line and opens
# with the anchor's literal (closes with the anchor): an occurrence after (before) other
# text on its line is not verified.
OPENS_LINE: Final = 1 << 31
CLOSES_LINE: Final = 1 << 30
LINE_FLAGS: Final = OPENS_LINE | CLOSES_LINE
# An anchor shared by templates with this many different check words has its check words
# found in one pass over the text (see AnchorIndex.crowd_postings), not one search per word.
CROWDED: Final = 8
DF_SLOTS: Final = 1 << 22  # hashed counters for fragment rarity (16 MB while building)
MAX_KEY: Final = 256  # an anchor is at most this long (a longer literal is anchored at its start)
ANCHOR_CHUNK: Final = 1 << 16  # a longer text is searched for anchors piece by piece

_TOKEN = re.compile(r"\S+")


def stable_hash(text: str) -> int:
    """The same in every process (str's hash() is salted per process), so which fragment
    anchors a template, and so what a benchmark measures, doesn't change from run to run."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


class AnchorIndex:
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

    def __init__(self, compiled: Sequence[Compiled], saved: AnchorParts | None = None) -> None:
        self._compiled = compiled
        # A restored index (`saved`) reads its anchors' text from one string: the
        # automaton keeps no patterns, and its templates are compiled only when used.
        self._key_text = ""
        self._key_start = array("I")
        # Postings of anchor k are post_start[k] to post_start[k + 1] - 1. Posting p is
        # postings[5p:5p + 5]: template, literal index (| line flags), the anchor's
        # offset in that literal, check word + 1 (0 for none), and the literal's ends
        # (_literal_ends); side by side, so that a posting is one memory read, not five,
        # in a table of a million.
        self.key_length = array("H")
        self.post_start = array("I")
        self.postings = array("I")
        self.check_words: tuple[str, ...] = ()
        # key id -> an automaton of its postings' check words, the postings of each word
        # (by the word's pattern index), and the postings with no check word
        self.crowded: dict[int, tuple[Any, tuple[tuple[int, ...], ...], tuple[int, ...]]] = {}
        if saved is not None:
            self._automaton = self._restore(saved)
        else:
            self._automaton = self._build()

    def parts(self) -> AnchorParts:
        """What `AnchorIndex(compiled, saved=...)` needs to be this index again without
        rebuilding it: the postings and the anchors' text (errdex.match.saved keeps it)."""
        keys = "".join(self.anchor_key(k) for k in range(self.keys()))
        return AnchorParts(self.key_length, self.post_start, self.postings, self.check_words,
                           keys, array("I", sorted(self.crowded)))

    def _restore(self, saved: AnchorParts) -> Any:
        """The automaton of saved anchors (the one part that is built again: it can't be
        saved), and the crowded keys' small automata."""
        self.key_length, self.post_start, self.postings = (
            saved.key_length, saved.post_start, saved.postings)
        self.check_words = saved.check_words
        self._key_text = saved.keys
        self._key_start = array("I", [0])
        self._key_start.extend(accumulate(self.key_length))
        keys = [self._key_text[self._key_start[k] : self._key_start[k + 1]]
                for k in range(len(self.key_length))]
        for key_id in saved.crowded:
            self._crowd(key_id)
        return ahocorasick_rs.AhoCorasick(keys) if keys else None

    def _build(self) -> Any:
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
                self.post_start.append(len(self.postings) // POSTING)
            check = -1
            compiled = self._compiled[entry_index]
            words = [w for w in _check_words(compiled.literals) if w not in key]
            if words:
                word = min(words, key=lambda w: (df[stable_hash(w) % slots], -len(w), w))
                check = check_ids.setdefault(word, len(check_ids))
            ends = _literal_ends(compiled.literals[literal_index])
            if compiled.whole_line:
                literal_index |= _line_flags(compiled.literals, literal_index, offset, len(key))
            self.postings.extend((entry_index, literal_index, offset, check + 1, ends))
        self.post_start.append(len(self.postings) // POSTING)
        del anchors
        self.key_length = array("H", map(len, keys))
        self.check_words = tuple(check_ids)
        for key_id in range(len(keys)):
            if self.post_start[key_id + 1] - self.post_start[key_id] >= CROWDED:
                self._crowd(key_id)
        return ahocorasick_rs.AhoCorasick(keys) if keys else None

    def _crowd(self, key_id: int) -> None:
        """Postings of a key shared by templates with CROWDED+ different check words:
        grouped by check word, with an automaton of those words (see crowd_postings)."""
        by_word: dict[int, list[int]] = defaultdict(list)
        for p in range(self.post_start[key_id], self.post_start[key_id + 1]):
            by_word[self.postings[POSTING * p + 3] - 1].append(p)
        unchecked = tuple(by_word.pop(-1, ()))
        if len(by_word) >= CROWDED:
            words = tuple(by_word)
            self.crowded[key_id] = (
                ahocorasick_rs.AhoCorasick([self.check_words[w] for w in words]),
                tuple(tuple(by_word[w]) for w in words), unchecked)

    def crowd_postings(self, key_id: int, text: str) -> list[int] | None:
        """The postings of a crowded key whose check word is in `text` (found in one pass
        by the key's own automaton), with those that have none; None for a key that
        isn't crowded."""
        crowd = self.crowded.get(key_id)
        if crowd is None:
            return None
        automaton, by_word, unchecked = crowd
        found = {i for i, _, _ in automaton.find_matches_as_indexes(text, overlapping=True)}
        return sorted([*unchecked, *(p for i in found for p in by_word[i])])

    def keys(self) -> int:
        """How many distinct anchors there are (key ids run from 0 to this)."""
        return len(self.key_length)

    def anchor_key(self, key_id: int) -> str:
        """The anchor text of a key id, read back from its first template (the automaton
        doesn't keep its patterns, and a million of them needn't be held twice)."""
        if self._key_start:
            return self._key_text[self._key_start[key_id] : self._key_start[key_id + 1]]
        p = self.post_start[key_id]
        entry, literal_index, offset = self.postings[POSTING * p : POSTING * p + 3]
        literal = self._compiled[entry].literals[literal_index & ~LINE_FLAGS]
        return literal[offset : offset + self.key_length[key_id]]

    def anchor_hits(self, text: str) -> Iterable[tuple[int, int, int]]:
        """(key id, start, end) of every anchor occurrence, overlapping ones included.
        A long text is searched in ANCHOR_CHUNK pieces, overlapping by the longest key,
        so a hostile paste never builds one huge list of hits."""
        if self._automaton is None:
            return ()
        if len(text) <= ANCHOR_CHUNK:
            found: list[tuple[int, int, int]] = self._automaton.find_matches_as_indexes(
                text, overlapping=True
            )
            return found
        return self._chunked_hits(text)

    def _chunked_hits(self, text: str) -> Iterator[tuple[int, int, int]]:
        overlap = MAX_KEY
        for base in range(0, len(text), ANCHOR_CHUNK):
            piece = text[base : base + ANCHOR_CHUNK + overlap]
            for key_id, start, end in self._automaton.find_matches_as_indexes(
                piece, overlapping=True
            ):
                if start < ANCHOR_CHUNK:  # one that starts in the overlap is the next piece's
                    yield key_id, base + start, base + end


@dataclass(frozen=True)
class AnchorParts:
    """An AnchorIndex as saved: its arrays, check words, every anchor's text end to end
    (key k is `key_length[k]` characters), and the crowded keys."""

    key_length: array[int]
    post_start: array[int]
    postings: array[int]
    check_words: tuple[str, ...]
    keys: str
    crowded: array[int]


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
