"""A built matcher as bytes, and back without building it again: what lets `serve` and
`explain --batch` start in about a second instead of compiling every template.

The bytes are a format of our own, parsed here and nowhere else (never pickle: a store may
be shared, and its bytes are data, not code):

    MAGIC, FORMAT (u32), a BLAKE2b digest of the body (32 bytes), then the body:
    header length (u32), header (JSON: the store's state the matcher was built at, the
    entry count, the names and sizes of the sections), then each section's bytes.

A section is an array of fixed-size numbers (little-endian), a UTF-8 text, or a JSON
document; the entries are JSON in zlib-compressed chunks of ENTRY_CHUNK, with the
chunks' offsets. Reading checks the magic, the format, the digest (a truncated or
corrupt blob never gets as far as being parsed), the state (a matcher of other snapshots
is stale) and that every number that indexes something is in range; anything else is a
SavedMatcherError, one line, never a traceback.

What a restored matcher does lazily: an entry is decoded (its chunk decompressed) and its
template compiled when matching first reads it, so a start decodes none of them; the
site-line map is two sorted arrays searched by bisection. What is built again at every
start: the anchor automaton from the anchors' saved text (the automaton library can't be
saved), the small automata of crowded anchors, and the C lookup's token table (built
from the saved tokens: C never reads stored bytes as a table).
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, Final, overload

from errdex.errors import ErrdexError
from errdex.match.compiled import Compiled, compile_entry
from errdex.match.index import POSTING, AnchorParts
from errdex.match.matcher import Matcher, SavedParts
from errdex.match.near import NATIVE, NearParts
from errdex.match.variants import NameParts
from errdex.models import MatchEntry, Placeholder, Template

MAGIC: Final = b"errdex-matcher\x00\x01"
FORMAT: Final = 2  # bumped whenever what is saved, or how the matcher reads it, changes
ENTRY_CHUNK: Final = 64  # entries per compressed chunk: one decompression per first read
_DIGEST: Final = 32
_PREFIX: Final = len(MAGIC) + 4 + _DIGEST
_ITEM_SIZES: Final = {"H": 2, "I": 4, "Q": 8, "d": 8}


class SavedMatcherError(ErrdexError):
    """Saved matcher bytes that can't be used: `stale` when they are sound but of other
    snapshots (rebuilt without a word), else unreadable (rebuilt with a note)."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


def dump_matcher(matcher: Matcher, state: str) -> bytes:
    """`matcher` as bytes, tagged with the store `state` it was built at."""
    anchors, names, near = matcher.parts()
    sections: list[tuple[str, str, bytes]] = []

    def numbers(name: str, values: array[int] | array[float]) -> None:
        if values.itemsize != _ITEM_SIZES[values.typecode]:
            values = array(values.typecode, values)  # not this machine's size: can't be
        sections.append((name, values.typecode, _little(values)))

    def raw(name: str, data: bytes) -> None:
        sections.append((name, "b", data))

    numbers("anchor.key_length", anchors.key_length)
    numbers("anchor.post_start", anchors.post_start)
    numbers("anchor.postings", anchors.postings)
    raw("anchor.check_words", "\n".join(anchors.check_words).encode("utf-8", "surrogatepass"))
    raw("anchor.keys", anchors.keys.encode("utf-8", "surrogatepass"))
    numbers("anchor.crowded", anchors.crowded)
    raw("names.maps", json.dumps([names.variants, names.typed]).encode())
    numbers("names.line_keys", names.line_keys)
    numbers("names.line_entries", names.line_entries)
    raw("near.tokens", near.tokens.encode())
    numbers("near.values", near.values)
    numbers("near.idf", near.idf)
    numbers("near.idf_total", near.idf_total)
    raw("near.pair_start", near.pair_start)
    numbers("near.pair_fingerprint", near.pair_fingerprint)
    numbers("near.pair_owner", near.pair_owner)
    raw("near.words_start", near.words_start)
    raw("near.template_words", near.template_words)
    raw("near.pair_count", near.pair_count)
    chunks = [zlib.compress(json.dumps([_entry_row(e) for e in matcher.entries[i:i + ENTRY_CHUNK]],
                                       ensure_ascii=False).encode("utf-8", "surrogatepass"))
              for i in range(0, len(matcher.entries), ENTRY_CHUNK)]
    offsets = array("Q", [0])
    for chunk in chunks:
        offsets.append(offsets[-1] + len(chunk))
    numbers("entries.offsets", offsets)
    raw("entries.chunks", b"".join(chunks))
    header = json.dumps({
        "state": state, "entries": len(matcher.entries), "slots": near.slots,
        "sections": [[name, kind, len(data)] for name, kind, data in sections],
    }).encode()
    body = b"".join([struct.pack("<I", len(header)), header, *(data for _, _, data in sections)])
    return MAGIC + struct.pack("<I", FORMAT) + _digest(body) + body


