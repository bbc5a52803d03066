"""A file's extraction as bytes and back, so a re-index can keep the extraction of every
file whose content (and the rules and budgets it was read under) did not change.

The bytes are data only: JSON of the frozen dataclasses' fields in declared order,
compressed, and read back by decoders compiled from the dataclasses' own type hints, so
a value of the wrong shape is refused rather than built. Nothing here runs code from
the bytes (no pickle): a cache entry that is corrupted, truncated, of an older format or
of another errdex is simply not a hit (`decode_extraction` returns None), and the file is
extracted again. The store keeps the bytes without reading them (`errdex.store`).

`extraction_key` names what an extraction depends on: the file's path and content, the
language's rules in force (built in and the repository's `errdex.toml`), the per-file
budgets, and the code that extracts (a digest of errdex's own source and grammars).
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import hashlib
import json
import os
import stat
import types
import typing
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errdex.extract.structure import FileStructure
from errdex.models import FileExtraction, Language, SourceFile

if TYPE_CHECKING:
    from errdex.extract import Rule

FORMAT = "errdex-extraction-1"  # bumped whenever the encoding itself changes
MAX_ENTRY_BYTES = 64 << 20  # a decompressed entry past this is refused, not read

_Decode = Callable[[Any], Any]
_Encode = Callable[[Any], Any]


class _Refused(Exception):
    """A cached value does not have the shape its type declares."""


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, localns={"FileStructure": FileStructure})


def _scalar(kind: type) -> _Decode:
    def decode(value: Any) -> Any:
        if type(value) is not kind:
            raise _Refused(kind.__name__)
        return value

    return decode


def _float(value: Any) -> float:
    if type(value) not in (int, float):
        raise _Refused("float")
    return float(value)


def _none(value: Any) -> None:
    if value is not None:
        raise _Refused("None")


def _sequence(value: Any) -> list[Any]:
    if type(value) is not list:
        raise _Refused("list")
    return value


_DECODERS: dict[Any, _Decode] = {}
_ENCODERS: dict[Any, _Encode] = {}


_PLAIN = (str, int, bool)


def _plain_check(hint: Any, name: str) -> str | None:
    """Python source that is true when `name` is not of `hint` (a plain scalar, or one
    or None), or None for any other type."""
    if hint in _PLAIN:
        return f"type({name}) is not {hint.__name__}"
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 2 \
            and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        if other in _PLAIN:
            return f"({name} is not None and type({name}) is not {other.__name__})"
    return None


def _optional(hint: Any) -> Any:
    """X of a hint `X | None` (X not a plain scalar), else None."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 2 \
            and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        return other if other not in _PLAIN else None
    return None


