"""Reading pasted text: valid Unicode out of any bytes, bounded reads of a stream, and
the lines of a batch. Explaining it is `errdex.service`'s (`Explainer.explain`).

Pasted text is untrusted: it may be any bytes (a log with a stray Latin-1 byte, argv that
is not UTF-8 and so reaches Python as surrogate escapes), of any size, and a batch may
hold any line. Text is decoded with replacement characters rather than refused, reading
stops at the size limit instead of holding a whole stream, and a bad batch line is
answered on its own line without stopping the batch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from errdex.errors import UsageError

MAX_INPUT_CHARS = 50_000_000
# Bytes read from a stream for one text (the CLI's --max-input-bytes): a longer one is
# refused unread. UTF-8 never has fewer bytes than characters, so a text within it is
# within MAX_INPUT_CHARS too. A batch line longer than this is answered with an error
# and skipped in pieces of READ_CHUNK bytes, never held whole.
MAX_INPUT_BYTES = MAX_INPUT_CHARS
READ_CHUNK = 1 << 20
# Lone surrogates that are no surrogate escape of a byte (those are U+DC80..U+DCFF).
_NOT_AN_ESCAPE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def valid_text(text: str) -> str:
    """`text` as valid Unicode: the surrogate escapes Python makes of argv or a stream
    that is not UTF-8 become the bytes they stand for, decoded with U+FFFD for what is
    not UTF-8; any other lone surrogate becomes U+FFFD too. Without this, printing or
    storing such text fails with UnicodeEncodeError."""
    if text.isascii():
        return text
    text = _NOT_AN_ESCAPE.sub("\ufffd", text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def too_large(limit: int) -> UsageError:
    return UsageError(f"input too large: over {limit:,} bytes (for a whole log, use "
                      "`errdex scan`)")


def read_input(stream: BinaryIO, limit: int = MAX_INPUT_BYTES) -> str:
    """All of `stream` as text, reading at most `limit` + 1 bytes: a longer input is
    refused with a UsageError before the rest is read."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise too_large(limit)
    return data.decode("utf-8", "replace")


@dataclass(frozen=True)
class BatchLine:
    """One line of a batch: its text, or why it has none (`error`)."""

    number: int
    text: str | None = None
    error: str | None = None


def batch_lines(stream: BinaryIO, limit: int = MAX_INPUT_BYTES) -> Iterator[BatchLine]:
    """The non-blank lines of a JSON-lines batch, each `{"text": ...}`, in order. A line
    that is not such an object, is nested too deep for the JSON parser, or is longer
    than `limit` bytes comes back with an `error` instead of ending the batch; bytes that
    are not UTF-8 are decoded with replacement, as for `explain -`."""
    number = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            _skip_line(stream)
            yield BatchLine(number, error=f"line too large: over {limit:,} bytes")
            continue
        if not raw.strip():
            continue
        yield _batch_line(number, raw)


def _skip_line(stream: BinaryIO) -> None:
    """Read past the rest of an over-long line, a chunk at a time."""
    while True:
        piece = stream.readline(READ_CHUNK)
        if not piece or piece.endswith(b"\n"):
            return


def _batch_line(number: int, raw: bytes) -> BatchLine:
    try:
        item = json.loads(raw.decode("utf-8", "replace"))
    except RecursionError:
        return BatchLine(number, error="line is nested too deeply to read")
    except ValueError as exc:
        return BatchLine(number, error=f"not JSON: {exc}")
    text = item.get("text") if isinstance(item, dict) else None
    if not isinstance(text, str):
        return BatchLine(number, error='each line must be an object with a string "text"')
    return BatchLine(number, text=text)
