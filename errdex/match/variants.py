"""Records found by a name in the paste rather than by their text: a Rust Debug value's
variant (`ShapeMismatch { lhs: .., rhs: .. }`, whose fields bind the template's holes by
name), and an exception type whose message is made at run time (`KeyError: 'llama'`).

Reading Debug values and `Type:` prefixes out of the text is `errdex.match.paste`'s job;
this module only looks the names up and binds what they carry.
"""

from __future__ import annotations

import re
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.languages import languages_that
from errdex.match.compiled import Compiled
from errdex.match.evidence import components, path_agrees, type_tail
from errdex.match.found import Found
from errdex.match.paste import DebugHit, DebugValue, Paste
from errdex.models import MatchEntry

# What `raise KeyError(key)` prints: one value, quoted or a single token.
VALUE_ONLY = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\S*")


class NameIndex:
    """Entries by Rust variant name, and message-less entries by exception type."""

    def __init__(self, entries: Sequence[MatchEntry], compiled: Sequence[Compiled],
                 saved: NameParts | None = None) -> None:
        self.entries = entries
        self.variants: dict[str, list[int]] = defaultdict(list)
        # Exception types whose message is made at run time: found by the type alone.
        self.typed: dict[str, list[int]] = defaultdict(list)
        self._lines: dict[tuple[str, int], list[int]] | None = None
        # Restored: each site's (file name, line) as a sorted `_line_key`, and its entry.
        self._line_keys = array("Q")
        self._line_entries = array("I")
        if saved is not None:
            self.variants.update(saved.variants)
            self.typed.update(saved.typed)
            self._line_keys, self._line_entries = saved.line_keys, saved.line_entries
            self._lines = {}
            return
        named = languages_that("exception_named_in_output")  # `KeyError: 'x'` prints it
        for i, entry in enumerate(entries):
            if entry.variant:
                self.variants[entry.variant].append(i)
            tail = type_tail(entry.exception)
            if tail and compiled[i].literal_length == 0 and entry.language in named:
                self.typed[tail].append(i)

    def find_variant(self, hit: DebugHit, paste: Paste) -> list[Found]:
        """A Rust Debug value `Variant { field: .. }` or `Variant(..)` against entries
        whose template is that variant's #[error] text; fields bind holes by name."""
        node = hit.value
        out: list[Found] = []
        names = [key for key, _ in node.fields]
        fields = dict(node.fields)
        group = paste.groups[hit.group]
        for entry_index in self.variants.get(node.name or "", ()):
            entry = self.entries[entry_index]
            if entry.variant_fields and not _fields_fit(node, names, entry.variant_fields):
                continue
            values: list[tuple[str, str]] = []
            placeholders = entry.template.placeholders
            for p in placeholders:
                key = p.name if p.name in fields else _field_of(p.expression)
                if key in fields:
                    values.append((p.name, fields[key].binding()))
            if not values and node.kind == "variant" and len(names) == len(placeholders):
                values = [
                    (p.name, fields[k].binding()) for p, k in zip(placeholders, names, strict=True)
                ]
            size = max(1, group.end - group.start)
            score = min(1.0, (node.end - node.start) / size)
            detail = f"Rust Debug form of {node.name} ({len(values)} field(s) bound)"
            if node.cut:
                detail += "; the paste ends inside it"
            out.append(
                Found(
                    entry_index,
                    True,
                    tuple(values),
                    (node.start, node.end),
                    score,
                    hit.group,
                    detail,
                    variant=True,
                )
            )
        return out

    def find_by_type(self, paste: Paste) -> list[Found]:
        """Messages whose `Type:` prefix names an exception the library raises with a
        message made at run time. Both names must agree as far as both are qualified.
        A message that is a value alone (`KeyError: 'llama'`) is explained by it; a
        sentence only under a type the text qualifies with its module (`tarfile.
        ReadError: ...`, how Python prints any type but a builtin): else a library's
        `raise ValueError(msg)` would claim every ValueError there is (a frame at its
        line still finds it: `find_by_frame`)."""
        out: list[Found] = []
        if not self.typed:
            return out
        for group in paste.groups:
            for i in self.typed.get(type_tail(group.exception) or "", ()):
                named, known = group.exception or "", self.entries[i].exception or ""
                if not (named.endswith("." + known) or known.endswith("." + named)
                        or named == known):
                    continue
                doc = paste.docs[group.doc]
                value = doc.text[group.start : group.end].strip()
                value_only = VALUE_ONLY.fullmatch(value) is not None
                if not value_only and "." not in named and "::" not in named:
                    continue  # `ValueError: a sentence`: no library's own type
                detail = f"exception type {known} (its message is made at run time)"
                name = self.entries[i].template.placeholders[0].name
                # A value alone is all the message; a sentence under the library's own
                # type (`tarfile.ReadError: ...`) is the type's, but explains no words
                # (score 0): a record whose text the message holds comes first.
                out.append(Found(i, True, ((name, value),), (group.start, group.end),
                                 1.0 if value_only else 0.0, group.index, detail))
        return out


    def find_by_frame(self, paste: Paste, compiled: Sequence[Compiled]) -> list[Found]:
        """Frames first: the record whose site is the line a traceback's frame names,
        of the type the text names. A record whose message is made at run time is then
        the exact error (`KeyError: 'some_key'` raised there); another is a candidate
        the text did not match (a nearby version's wording), flagged not exact."""
        out: list[Found] = []
        for group in paste.groups:
            frame, text_type = group.frame, type_tail(group.exception)
            if frame is None or text_type is None:
                continue
            frame_path = components(frame.path)
            for i in self._at(frame_path[-1], frame.line):
                c = compiled[i]
                if c.exception != text_type or not any(
                        line == frame.line and path_agrees(path, frame_path)
                        for path, line in c.sites):
                    continue
                doc = paste.docs[group.doc]
                value = doc.text[group.start : group.end].strip()
                placeholders = self.entries[i].template.placeholders
                exact = c.literal_length == 0 and len(placeholders) == 1
                values = ((placeholders[0].name, value),) if exact else ()
                detail = "the traceback's innermost frame is this site"
                out.append(Found(i, exact, values, (group.start, group.end),
                                 1.0 if exact else 0.5, group.index, detail))
        return out

    def parts(self) -> NameParts:
        """What `NameIndex(saved=...)` needs to be this index again without reading every
        entry (errdex.match.saved keeps it)."""
        if self._line_keys:
            keys, owners = self._line_keys, self._line_entries
        else:
            pairs = sorted((_line_key(name, line), i)
                           for (name, line), held in self._at_line().items() for i in held)
            keys, owners = array("Q", [k for k, _ in pairs]), array("I", [i for _, i in pairs])
        return NameParts(dict(self.variants), dict(self.typed), keys, owners)

    def _at(self, name: str, line: int) -> Sequence[int]:
        """The entries with a site at `line` of a file called `name`."""
        if not self._line_keys:
            return self._at_line().get((name, line), ())
        key = _line_key(name, line)
        low = bisect_left(self._line_keys, key)
        high = bisect_right(self._line_keys, key, low)
        # A crc32 collision only adds a candidate: find_by_frame checks its sites.
        return self._line_entries[low:high]

    def _at_line(self) -> dict[tuple[str, int], list[int]]:
        """Entries by (file name, line) of each site, made on first use."""
        if self._lines is None:
            self._lines = defaultdict(list)
            for i, entry in enumerate(self.entries):
                for path, line in entry.sites:
                    self._lines[(path.replace("\\", "/").rsplit("/", 1)[-1], line)].append(i)
        return self._lines


@dataclass(frozen=True)
class NameParts:
    """A NameIndex as saved: its two maps and the sorted site keys with their entries."""

    variants: dict[str, list[int]]
    typed: dict[str, list[int]]
    line_keys: array[int]
    line_entries: array[int]


def _line_key(name: str, line: int) -> int:
    """A site's file name and line as one number (crc32 of the name above the line)."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) << 32 | (line & 0xFFFFFFFF)


def _fields_fit(node: DebugValue, names: list[str], declared: tuple[str, ...]) -> bool:
    """The Debug value's fields are the variant's: all of them, or, in a value the
    paste ends inside, those before the end (the variant's name alone may be left)."""
    if node.kind == "variant":
        return len(names) <= len(declared) if node.cut else len(names) == len(declared)
    return set(names) <= set(declared) if node.cut else set(names) == set(declared)


def _field_of(expression: str) -> str:
    """`self.lhs` / `&self.0` / `lhs` -> the field it reads."""
    text = expression.strip().lstrip("&*").strip()
    return text[5:] if text.startswith("self.") else text