def load_saved(data: bytes, state: str) -> Matcher:
    """The matcher saved in `data`, if it was saved at `state`; SavedMatcherError if not,
    or if the bytes are not sound."""
    view = memoryview(data)
    if len(data) < _PREFIX + 4 or bytes(view[: len(MAGIC)]) != MAGIC:
        raise SavedMatcherError("the saved matcher is not one errdex wrote")
    (version,) = struct.unpack_from("<I", data, len(MAGIC))
    if version != FORMAT:
        raise SavedMatcherError(f"the saved matcher is of format {version}, not {FORMAT}")
    body = view[_PREFIX:]
    if _digest(body) != bytes(view[_PREFIX - _DIGEST : _PREFIX]):
        raise SavedMatcherError("the saved matcher is truncated or corrupt")
    try:
        return _restore(body, state)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, zlib.error) as exc:
        raise SavedMatcherError(f"the saved matcher cannot be read ({exc})") from None


def _restore(body: memoryview, state: str) -> Matcher:
    (size,) = struct.unpack_from("<I", body, 0)
    header = json.loads(bytes(body[4 : 4 + size]))
    if header["state"] != state:
        raise SavedMatcherError("the saved matcher is of other snapshots", stale=True)
    count = _count(header["entries"])
    at = 4 + size
    parts: dict[str, Any] = {}
    for name, kind, length in header["sections"]:
        piece = body[at : at + length]
        if len(piece) != length:
            raise ValueError(f"section {name} is cut short")
        at += length
        parts[name] = bytes(piece) if kind == "b" else _numbers(kind, piece)
    if at != len(body):
        raise ValueError("bytes after the last section")
    entries = LazyEntries(parts["entries.chunks"], parts["entries.offsets"], count)
    compiled = LazyCompiled(entries)
    anchors = _anchors(parts, count)
    variants, typed = json.loads(parts["names.maps"])
    names = NameParts({str(k): [_index(i, count) for i in v] for k, v in variants.items()},
                      {str(k): [_index(i, count) for i in v] for k, v in typed.items()},
                      parts["names.line_keys"], parts["names.line_entries"])
    _in_range(names.line_entries, count)
    if len(names.line_keys) != len(names.line_entries):
        raise ValueError("site lines and their entries differ in number")
    near = _near(parts, count, int(header["slots"]))
    return Matcher((), SavedParts(entries, compiled, anchors, names, near))


def _anchors(parts: dict[str, Any], count: int) -> AnchorParts:
    key_length, post_start, postings = (parts["anchor.key_length"], parts["anchor.post_start"],
                                        parts["anchor.postings"])
    keys = parts["anchor.keys"].decode("utf-8", "surrogatepass")
    words = parts["anchor.check_words"].decode("utf-8", "surrogatepass")
    check_words = tuple(words.split("\n")) if words else ()
    crowded = parts["anchor.crowded"]
    if key_length.typecode != "H" or post_start.typecode != "I" or postings.typecode != "I":
        raise ValueError("anchor arrays of the wrong kind")
    if len(post_start) != len(key_length) + 1 or sum(key_length) != len(keys):
        raise ValueError("anchors and their postings differ in number")
    if len(postings) % POSTING or post_start[-1] != len(postings) // POSTING or (
            post_start and max(post_start) > post_start[-1]):
        raise ValueError("postings out of range")
    _in_range(postings[0::POSTING], count)
    _in_range(postings[3::POSTING], len(check_words) + 1)
    _in_range(crowded, len(key_length))
    return AnchorParts(key_length, post_start, postings, check_words, keys, crowded)


def _near(parts: dict[str, Any], count: int, slots: int) -> NearParts:
    tokens = parts["near.tokens"].decode()
    values, idf, idf_total = parts["near.values"], parts["near.idf"], parts["near.idf_total"]
    owner, fingerprint = parts["near.pair_owner"], parts["near.pair_fingerprint"]
    pair_start, words_start = parts["near.pair_start"], parts["near.words_start"]
    template_words, pair_count = parts["near.template_words"], parts["near.pair_count"]
    if len(tokens.split("\n") if tokens else ()) != len(values):
        raise ValueError("near-miss tokens and their ids differ in number")
    if not 0 < slots < 1 << 31 or len(pair_start) != 4 * (slots + 1):
        raise ValueError("near-miss slots out of range")
    if len(words_start) != 4 * (count + 1) or len(idf_total) != count or len(pair_count) != count:
        raise ValueError("near-miss tables are not of every entry")
    if len(owner) != len(fingerprint):
        raise ValueError("near-miss postings and their fingerprints differ in number")
    if values and max(values) >> 1 >= len(idf):
        raise ValueError("near-miss token ids out of range")
    if not NATIVE:  # the C lookup checks each number it reads (errdex/match/_nearc.c)
        if max(_numbers("I", memoryview(pair_start))) > len(owner):
            raise ValueError("near-miss postings out of range")
        _in_range(owner, count)
        _in_range(_numbers("I", memoryview(template_words)), len(idf))
        if max(_numbers("I", memoryview(words_start))) > len(template_words) // 4:
            raise ValueError("near-miss words out of range")
    return NearParts(slots, tokens, values, idf, idf_total, pair_start, fingerprint, owner,
                     words_start, template_words, pair_count)