def _items(hint: Any) -> Any:
    """X of a hint `tuple[X, ...]` (X not a plain scalar), else None."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis \
            and args[0] not in _PLAIN:
        return args[0]
    return None


def _builder(cls: type) -> _Decode:
    """A decoder of `cls` made for it: the list of its fields in order, plain fields
    checked in place, the others through their own decoders, and the object made
    without calling `__init__` per field (its `__post_init__`, which checks, runs)."""
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    scope: dict[str, Any] = {"Refused": _Refused, "new": object.__new__, "cls": cls,
                             "post": getattr(cls, "__post_init__", None)}
    checks, values = [], []
    for at, name in enumerate(names):
        hint = hints[name]
        check = _plain_check(hint, f"v{at}")
        optional, items = _optional(hint), _items(hint)
        if check is not None:
            checks.append(f"    if {check}: raise Refused({cls.__name__!r})")
            values.append(f"{name}=v{at}")
        elif optional is not None:  # `d(v)` or None, inline: a call less per value
            scope[f"d{at}"] = _decoder(optional)
            values.append(f"{name}=None if v{at} is None else d{at}(v{at})")
        elif items is not None:  # a tuple of values of one type, from a list
            scope[f"d{at}"] = _decoder(items)
            checks.append(f"    if type(v{at}) is not list: raise Refused({cls.__name__!r})")
            values.append(f"{name}=tuple(map(d{at}, v{at}))")
        else:
            scope[f"d{at}"] = _decoder(hint)
            values.append(f"{name}=d{at}(v{at})")
    unpack = ", ".join(f"v{at}" for at in range(len(names))) + ","
    source = "\n".join([
        "def build(value):",
        f"    if type(value) is not list or len(value) != {len(names)}:",
        f"        raise Refused({cls.__name__!r})",
        f"    {unpack} = value",
        *checks,
        "    made = new(cls)",
        f"    made.__dict__.update({', '.join(values)})",
        "    if post is not None: post(made)",
        "    return made",
    ])
    exec(source, scope)  # the source is made above, from errdex's own dataclasses only
    built: _Decode = scope["build"]
    return built


def _decoder(hint: Any) -> _Decode:
    """The decoder of values of type `hint`, built once (recursive types included)."""
    if hint in _DECODERS:
        return _DECODERS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    decode: _Decode
    if hint in (str, int, bool):
        decode = _scalar(hint)
    elif hint is float:
        decode = _float
    elif hint is type(None):
        decode = _none
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = {m.value: m for m in hint}

        def decode(value: Any) -> Any:
            if not isinstance(value, str | int) or value not in members:
                raise _Refused(hint.__name__)
            return members[value]
    elif dataclasses.is_dataclass(hint) and isinstance(hint, type):
        _DECODERS[hint] = lambda value: decode(value)  # a recursive type's own fields
        decode = _builder(hint)
    elif origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _decoder(args[0] if args[1] is type(None) else args[1])

        def decode(value: Any) -> Any:
            return None if value is None else inner(value)
    elif origin in (typing.Union, types.UnionType):
        options = [_decoder(arg) for arg in args]

        def decode(value: Any) -> Any:
            if value is None and type(None) in args:
                return None
            for option in options:
                try:
                    return option(value)
                except _Refused:
                    continue
            raise _Refused(str(hint))
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] in _PLAIN:
        plain = args[0]

        def decode(value: Any) -> Any:
            for v in _sequence(value):
                if type(v) is not plain:
                    raise _Refused(plain.__name__)
            return tuple(value)
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def decode(value: Any) -> Any:
            return tuple(map(item, _sequence(value)))
    elif origin is tuple:
        fixed = [_decoder(arg) for arg in args]

        def decode(value: Any) -> Any:
            items = _sequence(value)
            if len(items) != len(fixed):
                raise _Refused(str(hint))
            return tuple(part(v) for part, v in zip(fixed, items, strict=True))
    elif origin is frozenset:
        member = _decoder(args[0])

        def decode(value: Any) -> Any:
            return frozenset(member(v) for v in _sequence(value))
    else:
        raise TypeError(f"no cache decoding for {hint!r}")
    _DECODERS[hint] = decode
    return decode


def _encoder(hint: Any) -> _Encode:
    """The encoder of values of type `hint`: dataclasses as lists of their fields,
    tuples as lists, sets as sorted lists (the same bytes for the same extraction)."""
    if hint in _ENCODERS:
        return _ENCODERS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    encode: _Encode
    if hint in (str, int, bool, float, type(None)):
        encode = _same
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        encode = _value
    elif dataclasses.is_dataclass(hint) and isinstance(hint, type):
        _ENCODERS[hint] = lambda value: flatten(value)
        hints = _hints(hint)
        names = [f.name for f in dataclasses.fields(hint)]
        parts = [(name, _encoder(hints[name])) for name in names]

        def flatten(value: Any) -> Any:
            return [part(getattr(value, name)) for name, part in parts]

        encode = flatten
    elif origin in (typing.Union, types.UnionType):
        options = [(typing.get_origin(a) or a, _encoder(a)) for a in args if a is not type(None)]

        def encode(value: Any) -> Any:
            if value is None:
                return None
            for kind, option in options:
                if isinstance(value, kind):
                    return option(value)
            raise TypeError(f"{type(value).__name__} is not {hint!r}")
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _encoder(args[0])

        def encode(value: Any) -> Any:
            return [item(v) for v in value]
    elif origin is tuple:
        fixed = [_encoder(arg) for arg in args]

        def encode(value: Any) -> Any:
            return [part(v) for part, v in zip(fixed, value, strict=True)]
    elif origin is frozenset:
        member = _encoder(args[0])

        def encode(value: Any) -> Any:
            return sorted(member(v) for v in value)
    else:
        raise TypeError(f"no cache encoding for {hint!r}")
    _ENCODERS[hint] = encode
    return encode


def _same(value: Any) -> Any:
    return value


def _value(value: Any) -> Any:
    return value.value


def encode_extraction(extraction: FileExtraction, dropped: int) -> bytes:
    """`extraction` (as bounded for its file, `dropped` items cut) as cache bytes."""
    body = [FORMAT, dropped, _encoder(FileExtraction)(extraction)]
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return zlib.compress(text.encode(), 1)  # fast: a full index encodes every file


_REASON = b"\0"  # a result that is why a file has no extraction, as text after it
MAX_REASON = 200


def encode_result(result: tuple[FileExtraction, int] | str) -> bytes:
    """A worker's result as it crosses to errdex's own process: an extraction as the
    cache's bytes, a reason as text. Decoded strictly there (`decode_result`), so that
    nothing a parsed file made a worker do can run in errdex's process, as unpickling
    its objects could; and the bytes are the cache entry, never encoded twice."""
    if isinstance(result, str):
        return _REASON + result.encode()[:MAX_REASON]
    return encode_extraction(*result)


def decode_result(data: bytes, failed: str) -> tuple[FileExtraction, int] | str:
    """`encode_result`'s result from a worker's bytes; `failed` for bytes that are not
    exactly such a result."""
    if data[:1] == _REASON:
        reason = data[1 : MAX_REASON + 1].decode("utf-8", "replace")
        return reason if reason.isprintable() and reason else failed
    return decode_extraction(data) or failed


def decode_extraction(data: object) -> tuple[FileExtraction, int] | None:
    """(the extraction, the items its file's budget dropped) from `encode_extraction`'s
    bytes, or None when they are not exactly such bytes of this format (then extract
    again): never an exception, whatever `data` holds."""
    collecting = gc.isenabled()
    gc.disable()  # ~200,000 new objects and no cycles: the collector would only slow it
    try:
        if not isinstance(data, bytes | bytearray | memoryview):
            return None
        inflate = zlib.decompressobj()
        text = inflate.decompress(data if type(data) is bytes else bytes(data), MAX_ENTRY_BYTES)
        if inflate.unconsumed_tail or not inflate.eof:
            return None
        body = json.loads(text)
        if type(body) is not list or len(body) != 3 or body[0] != FORMAT:
            return None
        dropped = body[1]
        if type(dropped) is not int or dropped < 0:
            return None
        extraction = _decoder(FileExtraction)(body[2])
    except (_Refused, zlib.error, ValueError, TypeError, RecursionError, MemoryError):
        return None
    finally:
        if collecting:
            gc.enable()
    return extraction, dropped


_CODE_SUFFIXES = (".py", ".scm", ".toml", ".zdict")


@cache
def code_digest() -> str:
    """A digest of what extraction runs: errdex's own source files (queries and rules
    included) and the versions of the parser and grammars installed. Any change of
    errdex (a release or an edit of a development checkout) changes every key."""
    digest = hashlib.sha256(FORMAT.encode())
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*")):
        if path.suffix in _CODE_SUFFIXES and path.is_file():
            digest.update(path.relative_to(package).as_posix().encode() + b"\x00")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    for dist in sorted(metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("tree-sitter") or name.startswith("tree_sitter"):
            digest.update(f"{name}=={dist.version}\x00".encode())
    return digest.hexdigest()


def extraction_key(path: str, content: bytes, language: str, rules: str,
                   budget: Sequence[object]) -> str:  # fmt: skip
    """The cache key of one file's extraction: what it depends on, hashed. `rules` is the
    language's rules in force as text (`repr` of the loaded rules), `budget` the
    per-file budgets."""
    digest = hashlib.sha256()
    for part in (code_digest(), path, language, rules, repr(tuple(budget))):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    digest.update(hashlib.sha256(content).digest())
    return digest.hexdigest()


def _read_regular(path: str) -> bytes | None:
    """The bytes of `path` if it is a regular file (never blocks on a FIFO or a
    device: the tree is untrusted), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError:
        return None
    finally:
        os.close(fd)


