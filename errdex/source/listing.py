"""Reading a file that lists what to index (a `--from` list, a lock file): whole, within a
size bound, or one clear line of bad input."""

from __future__ import annotations

from errdex.errors import UsageError


def read_listing(path: str, limit: int, what: str) -> bytes:
    """The bytes of `path` (`what` it should be, for the error: "a Cargo.lock"); a file
    that can't be read or is over `limit` bytes is a UsageError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise UsageError(f"{path} is larger than {limit} bytes: not {what}")
    return data
