"""Scanning a whole log: every known error in a stream of any size, with line numbers,
counts per record and first/last seen, in bounded memory.

Why it is fast: an Aho-Corasick automaton in Rust finds the matcher's scan keys (the
templates' anchors, Rust variant names opening a Debug value) in megabytes of raw bytes
at a time; only the lines holding one are decoded; `Matcher.plausible_hits` turns away
most of those (literals out of order, a whole-message template inside a longer message)
and only the rest go through the full matcher, with a bounded cache for lines that
repeat. Why memory stays bounded: the stream is read in blocks of `BLOCK` bytes and
searched in slices of `SLICE`, a line longer than `MAX_LINE` is matched in `MAX_LINE`
pieces, and each record keeps a count and at most `KEEP_LINES` line numbers.

What it finds: every line that `Matcher.match_with_stats(line, exact_only=True)` matches
exactly (tests/test_scan.py checks it line by line), except templates whose anchor is
shorter than `MIN_SCAN_KEY` characters (`bad {}`, `{}: {}`): in a log those would claim
any line with a colon. JSON-lines logs (`{"msg": ...}`) are matched on their message
fields. A scan reports exact matches only: the nearest-record guess and the match by
exception type alone that `explain` offers would flood a log's report with noise. This
module prints nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import ahocorasick_rs

from errdex.match.matcher import Matcher
from errdex.match.prefilter import SCAN_ASK

BLOCK = 1 << 22  # bytes read at a time
SLICE = 1 << 20  # bytes of whole lines searched at a time
MAX_LINE = 1 << 20  # a longer line is matched in pieces of this many characters
KEEP_LINES = 20  # line numbers kept per record
CACHE_LINES = 20_000  # distinct candidate lines whose result is remembered
MESSAGE_FIELDS = ("message", "msg", "error", "err", "exception", "exc_info", "stack_trace")
TIME_FIELDS = ("timestamp", "time", "ts", "@timestamp", "asctime", "date")
_TIMESTAMP = re.compile(
    r"\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)"
)
_JSON_START = re.compile(rb"[ \t]*\{")  # at a line's start: a JSON line (maybe)
_JSON_AFTER_NEWLINE = re.compile(rb"\n[ \t]*\{")  # 7x faster than a multiline `^`
# A Python traceback frame: the line after it quotes the source line that raised, which
# holds the message's literal text (`raise BadZipFile("File is not a zip file")`) but is
# no occurrence of the error; the exception line below it is.
_FRAME_LINE = re.compile(rb'[ \t]*File "[^"\n]*", line \d+')


class ByteStream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


@dataclass
class RecordHits:
    """One record's appearances in the log."""

    record_id: str
    count: int = 0
    first_line: int = 0
    last_line: int = 0
    first_seen: str | None = None  # the timestamp on the first line, if it has one
    last_seen: str | None = None
    lines: list[int] = field(default_factory=list)  # the first KEEP_LINES line numbers
    values: tuple[tuple[str, str], ...] = ()  # bound on the first line
    example: str = ""  # the first line (its first 300 characters)


@dataclass
class ScanStats:
    """The work a scan did: tests bound it, benchmarks report it."""

    bytes: int = 0
    lines: int = 0
    candidate_lines: int = 0  # lines with an anchor (or a JSON message) that were matched
    matcher_calls: int = 0  # candidate lines not answered from the cache
    matcher_work: int = 0  # sum of MatchStats.work over those calls
    json_lines: int = 0  # JSON lines parsed: those holding a scan key (or an escape)
    long_lines: int = 0  # lines over MAX_LINE characters, matched in pieces


@dataclass
class ScanReport:
    records: dict[str, RecordHits]
    stats: ScanStats

    def ordered(self) -> list[RecordHits]:
        """Most frequent first, then by first appearance."""
        return sorted(self.records.values(), key=lambda r: (-r.count, r.first_line))


class _ScanKeys:
    """The matcher's scan keys (`Matcher.scan_keys`) in one automaton over UTF-8 bytes.
    It is ahocorasick_rs's (Rust): over megabytes of log it runs several times faster
    than the matcher's own, so the bytes of the many lines without a key are never
    decoded nor looked at in Python. Built once per matcher, on its first scan."""

    def __init__(self, matcher: Matcher) -> None:
        tags: dict[bytes, int] = {}
        for key, tag in matcher.scan_keys():
            encoded = key.encode()
            tags[encoded] = tag if tags.get(encoded, tag) == tag else SCAN_ASK
        self.patterns = list(tags)
        self.tags = list(tags.values())
        self._automaton = ahocorasick_rs.BytesAhoCorasick(self.patterns) if tags else None

    def hits(self, data: bytes) -> list[tuple[int, int, int]]:
        """(pattern index, start, end) of every key in `data`, overlapping ones too, in
        order of their end."""
        if self._automaton is None:
            return []
        # Typed here: the compiled build type-checks without the library's stubs.
        found: list[tuple[int, int, int]] = self._automaton.find_matches_as_indexes(
            data, overlapping=True)
        return found

    def tags_in(self, text: str) -> list[int]:
        return [self.tags[i] for i, _, _ in self.hits(text.encode())]


