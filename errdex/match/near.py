"""Near misses: the records closest to a message that no template matches exactly, as a
nearby version of a library would print it (a word added, changed or dropped).

Candidates are the templates sharing adjacent word pairs with the message (`shape
mismatch`, `and v`): such text keeps most of its template's pairs, a pair is in far fewer
templates than either of its words, and a sentence of unrelated words rarely has one.
A pair in more than APPROX_PAIR_TEMPLATES templates says too little and is not indexed.
The message's pairs are read rarest first (by the postings of their slot), APPROX_READ
postings at most. A template sharing one pair is a candidate only if it has no more than
APPROX_FEW_PAIRS indexed pairs (a changed word costs a template two pairs, so a longer one
keeps two); of the rest, the APPROX_CANDIDATES sharing most pairs are scored by words:

    score = sum of idf(w) over template words w the message contains
            / sum of idf(w) over all the template's words,   idf(w) = ln(1 + N / df(w))

the share of the template's (rarity-weighted) wording the message repeats: 1.0 is every
word, and a changed rare word costs more than a changed "the". Only templates of
APPROX_MIN_WORDS+ words, sharing at least two words and scoring APPROX_THRESHOLD or more
are returned. Ties of score are broken by the share of the template's indexed word pairs
the message keeps in order (`k .. and v` against `q .. and k`): the pairs the lookup
found it by, over the pairs it has. Knows nothing of holes or pastes: templates are their
literal texts, by index.

Every distinct token of the literals has an id (a message token without one is in no
pair), and a pair of ids is hashed with integer arithmetic to a slot of the pair table and
to a 16-bit fingerprint kept beside each of its postings: the postings of other pairs that
collided into the slot are passed over without touching their templates. The hash is the
same in every process, so what is indexed where, and what a benchmark measures, doesn't
change from run to run.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from errdex.words import WORD

try:  # the same lookup in C, where setup.py found a compiler (errdex/match/_nearc.c)
    from errdex.match import _nearc

    NATIVE = True
except ImportError:
    NATIVE = False

APPROX_THRESHOLD: Final = 0.5
APPROX_MIN_WORDS: Final = 3
APPROX_CANDIDATES: Final = 25
APPROX_FEW_PAIRS: Final = 3  # a template with this many indexed pairs or fewer may share just one
APPROX_READ: Final = 500  # postings read per message by the nearest-record lookup
APPROX_PAIR_TEMPLATES: Final = 500  # a word pair in more templates finds no near miss
PAIR_SLOTS: Final = 1 << 23  # hashed slots of the word-pair index (fewer for fewer templates)

# Words (errdex.words.WORD) as scoring and the key index (errdex.store.keys) count them.
_TOKEN_WORD: Final = re.compile(r"[A-Za-z0-9_]+")
_NOT_FIRST: Final = "0123456789_"  # a token's characters that WORD doesn't start at
_MASK: Final = (1 << 30) - 1  # token ids, and hashes, are under 2**30


class NearIndex:
    """Word and word-pair indexes over templates' literals, in flat arrays and bytes: a
    million templates hold some eight million words and seven million pairs. `slots` sets
    the pair table's size (by default 4 per template, at most PAIR_SLOTS). `native`: look
    up in C where errdex/match/_nearc.c was built (same answers, a third of the time cold)."""

    def __init__(
        self, literals: Sequence[tuple[str, ...]], slots: int = 0, native: bool = True,
        saved: NearParts | None = None,
    ) -> None:
        self._native: _nearc.Lookup | None = None
        self._native_low: _nearc.Lookup | None = None  # made on first use (`nearest`)
        self._low_threshold = 0.0
        self._table: bytes | None = None
        self._rarest: float | None = None  # the largest idf, made on first use
        if saved is not None:
            self._restore(saved, native)
            return
        self._slots = slots or max(1024, min(PAIR_SLOTS, 4 * len(literals)))
        # Token or word -> `id << 1 | (is a word)`, and each template's word ids,
        # template_words[words_start[i]:words_start[i + 1]].
        self._ids: dict[str, int] = {}
        words_start, template_words = array("I", [0]), array("I")
        df = array("I")
        pair_count = array("I")
        # Each (pair, template) posting, in template order: its slot, fingerprint, template.
        buckets, fingerprints, owners = array("I"), array("H"), array("I")
        with_words = 0
        for i, lits in enumerate(literals):
            words, pairs = self._tokenize(lits, df)
            with_words += bool(words)
            for word_id in words:
                df[word_id] += 1
                template_words.append(word_id)
            words_start.append(len(template_words))
            for key in pairs:
                hashed = _pair_hash(key >> 30, key & _MASK)
                buckets.append((hashed >> 16) % self._slots)
                fingerprints.append(hashed & 0xFFFF)
                owners.append(i)
            pair_count.append(len(pairs))
        templates = with_words or 1
        self._idf = array("d", (math.log(1 + templates / count) if count else 0.0 for count in df))
        del df
        # Summed in the order nearest() sums a message's share: every word is exactly 1.0.
        self._idf_total = array("d", bytes(8 * len(literals)))
        idf, starts, flat = self._idf, words_start, template_words
        for i in range(len(literals)):
            total = 0.0
            for at in range(starts[i], starts[i + 1]):
                total += idf[flat[at]]
            self._idf_total[i] = total
        start, self._pair_fingerprint, self._pair_owner = self._build_pairs(
            buckets, fingerprints, owners, pair_count
        )
        del buckets, fingerprints, owners
        # What a lookup reads one number at a time is kept as bytes, which compiled code
        # reads without making an object of each byte (see _u32).
        self._pair_start = _little_endian(start)
        self._words_start = _little_endian(words_start)
        self._template_words = _little_endian(template_words)
        del start, words_start, template_words
        # Each template's indexed pairs (at most 255): does sharing one pair make it near?
        self._pair_count = bytes(min(255, n) for n in pair_count)
        if native and NATIVE:
            self._table = _nearc.token_table(self._ids)
            self._native = self._lookup(APPROX_THRESHOLD)

    def parts(self) -> NearParts:
        """What `NearIndex(saved=...)` needs to be this index again without rebuilding
        it (errdex.match.saved keeps it)."""
        return NearParts(self._slots, "\n".join(self._ids), array("I", self._ids.values()),
                         self._idf, self._idf_total, self._pair_start,
                         self._pair_fingerprint, self._pair_owner, self._words_start,
                         self._template_words, self._pair_count)

    def _restore(self, saved: NearParts, native: bool) -> None:
        """This index from its saved parts; the native lookup's token table is made again
        from the tokens (it is C's to read, so never taken from stored bytes)."""
        self._slots = saved.slots
        tokens = saved.tokens.split("\n") if saved.tokens else []
        self._ids = dict(zip(tokens, saved.values, strict=True))
        self._idf, self._idf_total = saved.idf, saved.idf_total
        self._pair_start = saved.pair_start
        self._pair_fingerprint, self._pair_owner = saved.pair_fingerprint, saved.pair_owner
        self._words_start, self._template_words = saved.words_start, saved.template_words
        self._pair_count = saved.pair_count
        if native and NATIVE:
            self._table = _nearc.token_table(self._ids)
            self._native = self._lookup(APPROX_THRESHOLD)

    def _lookup(self, threshold: float) -> _nearc.Lookup:
        """A native lookup over this index's arrays (shared, not copied)."""
        assert self._table is not None
        return _nearc.Lookup(
            self._table, self._pair_start, self._pair_fingerprint,
            self._pair_owner, self._words_start, self._template_words, self._idf,
            self._idf_total, self._pair_count, self._slots, APPROX_PAIR_TEMPLATES,
            APPROX_READ, APPROX_MIN_WORDS, APPROX_CANDIDATES, APPROX_FEW_PAIRS,
            threshold,
        )

    def _tokenize(self, literals: tuple[str, ...], df: array[int]) -> tuple[list[int], set[int]]:
        """A template's word ids (the words of `literal_words`, in order of appearance)
        and its pairs (adjacent tokens of one literal, one-letter words included, never
        across a hole) as keys `first id << 30 | second`."""
        words: list[int] = []
        pairs: set[int] = set()
        for literal in literals:
            previous = -1
            for token in _TOKEN_WORD.findall(literal.lower()):
                value = self._id_of(token, df)
                if previous >= 0:
                    pairs.add(previous << 30 | value >> 1)
                previous = value >> 1
                if not value & 1:
                    word = _word_of(token)
                    if not word:
                        continue
                    value = self._ids[word]
                if value >> 1 not in words:
                    words.append(value >> 1)
        return words, pairs

    def _id_of(self, text: str, df: array[int]) -> int:
        """`id << 1 | 1` for a token or word that is a word, `id << 1` for another token,
        giving it (and its word) an id when first seen."""
        known = self._ids.get(text, -1)
        if known >= 0:
            return known
        word = _word_of(text)
        if word and word != text:
            self._id_of(word, df)
        value = len(df) << 1 | (word == text)
        self._ids[text] = value
        df.append(0)
        return value

    def _build_pairs(
        self,
        buckets: array[int],
        fingerprints: array[int],
        owners: array[int],
        pair_count: array[int],
    ) -> tuple[array[int], array[int], array[int]]:
        """Postings sorted by slot (by template within a slot), those of slot b being
        [start[b]:start[b + 1]] of the fingerprint and template arrays. The postings of a
        pair in more than APPROX_PAIR_TEMPLATES templates are left out, and not counted
        among the template's pairs."""
        slots = self._slots
        start = array("I", bytes(4 * (slots + 2)))  # slot `slots` takes what is left out
        crowded: set[int] = set()
        for bucket in buckets:
            start[bucket + 1] += 1
            if start[bucket + 1] == APPROX_PAIR_TEMPLATES + 1:
                crowded.add(bucket)
        if crowded:
            per_pair: dict[int, int] = {}
            for k, bucket in enumerate(buckets):
                if bucket in crowded:
                    key = bucket << 16 | fingerprints[k]
                    per_pair[key] = per_pair.get(key, 0) + 1
            common = {key for key, n in per_pair.items() if n > APPROX_PAIR_TEMPLATES}
            for k, bucket in enumerate(buckets):
                if bucket in crowded and bucket << 16 | fingerprints[k] in common:
                    buckets[k] = slots
                    start[bucket + 1] -= 1
                    start[slots + 1] += 1
                    pair_count[owners[k]] -= 1
        for b in range(slots + 1):
            start[b + 1] += start[b]
        fill = array("I", start)
        owner = array("I", bytes(4 * len(owners)))
        fingerprint = array("H", bytes(2 * len(owners)))
        for k, bucket in enumerate(buckets):
            at = fill[bucket]
            owner[at] = owners[k]
            fingerprint[at] = fingerprints[k]
            fill[bucket] = at + 1
        kept = start[slots]
        del owner[kept:], fingerprint[kept:], start[slots + 1 :]
        return start, fingerprint, owner

    def nearest(
        self, message: str, threshold: float = APPROX_THRESHOLD
    ) -> tuple[list[tuple[int, float, tuple[int, int], float]], int]:
        """(template index, score, (template words the message has, template words),
        word-order share) of each near template (`near_detail` says it in words), and the
        postings read to find them (at most APPROX_READ, none from a slot holding more
        than APPROX_PAIR_TEMPLATES). A lower `threshold` gives the candidates a paste
        holding only a template's beginning may be cut from (`errdex.match.truncated`)."""
        if self._native is not None:
            if threshold == APPROX_THRESHOLD:
                return self._native.nearest(message.lower())
            if self._native_low is None or self._low_threshold != threshold:
                self._native_low = self._lookup(threshold)
                self._low_threshold = threshold
            return self._native_low.nearest(message.lower())
        return self._nearest_python(message.lower(), threshold)

    def message_shares(self, message: str, templates: Sequence[int]) -> list[float]:
        """For each template, the share of the message's (rarity-weighted) words it holds: the
        other side of `nearest`'s score, which is the share of the template the message holds.
        A short template whose words all lie in a longer message scores 1.0 there and low here
        (`Unable to cast Python instance to C++ type (compile in debug mode for details)`
        holds all of today's `.. of type {t} to C++ type '{u}'` but half its own words are
        the other template's). A word in no template counts as rare as a word can be."""
        ids, idf = self._ids, self._idf
        mine: set[int] = set()
        others: set[str] = set()
        for token in _TOKEN_WORD.findall(message[:2_000].lower()):
            value = ids.get(token, -1)
            if value < 0 or not value & 1:
                word = _word_of(token)
                value = ids.get(word, -1) if word else -1
                if value < 0:
                    if word:
                        others.add(word)
                    continue
            mine.add(value >> 1)
        if self._rarest is None:  # once: the idf array has a value per distinct token
            self._rarest = max(idf, default=1.0)
        rarest = self._rarest
        total = sum(idf[w] for w in mine) + rarest * len(others)
        starts, flat = self._words_start, self._template_words
        shares: list[float] = []
        for i in templates:
            held = {_u32(flat, at) for at in range(_u32(starts, i), _u32(starts, i + 1))}
            shares.append(sum(idf[w] for w in mine & held) / total if total else 0.0)
        return shares

    def _nearest_python(
        self, lowered: str, threshold: float = APPROX_THRESHOLD
    ) -> tuple[list[tuple[int, float, tuple[int, int], float]], int]:
        """`nearest` of a lowercased message, in Python."""
        ids, start, slots = self._ids, self._pair_start, self._slots
        mine: set[int] = set()  # the message's words in some template, by id
        others: set[str] = set()  # and those in none
        # The slot of each pair of indexed tokens, as `postings << 48 | slot << 16 |
        # fingerprint`: sorted, the rarest pairs are read first and a repeated one once.
        reads: list[int] = []
        previous = -1
        for token in _TOKEN_WORD.findall(lowered):
            value = ids.get(token, -1)
            if value >= 0:
                if previous >= 0:
                    hashed = _pair_hash(previous, value >> 1)
                    bucket = (hashed >> 16) % slots
                    size = _u32(start, bucket + 1) - _u32(start, bucket)
                    if size and size <= APPROX_PAIR_TEMPLATES:
                        reads.append(size << 48 | bucket << 16 | hashed & 0xFFFF)
                previous = value >> 1
                if value & 1:
                    mine.add(value >> 1)
                    continue
            else:
                previous = -1
            word = _word_of(token)  # of a token in no template, or not itself a word
            if word:
                value = ids.get(word, -1)
                if value >= 0:
                    mine.add(value >> 1)
                else:
                    others.add(word)
        if len(mine) + len(others) < APPROX_MIN_WORDS:
            return [], 0
        reads.sort()
        fingerprint, owner = self._pair_fingerprint, self._pair_owner
        shared: list[int] = []  # the templates of each shared pair
        read = 0
        last = -1
        for item in reads:
            size = item >> 48
            if item == last or read + size > APPROX_READ:
                continue
            last = item
            read += size
            low = _u32(start, (item >> 16) & 0xFFFFFFFF)
            mark = item & 0xFFFF
            if size > 8:  # most postings are of one pair, or none are of this one
                found = fingerprint[low : low + size].count(mark)
                if not found:
                    continue
                if found == size:
                    shared.extend(owner[low : low + size])
                    continue
            for at in range(low, low + size):
                if fingerprint[at] == mark:
                    shared.append(owner[at])
        if not shared:
            return [], read
        counts = _count(shared)  # template -> pairs shared, in order first counted
        idf, idf_total = self._idf, self._idf_total
        starts, flat = self._words_start, self._template_words
        few = self._pair_count
        out: list[tuple[int, float, tuple[int, int], float]] = []
        for i in _candidates(counts, few):
            low, high = _u32(starts, i), _u32(starts, i + 1)
            if high - low < APPROX_MIN_WORDS:
                continue
            total = 0.0
            found = 0
            for at in range(low, high):
                word_id = _u32(flat, at)
                if word_id in mine:
                    total += idf[word_id]
                    found += 1
            if found < 2:
                continue
            score = total / idf_total[i]
            if score >= threshold:
                # The share of its indexed pairs the message keeps, counted on the way.
                order = min(1.0, counts[i] / few[i]) if few[i] else 0.0
                out.append((i, score, (found, high - low), order))
        return out, read


@dataclass(frozen=True)
class NearParts:
    """A NearIndex as saved: its tokens (newline-separated: a token is a run of word
    characters) with their values, and its arrays and bytes."""

    slots: int
    tokens: str
    values: array[int]
    idf: array[float]
    idf_total: array[float]
    pair_start: bytes
    pair_fingerprint: array[int]
    pair_owner: array[int]
    words_start: bytes
    template_words: bytes
    pair_count: bytes


def _candidates(counts: dict[int, int], few: bytes) -> list[int]:
    """The APPROX_CANDIDATES templates sharing most pairs (the first-counted first among
    ties; all of them, in the order first counted, when there are no more), less those
    sharing one pair when they have more than APPROX_FEW_PAIRS (`few`: pairs per template)."""
    top = _most_counted(counts, APPROX_CANDIDATES)
    return [i for i in top if counts[i] > 1 or few[i] <= APPROX_FEW_PAIRS]


def near_detail(words: tuple[int, int], score: float) -> str:
    """Why a near template was found, as a user reads it: made only for those shown."""
    return f"approximate: {words[0]} of {words[1]} template words ({score:.2f} idf-weighted)"


@lru_cache(maxsize=1 << 16)
def literal_words(literals: tuple[str, ...]) -> frozenset[str]:
    """The words (two characters or more, lowercased) of a template's literals."""
    return frozenset(WORD.findall(" ".join(literals).lower()))


def _word_of(token: str) -> str:
    """The WORD in a token of lowercased text, or "": a token is a run of word characters
    and WORD takes its rest from its first letter on, if that is two characters or more."""
    if token[0] in _NOT_FIRST:
        token = token.lstrip(_NOT_FIRST)
    return token if len(token) > 1 else ""


def _pair_hash(first: int, second: int) -> int:
    """A pair of token ids' slot hash (bits 16 to 45) and fingerprint (bits 0 to 15). In
    30 bits, so every product stays in a machine word, as mypyc's fast ints want."""
    key = first * 0x1E3779B1 + second
    key = (key ^ (key >> 30)) & _MASK
    return _mix(key) << 16 | (_mix(key ^ 0x1BD1E995) & 0xFFFF)


def _mix(x: int) -> int:
    """A 30-bit integer finalizer: every input bit moves about half the output bits."""
    x = ((x ^ (x >> 15)) * 0x2C1B3C6D) & _MASK
    x = ((x ^ (x >> 13)) * 0x297A2D39) & _MASK
    return x ^ (x >> 16)


def _little_endian(values: array[int]) -> bytes:
    """An array of 32-bit numbers as bytes for _u32."""
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _u32(data: bytes, i: int) -> int:
    """The i-th number of _little_endian's bytes."""
    k = 4 * i
    return data[k] | data[k + 1] << 8 | data[k + 2] << 16 | data[k + 3] << 24


def _count(items: list[int]) -> dict[int, int]:
    """How many times each item occurs, in order of first occurrence."""
    if len(items) > 32:
        return Counter(items)  # C-level counting
    counts: dict[int, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def _most_counted(counts: dict[int, int], n: int) -> list[int]:
    """About the `n` keys with the highest counts, the first-counted first among ties:
    what `most_common(n)` gives, without its Python-level loop over every key. Counts are
    small (pairs shared), so a histogram finds the cut and C-level passes select."""
    if len(counts) <= n:
        return list(counts)
    keys, values = list(counts), list(counts.values())
    histogram = [0] * (max(values) + 1)
    for value in values:
        histogram[value] += 1
    taken, cut = 0, len(histogram)
    while taken < n and cut > 1:
        cut -= 1
        taken += histogram[cut]
    above = list(itertools.compress(keys, map(cut.__lt__, values)))
    at_cut = itertools.compress(keys, map(cut.__eq__, values))
    return above + list(itertools.islice(at_cut, max(0, n - len(above))))