class LazyEntries(Sequence[MatchEntry]):
    """A restored matcher's entries: each chunk decoded when one of its entries is first
    read, and kept."""

    def __init__(self, chunks: bytes, offsets: array[int], count: int) -> None:
        if len(offsets) != (count + ENTRY_CHUNK - 1) // ENTRY_CHUNK + 1 or (
                offsets and offsets[-1] != len(chunks)):
            raise ValueError("entry chunks out of range")
        self._chunks, self._offsets, self._count = chunks, offsets, count
        self._decoded: list[list[MatchEntry] | None] = [None] * (len(offsets) - 1)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> MatchEntry: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[MatchEntry]: ...

    def __getitem__(self, i: int | slice) -> MatchEntry | Sequence[MatchEntry]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("entry index out of range")
        chunk = self._decoded[i // ENTRY_CHUNK]
        if chunk is None:
            chunk = self._decoded[i // ENTRY_CHUNK] = self._decode(i // ENTRY_CHUNK)
        return chunk[i % ENTRY_CHUNK]

    def __iter__(self) -> Iterator[MatchEntry]:
        for i in range(self._count):
            yield self[i]

    def _decode(self, k: int) -> list[MatchEntry]:
        try:
            chunk = self._chunks[self._offsets[k] : self._offsets[k + 1]]
            rows = json.loads(zlib.decompress(chunk))
            entries = [_entry_of(row) for row in rows]
        except (ValueError, TypeError, IndexError, zlib.error) as exc:
            # Past the digest, only a writer that meant it makes this: a clear error.
            raise SavedMatcherError(f"the saved matcher's entries cannot be read ({exc})"
                                    ) from None
        expected = min(ENTRY_CHUNK, self._count - k * ENTRY_CHUNK)
        if len(entries) != expected:
            raise SavedMatcherError("the saved matcher's entries are not all there")
        return entries


class LazyCompiled(Sequence[Compiled]):
    """A restored matcher's compiled templates, each compiled when first read."""

    def __init__(self, entries: LazyEntries) -> None:
        self._entries = entries
        self._compiled: list[Compiled | None] = [None] * len(entries)
        self._interned: dict[Any, Any] = {}

    def __len__(self) -> int:
        return len(self._compiled)

    @overload
    def __getitem__(self, i: int) -> Compiled: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Compiled]: ...

    def __getitem__(self, i: int | slice) -> Compiled | Sequence[Compiled]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        found = self._compiled[i]
        if found is None:
            found = self._compiled[i] = compile_entry(self._entries[i], self._interned)
        return found

    def __iter__(self) -> Iterator[Compiled]:
        for i in range(len(self)):
            yield self[i]


def _entry_row(entry: MatchEntry) -> list[Any]:
    t = entry.template
    return [entry.record_id, entry.repo, entry.exception, t.message, list(t.literals),
            [[p.name, p.expression, p.spec] for p in t.placeholders],
            [[path, line] for path, line in entry.sites], entry.variant,
            list(entry.variant_fields), entry.language, entry.version, entry.kind]


def _entry_of(row: list[Any]) -> MatchEntry:
    (record_id, repo, exception, message, literals, holes, sites, variant, fields, language,
     version, kind) = row
    template = Template(str(message), tuple(str(x) for x in literals),
                        tuple(Placeholder(str(n), str(e), str(s)) for n, e, s in holes))
    return MatchEntry(str(record_id), str(repo), _text(exception), template,
                      tuple((str(p), int(line)) for p, line in sites), _text(variant),
                      tuple(str(f) for f in fields), str(language), _text(version),
                      str(kind))


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _numbers(kind: str, data: memoryview) -> array[Any]:
    if kind not in _ITEM_SIZES:
        raise ValueError(f"unknown array kind {kind!r}")
    values = array(kind)
    if values.itemsize != _ITEM_SIZES[kind] or len(data) % values.itemsize:
        raise ValueError(f"an array of {kind!r} of {len(data)} bytes")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _little(values: array[Any]) -> bytes:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _in_range(values: array[int], limit: int) -> None:
    if values and max(values) >= limit:
        raise ValueError("an index out of range")


def _index(value: object, count: int) -> int:
    if not isinstance(value, int) or not 0 <= value < count:
        raise ValueError("an entry index out of range")
    return value


def _count(value: object) -> int:
    if not isinstance(value, int) or not 0 <= value < 1 << 31:
        raise ValueError("an entry count out of range")
    return value


def _digest(body: bytes | memoryview) -> bytes:
    return hashlib.blake2b(body, digest_size=_DIGEST).digest()