def _scan_keys(matcher: Matcher) -> _ScanKeys:
    keys = matcher.derived.get("scan_keys")
    if not isinstance(keys, _ScanKeys):
        keys = matcher.derived["scan_keys"] = _ScanKeys(matcher)
    return keys


class Scanner:
    """Feed it text (or bytes) in order; it keeps the report. One per stream."""

    def __init__(self, matcher: Matcher) -> None:
        self.matcher = matcher
        self._keys = _scan_keys(matcher)
        self.report = ScanReport({}, ScanStats())
        self._cache: dict[str, tuple[str, tuple[tuple[str, str], ...]] | None] = {}
        self._pending = b""
        self._in_long = False  # the unfinished line already had a piece matched
        self._last_line = b""  # the last line of the previous slice (is it a frame?)

    def feed_bytes(self, data: bytes) -> None:
        """Any amount of bytes; lines may be split across calls."""
        self.report.stats.bytes += len(data)
        buffer = self._pending + data if self._pending else data
        cut = buffer.rfind(b"\n")
        if cut < 0:
            self._pending = buffer
            if len(buffer) > MAX_LINE:
                self._long_piece()
            return
        self._pending = buffer[cut + 1 :]
        self._in_long = False
        self._lines(buffer[: cut + 1])
        if len(self._pending) > MAX_LINE:
            self._long_piece()

    def finish(self) -> ScanReport:
        if self._pending:
            self._lines(self._pending + b"\n")
            self._pending = b""
        return self.report

    def _long_piece(self) -> None:
        """Match the first MAX_LINE bytes of an unfinished line, keep the rest."""
        piece, self._pending = self._pending[:MAX_LINE], self._pending[MAX_LINE:]
        if not self._in_long:
            self.report.stats.long_lines += 1
            self._in_long = True
        self._lines(piece + b"\n", advance=False)

    def _lines(self, block: bytes, advance: bool = True) -> None:
        """Complete lines, each ending in a newline, in slices of about SLICE bytes:
        the automaton's hits in one slice are held at once."""
        number = self.report.stats.lines + 1  # of the first line in the slice
        start = 0
        while start < len(block):
            end = block.rfind(b"\n", start, start + SLICE) + 1
            if end <= start:  # one line longer than SLICE
                end = block.find(b"\n", start + SLICE) + 1
            number += self._slice(block[start:end], number)
            start = end
        if advance:
            self.report.stats.lines = number - 1

    def _slice(self, block: bytes, base: int) -> int:
        """Lines `base`.. of the log; returns how many. The automaton finds every scan
        key in them at once (hits come in order of their end); only the lines holding
        one, and JSON lines, are decoded and looked at in Python."""
        candidates: list[tuple[int, int, list[int]]] = []  # (start, end, tags) per line
        line_end = -1
        key_tags = self._keys.tags
        for index, start, _ in self._keys.hits(block):
            if start > line_end:
                line_start = block.rfind(b"\n", 0, start) + 1
                line_end = block.find(b"\n", start)
                candidates.append((line_start, line_end, [key_tags[index]]))
            else:
                candidates[-1][2].append(key_tags[index])
        json_starts: set[int] = set()
        if b"{" in block:
            json_starts = {m.start() + 1 for m in _JSON_AFTER_NEWLINE.finditer(block)}
            if _JSON_START.match(block):
                json_starts.add(0)
            if json_starts:
                candidates = self._with_json(block, candidates, json_starts)
        counted, counted_at = 0, 0  # newlines before `counted_at`
        for start, end, tags in candidates:
            counted += block.count(b"\n", counted_at, start)
            counted_at = start
            if self._quotes_source(block, start):
                continue
            line = block[start:end].decode("utf-8", "replace")
            if start in json_starts:
                self._json_line(line, base + counted, tags)
            else:
                self._match_line(line, base + counted, tags)
        self._last_line = block[block.rfind(b"\n", 0, len(block) - 1) + 1 :]
        return block.count(b"\n")

    def _quotes_source(self, block: bytes, start: int) -> bool:
        """Whether the line at `start` follows a traceback frame line (so it is the
        source line the frame quotes)."""
        if start == 0:
            previous = self._last_line
        else:
            previous = block[block.rfind(b"\n", 0, start - 1) + 1 : start]
        return previous[:1] in (b" ", b"\t", b"F") and _FRAME_LINE.match(previous) is not None

    @staticmethod
    def _with_json(
        block: bytes, candidates: list[tuple[int, int, list[int]]], json_starts: set[int]
    ) -> list[tuple[int, int, list[int]]]:
        """The candidate lines plus the JSON lines holding a backslash: an escape in a
        JSON string may hide a key (`\\u00e9`, `\\"`), so their message is searched again."""
        have = {c[0] for c in candidates}
        more = []
        for start in json_starts - have:
            end = block.find(b"\n", start)
            if block.find(b"\\", start, end) >= 0:
                more.append((start, end, [SCAN_ASK]))
        return sorted(candidates + more) if more else candidates

    def _json_line(self, line: str, number: int, tags: list[int]) -> None:
        """`tags`: the keys in the raw line; its message, if it has no escapes, is a
        part of it and holds no others."""
        try:
            item = json.loads(line)
        except ValueError:
            self._match_line(line, number, tags)  # not JSON after all: a plain line
            return
        if not isinstance(item, dict):
            return
        self.report.stats.json_lines += 1
        message = "\n".join([str(item[k]) for k in MESSAGE_FIELDS
                             if k in item and isinstance(item[k], (str, int))])
        if message and "\\" in line:
            tags = self._keys.tags_in(message)
        if not message or not tags:
            return
        stamp = next((str(item[k]) for k in TIME_FIELDS if item.get(k) is not None), None)
        self._match_line(message, number, tags, stamp)

    def _match_line(
        self, line: str, number: int, tags: list[int], stamp: str | None = None
    ) -> None:
        stats = self.report.stats
        stats.candidate_lines += 1
        if line in self._cache:
            result = self._cache[line]
        else:
            result = None
            if self.matcher.plausible_hits(line, tags):
                stats.matcher_calls += 1
                matches, work = self.matcher.match_with_stats(line, 1, exact_only=True)
                stats.matcher_work += work.work
                if matches and matches[0].exact:
                    result = (matches[0].record_id, matches[0].values)
            if len(self._cache) >= CACHE_LINES:
                self._cache.clear()
            self._cache[line] = result
        if result is None:
            return
        record_id, values = result
        hits = self.report.records.get(record_id)
        if stamp is None:
            m = _TIMESTAMP.match(line)
            stamp = m.group(1) if m else None
        if hits is None:
            hits = RecordHits(record_id, first_line=number, first_seen=stamp, values=values,
                              example=line[:300])
            self.report.records[record_id] = hits
        hits.count += 1
        hits.last_line = number
        hits.last_seen = stamp or hits.last_seen
        if len(hits.lines) < KEEP_LINES:
            hits.lines.append(number)