@dataclass
class Reuse:
    """One index's use of the cache: each file's key (None: not a regular readable
    file, never cached), the bytes the store holds for them, and what extraction fills
    in: how many files were reused and the entries of the files extracted now."""

    rules: Mapping[Language, tuple[Rule, ...]]
    keys: list[str | None]
    found: Mapping[str, bytes] = field(default_factory=dict)
    reused: set[str] = field(default_factory=set)
    new: dict[str, bytes] = field(default_factory=dict)


def file_key(file: SourceFile, rules: Mapping[Language, tuple[Rule, ...]],
             budget: Sequence[object]) -> str | None:  # fmt: skip
    """The cache key of `file` as it is on disk now, or None when it can't be read."""
    content = _read_regular(file.absolute)
    if content is None:
        return None
    return extraction_key(file.path, content, file.language.value,
                          repr(rules.get(file.language, ())), budget)


def plan_reuse(files: Sequence[SourceFile], rules: Mapping[Language, tuple[Rule, ...]],
               budget: Sequence[object]) -> Reuse:  # fmt: skip
    """Every file's key (reading each file once, parsing none)."""
    return Reuse(rules=rules, keys=[file_key(f, rules, budget) for f in files])


# -- what the previous index read: a manifest per (repository, ref) --------------------

MANIFEST_FORMAT = "errdex-manifest-1"


