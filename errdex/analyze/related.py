"""Related errors of every record: those raised in the same function, then in the same
file (nearest lines first), then the records whose messages read most alike.

Text likeness is TF-IDF cosine over the words of the messages, scored only against
records that share one of a record's rarer words (an inverted index), so the cost grows
with the number of records, not with its square. Nothing here reads files.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Sequence

from errdex.models import Record, Related

_WORD = re.compile(r"[a-z][a-z0-9_]+")
_STOPWORD_TEXT = """a an and are as at be but by can cannot for from got has have if in into
is it its must no not of on or only should than that the this to was were when with"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_RARE_WORDS = 8  # words per record used to find text neighbours (the rarest ones)
_MAX_POSTINGS = 200  # a word shared by more records than this says little; don't scan it
# A record's first sites stand for it here: 8,000 raises of one message in one file must
# not make every neighbour look at all 8,000 (that was quadratic: 30 s for one file).
SITES_PER_RECORD = 8
MAX_SCAN = 64  # entries one nearest-lines walk may look at before it gives up


def _words(record: Record) -> frozenset[str]:
    text = " ".join(record.template.literals).lower()
    return frozenset(w for w in _WORD.findall(text) if w not in _STOPWORDS)


def _nearest(
    entries: list[tuple[int, int]], line: int, skip: set[int], want: int,
    work: Counter[str] | None = None,
) -> list[int]:  # fmt: skip
    """Indices from `entries` (sorted (line, index) pairs) closest to `line`, outwards,
    looking at no more than MAX_SCAN entries."""
    out: list[int] = []
    right = bisect_left(entries, (line, -1))
    left = right - 1
    scanned = 0
    while len(out) < want and (left >= 0 or right < len(entries)) and scanned < MAX_SCAN:
        scanned += 1
        take_left = right >= len(entries) or (
            left >= 0 and line - entries[left][0] <= entries[right][0] - line
        )
        index = entries[left][1] if take_left else entries[right][1]
        if take_left:
            left -= 1
        else:
            right += 1
        if index not in skip:
            skip.add(index)
            out.append(index)
    if work is not None:
        work["entries scanned"] += scanned
    return out


class _TextIndex:
    def __init__(self, records: Sequence[Record]) -> None:
        self.words = [_words(r) for r in records]
        df = Counter(w for words in self.words for w in words)
        n = max(len(records), 1)
        self.idf = {w: math.log((1 + n) / (1 + c)) + 1.0 for w, c in df.items()}
        self.norm = [math.sqrt(math.fsum(self.idf[w] ** 2 for w in ws)) or 1.0 for ws in self.words]
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, words in enumerate(self.words):
            for w in words:
                if 1 < df[w] <= _MAX_POSTINGS:
                    self.postings[w].append(i)

    def nearest(
        self, i: int, skip: set[int], want: int, work: Counter[str] | None = None
    ) -> list[int]:
        # Ties in rarity broken by the word, not by the set's order (the hash seed's).
        rare = sorted((w for w in self.words[i] if w in self.postings),
                      key=lambda w: (-self.idf[w], w))[:_RARE_WORDS]  # fmt: skip
        candidates: set[int] = set()
        for w in rare:
            candidates.update(self.postings[w])
        candidates -= skip
        mine = self.words[i]
        scored = []
        for j in candidates:
            shared = mine & self.words[j]
            # fsum: exact, so a sum over a set is the same in every process (a float
            # sum in hash order broke ties between equal scores differently).
            dot = math.fsum(self.idf[w] ** 2 for w in shared)
            scored.append((dot / (self.norm[i] * self.norm[j]), -j))
        if work is not None:
            work["texts scored"] += len(scored)
        return [-j for _, j in heapq.nlargest(want, scored)]


def find_related(
    records: Sequence[Record], limit: int = 5, work: Counter[str] | None = None
) -> dict[str, tuple[Related, ...]]:
    """For every record id, up to `limit` related records: same function (reason
    "same function: X"), same file ("same file: path"), then similar text ("similar
    message"). A record is never related to itself. The work is linear in the records:
    each looks from its first SITES_PER_RECORD sites and scans at most MAX_SCAN entries
    per look; `work`, if given, counts the entries scanned and the texts scored."""
    by_function: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    by_file: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i, record in enumerate(records):
        for site in record.sites[:SITES_PER_RECORD]:
            if site.function:
                by_function[(site.path, site.function)].append((site.line, i))
            by_file[site.path].append((site.line, i))
    for group in (*by_function.values(), *by_file.values()):
        group.sort()
    text: _TextIndex | None = None
    out: dict[str, tuple[Related, ...]] = {}
    for i, record in enumerate(records):
        skip = {i}
        found: list[Related] = []
        sites = record.sites[:SITES_PER_RECORD]
        for site in sites:
            if site.function:
                for j in _nearest(by_function[(site.path, site.function)], site.line, skip,
                                  limit - len(found), work):  # fmt: skip
                    found.append(_related(records[j], f"same function: {site.function}"))
        for site in sites:
            for j in _nearest(by_file[site.path], site.line, skip, limit - len(found), work):
                found.append(_related(records[j], f"same file: {site.path}"))
        if len(found) < limit:
            text = text or _TextIndex(records)
            for j in text.nearest(i, skip, limit - len(found), work):
                found.append(_related(records[j], "similar message"))
        out[record.id] = tuple(r for r in found if r.id != record.id)
    return out


def _related(record: Record, reason: str) -> Related:
    return Related(id=record.id, message=record.template.message, reason=reason)