def scan_stream(matcher: Matcher, stream: ByteStream, block: int = BLOCK) -> ScanReport:
    """Scan a binary stream to its end."""
    scanner = Scanner(matcher)
    while True:
        data = stream.read(block)
        if not data:
            break
        scanner.feed_bytes(data)
    return scanner.finish()


def report_to_dict(report: ScanReport, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The `scan --json` shape; `records` maps id -> the record's JSON (message, repo)."""
    stats = report.stats
    return {
        "bytes": stats.bytes,
        "lines": stats.lines,
        "matched_lines": sum(r.count for r in report.records.values()),
        "records": [
            {
                "id": hits.record_id,
                "count": hits.count,
                "first_line": hits.first_line,
                "last_line": hits.last_line,
                "first_seen": hits.first_seen,
                "last_seen": hits.last_seen,
                "lines": hits.lines,
                "values": dict(hits.values),
                "example": hits.example,
                "message": records.get(hits.record_id, {}).get("message"),
                "repo": records.get(hits.record_id, {}).get("repo"),
                "exception": records.get(hits.record_id, {}).get("exception"),
            }
            for hits in report.ordered()
        ],
        "stats": {
            "candidate_lines": stats.candidate_lines,
            "matcher_calls": stats.matcher_calls,
            "json_lines": stats.json_lines,
            "long_lines": stats.long_lines,
        },
    }


def report_text(data: dict[str, Any]) -> str:
    """A plain listing of `report_to_dict`'s shape, most frequent record first."""
    out = [f"{data['lines']:,} lines, {data['matched_lines']:,} with a known error, "
           f"{len(data['records'])} distinct"]
    for item in data["records"]:
        seen = ""
        if item["first_seen"]:
            seen = f", {item['first_seen']} .. {item['last_seen']}"
        out.append(f"{item['count']:>8,}  {item['id']}  {item['message']}")
        out.append(f"          lines {item['first_line']}..{item['last_line']}{seen}"
                   f"  (errdex show {item['id']})")
    return "\n".join(out)