def manifest_key(ref: str) -> str:
    """The cache key of the manifest of a repository's snapshot at `ref`."""
    return "manifest:" + ref  # no NUL: PostgreSQL text cannot hold one


@dataclass(frozen=True)
class Manifest:
    """What one index read and wrote: each file's key (path -> key), a digest of the
    records it stored (`records_digest`) and the history stamp it was made under. Read
    back only when errdex's code is the same (`code_digest`)."""

    files: Mapping[str, str]
    records: str
    stamp: str | None


def encode_manifest(manifest: Manifest) -> bytes:
    body = [MANIFEST_FORMAT, code_digest(), manifest.records, manifest.stamp,
            sorted(manifest.files.items())]
    return zlib.compress(json.dumps(body, ensure_ascii=False).encode(), 1)


def decode_manifest(data: object) -> Manifest | None:
    """The manifest in `data`, or None when it is not one of this errdex's."""
    try:
        if not isinstance(data, bytes):
            return None
        inflate = zlib.decompressobj()
        body = json.loads(inflate.decompress(data, MAX_ENTRY_BYTES))
        if inflate.unconsumed_tail or not inflate.eof or type(body) is not list \
                or len(body) != 5 or body[:2] != [MANIFEST_FORMAT, code_digest()]:
            return None
        records, stamp, files = body[2], body[3], body[4]
        if type(records) is not str or not (stamp is None or type(stamp) is str):
            return None
        pairs = {}
        for pair in files:
            path, key = pair
            if type(path) is not str or type(key) is not str:
                return None
            pairs[path] = key
    except (zlib.error, ValueError, TypeError, RecursionError, MemoryError):
        return None
    return Manifest(pairs, records, stamp)


def records_digest(texts: Sequence[str]) -> str:
    """A digest of records as their stored contract texts (`Store.record_json`, which
    every backend keeps as `json.dumps(record_to_dict(r), ensure_ascii=False)`), in any
    order: the same records give the same digest (a backend that stored them otherwise
    would only never match, and nothing would be reused)."""
    digest = hashlib.sha256()
    for text in sorted(texts):
        digest.update(text.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


# -- the expectations read in test files (errdex.analyze.testrefs.KindsMemo) ------------

KINDS_FORMAT = "errdex-test-kinds-1"


def kinds_key(ref: str) -> str:
    """The cache key of the test files' expectations of a repository's snapshot."""
    return "tests:" + ref


def encode_kinds(kinds: Mapping[str, Sequence[str | None]]) -> bytes:
    """Per test file (by its text's digest), the expectation on each line: sparse."""
    body = {digest: [len(lines), [[at, kind] for at, kind in enumerate(lines) if kind]]
            for digest, lines in kinds.items()}
    return zlib.compress(json.dumps([KINDS_FORMAT, code_digest(), body]).encode(), 1)


def decode_kinds(data: object) -> dict[str, object]:
    """`encode_kinds`'s mapping back (digest -> a list per line), or empty when `data` is
    not this errdex's; each list is still checked where it is used."""
    try:
        if not isinstance(data, bytes):
            return {}
        inflate = zlib.decompressobj()
        body = json.loads(inflate.decompress(data, MAX_ENTRY_BYTES))
        if inflate.unconsumed_tail or not inflate.eof or type(body) is not list \
                or len(body) != 3 or body[:2] != [KINDS_FORMAT, code_digest()] \
                or type(body[2]) is not dict:
            return {}
        out: dict[str, object] = {}
        for digest, (count, marks) in body[2].items():
            if type(count) is not int or not 0 <= count <= MAX_ENTRY_BYTES:
                continue
            lines: list[object] = [None] * count
            for at, kind in marks:
                if type(at) is int and 0 <= at < count:
                    lines[at] = kind
            out[digest] = lines
    except (zlib.error, ValueError, TypeError, RecursionError, MemoryError):
        return {}
    return out
