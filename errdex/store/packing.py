"""A stored record's JSON, packed: zlib with a preset dictionary of the words every page
shares (the contract's keys, the sections' wording), so a record costs a fifth of its
text (candle: 10.2 KB of JSON, about 1.8 KB packed).

The dictionary (`records.zdict`, 32 KB, made once from errdex's own golden pages) is
frozen: a packed value starts with the number of the dictionary it was packed with, so a
later dictionary is a new number and every value stays readable. A value stored as text
(a database written before packing) is read as it is.
"""

from __future__ import annotations

import zlib
from functools import cache
from importlib import resources

from errdex.errors import StoreError

_MAGIC = b"\x00ed"  # no JSON text starts with NUL
_DICTIONARIES = {1: "records.zdict"}
_CURRENT = 1
_LEVEL = 6  # level 9 packs 2% smaller at twice the time


@cache
def _dictionary(number: int) -> bytes:
    return resources.files("errdex.store").joinpath(_DICTIONARIES[number]).read_bytes()


def pack(text: str) -> bytes:
    """`text` (a record's JSON) packed for storage."""
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY,
                              _dictionary(_CURRENT))
    return _MAGIC + bytes([_CURRENT]) + packer.compress(text.encode("utf-8")) + packer.flush()


def unpack(value: str | bytes) -> str:
    """The JSON text of a stored value, packed or not. StoreError for a value no
    dictionary of this errdex unpacks (a newer errdex wrote it)."""
    if isinstance(value, str):
        return value
    if not value.startswith(_MAGIC):
        return value.decode("utf-8")
    number = value[len(_MAGIC)]
    if number not in _DICTIONARIES:
        raise StoreError(f"a record is packed with dictionary {number}, which this errdex does "
                         "not have: a newer errdex wrote this database; upgrade errdex")
    unpacker = zlib.decompressobj(15, _dictionary(number))
    return (unpacker.decompress(value[len(_MAGIC) + 1 :]) + unpacker.flush()).decode("utf-8")
