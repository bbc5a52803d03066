"""Near misses: the records closest to a message that no template matches exactly, as a
nearby version of a library would print it (a word added, changed or dropped).

Candidates are the templates sharing adjacent word pairs with the message (`shape
mismatch`, `and v`): such text keeps most of its template's pairs, a pair is in far fewer
templates than either of its words, and a sentence of unrelated words rarely has one.
Candidates are scored by words:

    score = sum of idf(w) over template words w the message contains
            / sum of idf(w) over all the template's words,   idf(w) = ln(1 + N / df(w))

the share of the template's (rarity-weighted) wording the message repeats: 1.0 is every
word, and a changed rare word costs more than a changed "the". Only templates of
APPROX_MIN_WORDS+ words, sharing at least two words and scoring APPROX_THRESHOLD or more
are returned. Ties of score are broken by the share of the template's word pairs the
message keeps in order (`k .. and v` against `q .. and k`). Knows nothing of holes or
pastes: templates are their literal texts, by index.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from array import array
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

APPROX_THRESHOLD = 0.5
APPROX_MIN_WORDS = 3
APPROX_CANDIDATES = 25
APPROX_READ = 2_000  # postings read per message by the nearest-record lookup
APPROX_PAIR_TEMPLATES = 500  # a word pair in more templates finds no near miss
PAIR_SLOTS = 1 << 23  # hashed slots of the word-pair index (fewer for fewer templates)

WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")  # a word, as scoring and errdex.matchindex count it
_TOKEN_WORD = re.compile(r"[A-Za-z0-9_]+")


class NearIndex:
    """Word and word-pair indexes over templates' literals, in flat arrays: a million
    templates hold some eight million words and seven million pairs."""

    def __init__(self, literals: Sequence[tuple[str, ...]]) -> None:
        self._literals = literals
        # word -> id, and each template's word ids (_template_words[_words_start[i]:..]).
        self._word_ids: dict[str, int] = {}
        df = array("I")
        self._words_start = array("I", [0])
        self._template_words = array("I")
        with_words = 0
        for lits in literals:
            words = literal_words(lits)
            with_words += bool(words)
            for word in words:
                word_id = self._word_ids.setdefault(word, len(df))
                if word_id == len(df):
                    df.append(0)
                df[word_id] += 1
                self._template_words.append(word_id)
            self._words_start.append(len(self._template_words))
        total = with_words or 1
        self._idf = array("d", (math.log(1 + total / count) for count in df))
        del df
        idf, starts, flat = self._idf.__getitem__, self._words_start, self._template_words
        self._idf_total = array(
            "d", (sum(map(idf, flat[starts[i] : starts[i + 1]])) for i in range(len(starts) - 1))
        )
        self._pair_slots, self._pair_start, self._pair_owner = self._build_pairs()

    def _build_pairs(self) -> tuple[int, array[int], array[int]]:
        """Pairs hashed into slots, the templates of slot b being
        _pair_owner[_pair_start[b]:_pair_start[b + 1]]; a collision only adds a candidate
        that scoring then drops."""
        slots = max(1024, min(PAIR_SLOTS, 8 * len(self._literals)))
        buckets, owners = array("I"), array("I")
        for i, lits in enumerate(self._literals):
            for pair in literal_pairs(lits):
                buckets.append(stable_hash(pair) % slots)
                owners.append(i)
        start = array("I", bytes(4 * (slots + 1)))
        for bucket in buckets:
            start[bucket + 1] += 1
        for b in range(slots):
            start[b + 1] += start[b]
        fill = array("I", start)
        owner = array("I", bytes(4 * len(owners)))
        for bucket, i in zip(buckets, owners, strict=True):
            owner[fill[bucket]] = i
            fill[bucket] += 1
        return slots, start, owner

    def nearest(self, message: str) -> tuple[list[tuple[int, float, str, float]], int]:
        """(template index, score, why, word-order share) of each near template, and the
        postings read to find them (at most APPROX_READ)."""
        words = set(WORD.findall(message.lower()))
        if len(words) < APPROX_MIN_WORDS:
            return [], 0
        word_ids = self._word_ids
        mine = {word_ids[w] for w in words if w in word_ids}
        # A pair in more than APPROX_PAIR_TEMPLATES templates says too little to read.
        partial: Counter[int] = Counter()
        read = 0
        start, owner, slots = self._pair_start, self._pair_owner, self._pair_slots
        for pair in literal_pairs((message,)):
            bucket = stable_hash(pair) % slots
            low, high = start[bucket], start[bucket + 1]
            if high - low > APPROX_PAIR_TEMPLATES or read + high - low > APPROX_READ:
                continue
            read += high - low
            partial.update(owner[low:high])
        idf, starts, flat = self._idf.__getitem__, self._words_start, self._template_words
        scored: list[tuple[int, float, str]] = []
        for i in _most_counted(partial, APPROX_CANDIDATES):
            template_words = flat[starts[i] : starts[i + 1]]
            shared = mine.intersection(template_words)
            if len(template_words) < APPROX_MIN_WORDS or len(shared) < 2:
                continue
            score = sum(map(idf, shared)) / self._idf_total[i]
            if score >= APPROX_THRESHOLD:
                detail = (
                    f"approximate: {len(shared)} of {len(template_words)} template words"
                    f" ({score:.2f} idf-weighted)"
                )
                scored.append((i, score, detail))
        # Word order only breaks ties of score, so it is worked out for those alone.
        ties = Counter(round(score, 9) for _, score, _ in scored)
        message_pairs = _pairs(message) if len(ties) < len(scored) else set()
        out: list[tuple[int, float, str, float]] = []
        for i, score, detail in scored:
            order = 0.0
            if ties[round(score, 9)] > 1:
                pairs = set().union(*(_pairs(lit) for lit in self._literals[i]))
                order = len(pairs & message_pairs) / len(pairs) if pairs else 0.0
            out.append((i, score, detail, order))
        return out, read


@lru_cache(maxsize=1 << 16)
def literal_words(literals: tuple[str, ...]) -> frozenset[str]:
    """The words (two characters or more, lowercased) of a template's literals."""
    return frozenset(WORD.findall(" ".join(literals).lower()))


def literal_pairs(literals: tuple[str, ...]) -> set[str]:
    """Adjacent word pairs inside each literal (not across a hole), as `a b`."""
    return {f"{a} {b}" for literal in literals for a, b in _pairs(literal)}


def _pairs(text: str) -> set[tuple[str, str]]:
    """Adjacent word pairs, one-letter words included (`k and`, `and v`)."""
    tokens = [t.lower() for t in _TOKEN_WORD.findall(text)]
    return set(itertools.pairwise(tokens))


def _most_counted(counts: Counter[int], n: int) -> list[int]:
    """About the `n` keys with the highest counts, the first-counted first among ties:
    what `most_common(n)` gives, without its Python-level loop over every key. Counts are
    small (pairs shared), so a histogram finds the cut and C-level passes select."""
    if len(counts) <= n:
        return list(counts)
    keys, values = list(counts), list(counts.values())
    histogram = Counter(values)
    taken, cut = 0, 0
    for count in sorted(histogram, reverse=True):
        cut = count
        taken += histogram[count]
        if taken >= n:
            break
    above = list(itertools.compress(keys, map(cut.__lt__, values)))
    at_cut = itertools.compress(keys, map(cut.__eq__, values))
    return above + list(itertools.islice(at_cut, max(0, n - len(above))))


def stable_hash(text: str) -> int:
    """The same in every process (str's hash() is salted per process), so what is
    indexed where, and so what a benchmark measures, doesn't change from run to run."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))
