"""Rust Debug values (`{:?}` and `{:#?}`) as pasted: a tolerant parser that gives up (None)
rather than guess, and the parsed value, which renders the same compact text whichever
form was pasted. Where such a value sits in a paste, and which of its strings are
messages, is `errdex.match.paste`'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DEBUG_CHARS = 200_000
_MAX_DEBUG_NODES = 5_000


@dataclass(slots=True)
class DebugValue:
    """A parsed Rust Debug value. `kind`: str, atom, list, tuple, map, struct, variant.
    Never changed once parsed; not frozen, and with an __init__ of its own, as
    errdex.match.paste's data classes are (see the note there)."""

    kind: str
    name: str | None
    fields: tuple[tuple[str, DebugValue], ...]
    start: int
    end: int
    raw: str
    string: str | None = None  # unescaped content of a string
    string_pieces: tuple[tuple[int, int], ...] = ()  # (string offset, doc offset)
    cut: bool = False  # the text ends inside it: its fields are those before the end

    def __init__(
        self, kind: str, name: str | None, fields: tuple[tuple[str, DebugValue], ...], start: int,
        end: int, raw: str, string: str | None = None,
        string_pieces: tuple[tuple[int, int], ...] = (), cut: bool = False
    ) -> None:
        self.kind = kind
        self.name = name
        self.fields = fields
        self.start = start
        self.end = end
        self.raw = raw
        self.string = string
        self.string_pieces = string_pieces
        self.cut = cut

    def render(self) -> str:
        """Compact Debug text, the same whether the paste was `{:?}` or `{:#?}`."""
        if self.kind == "str":
            escaped = (self.string or "").replace("\\", "\\\\").replace('"', '\\"')
            return '"' + escaped.replace("\n", "\\n") + '"'
        if self.kind == "atom":
            return self.raw
        inner = ", ".join(
            f"{key}: {value.render()}"
            if self.kind in ("struct", "map") or not key.isdigit()
            else value.render()
            for key, value in self.fields
        )
        name = self.name or ""
        if self.kind == "struct":
            return f"{name} {{ {inner} }}" if inner else name
        if self.kind == "map":
            return "{" + inner + "}"
        if self.kind == "list":
            return f"{name} [{inner}]" if name else f"[{inner}]"
        return f"{name}({inner})"

    def binding(self) -> str:
        """The text this value puts in a template's hole: a string without its quotes."""
        if self.kind == "str":
            return self.string or ""
        return self.raw if "\n" not in self.raw else self.render()



# --- Rust Debug parsing ------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_ATOM = re.compile(r"(?:[^\s,:()\[\]{}\"]|::)+")
_CHAR = re.compile(r"'(?:\\.|[^'\\])*'")
_STRING_STEP = re.compile(r"\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|\"", re.DOTALL)
_INLINE_WS = re.compile(r"[ \t]*")
_WS = re.compile(r"\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


class DebugParser:
    """A tolerant recursive-descent parser; gives up (None) rather than guess. With
    `cut_ok`, a value the text ends inside (`Outer(Inner { a: [2, 3], b: [4` and no
    more) is what was read up to the end, each open struct or variant marked `cut`; a
    string inside a quoted log string, its quotes escaped (`\\"a.b\\"`), is read too."""

    def __init__(self, text: str, limit: int, cut_ok: bool = False) -> None:
        self.text = text
        self.limit = min(limit, len(text))
        self.pos = 0
        self.nodes = 0
        self.cut_ok = cut_ok

    def _ws(self) -> None:
        m = _WS.match(self.text, self.pos, self.limit)
        self.pos = m.end() if m else self.pos

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < self.limit else ""

    def parse(self, pos: int) -> DebugValue | None:
        self.pos = pos
        return self._value(0)

    def _value(self, depth: int) -> DebugValue | None:
        self.nodes += 1
        if depth > 40 or self.nodes > _MAX_DEBUG_NODES:
            return None
        self._ws()
        start = self.pos
        c = self._peek()
        if c == '"':
            return self._string()
        if c == "\\" and self.text.startswith('\\"', self.pos):
            return self._escaped_string()
        if c in "[({":
            return self._sequence(None, start, depth)
        if c == "'":
            m = _CHAR.match(self.text, self.pos, self.limit)
            if m is None:
                return None
            self.pos = m.end()
            return DebugValue("atom", None, (), start, self.pos, m.group())
        ident = _IDENT.match(self.text, self.pos, self.limit)
        if ident is not None:
            after = _INLINE_WS.match(self.text, ident.end(), self.limit)
            nxt = after.end() if after else ident.end()
            if nxt < self.limit and self.text[nxt] in "[({":
                self.pos = nxt
                return self._sequence(ident.group(), start, depth)
            if self.cut_ok and depth and ident.group()[0].isupper() and (
                    not self.text[ident.end() : self.limit].strip()):
                self.pos = self.limit  # `Outer(Variant` and the end: the variant's name
                return DebugValue("variant", ident.group(), (), start, self.pos,
                                  ident.group(), cut=True)
        m = _ATOM.match(self.text, self.pos, self.limit)
        if m is None:
            return None
        self.pos = m.end()
        return DebugValue("atom", None, (), start, self.pos, m.group())

    def _sequence(self, name: str | None, start: int, depth: int) -> DebugValue | None:
        opener = self.text[self.pos]
        closer = {"[": "]", "(": ")", "{": "}"}[opener]
        keyed = opener == "{"
        kind = {"[": "list", "(": "variant" if name else "tuple", "{": "struct" if name else "map"}
        self.pos += 1
        fields: list[tuple[str, DebugValue]] = []
        while True:
            self._ws()
            c = self._peek()
            if c == closer:
                self.pos += 1
                break
            if not c:
                return self._cut(kind[opener], name, fields, start)
            if keyed and self.text.startswith("..", self.pos):
                self.pos += 2
                continue
            key = str(len(fields))
            if keyed and name:
                ident = _IDENT.match(self.text, self.pos, self.limit)
                if ident is None:
                    return None
                key, self.pos = ident.group(), ident.end()
                if self.pos >= self.limit:
                    return self._cut(kind[opener], name, fields, start)
            else:
                value = self._value(depth + 1)
                if value is None:
                    return self._cut(kind[opener], name, fields, start)
                if not keyed:
                    self._ws()
                    if (self._peek() == ":" and value.kind == "atom"
                            and _IDENT.fullmatch(value.raw) is not None):
                        # `Error("msg", line: 1, column: 4)`: a hand-written Debug impl
                        # (serde_json's) that names some items between parentheses.
                        self.pos += 1
                        key = value.raw
                        value = self._value(depth + 1)
                        if value is None:
                            return self._cut(kind[opener], name, fields, start)
                    fields.append((key, value))
                    if value.cut:
                        return self._cut(kind[opener], name, fields, start)
                else:
                    key = value.render()
            if keyed:
                self._ws()
                if self._peek() != ":":
                    return None
                self.pos += 1
                value = self._value(depth + 1)
                if value is None:
                    return self._cut(kind[opener], name, fields, start)
                fields.append((key, value))
                if value.cut:
                    return self._cut(kind[opener], name, fields, start)
            self._ws()
            if self._peek() == ",":
                self.pos += 1
            elif self._peek() != closer:
                return None
        raw = self.text[start : self.pos]
        return DebugValue(kind[opener], name, tuple(fields), start, self.pos, raw)

    def _cut(self, kind: str, name: str | None, fields: list[tuple[str, DebugValue]],
             start: int) -> DebugValue | None:
        """What was read of a value the text ends inside, if cut values are wanted and
        the text does end here (not a value that is malformed before its end)."""
        self._ws()
        if not self.cut_ok or self.pos < self.limit:
            return None
        return DebugValue(kind, name, tuple(fields), start, self.limit,
                          self.text[start : self.limit], cut=True)

    def _escaped_string(self) -> DebugValue | None:
        """`\\"a.b\\"`: a Debug string inside a quoted string of a log line."""
        start = self.pos
        close = self.text.find('\\"', start + 2, self.limit)
        if close < 0:
            return None
        self.pos = close + 2
        content = self.text[start + 2 : close]
        return DebugValue("str", None, (), start, self.pos, self.text[start : self.pos],
                          content, ((0, start + 2),))

    def _string(self) -> DebugValue | None:
        start = self.pos
        out: list[str] = []
        pieces: list[tuple[int, int]] = [(0, start + 1)]
        size = 0
        pos = start + 1
        while True:
            m = _STRING_STEP.search(self.text, pos, self.limit)
            if m is None:
                self.pos = self.limit  # read to the limit: charge it
                return None
            chunk = self.text[pos : m.start()]
            out.append(chunk)
            size += len(chunk)
            if m.group() == '"':
                self.pos = m.end()
                break
            escape = m.group()[1:]
            if escape.startswith("u{"):
                char = chr(min(int(escape[2:-1], 16), 0x10FFFF))
            elif escape.startswith("x") and len(escape) == 3:
                char = chr(int(escape[1:], 16))
            else:
                char = _ESCAPES.get(escape, escape)
            out.append(char)
            pieces.append((size, m.start()))
            size += 1
            pos = m.end()
            pieces.append((size, pos))
        raw = self.text[start : self.pos]
        return DebugValue("str", None, (), start, self.pos, raw, "".join(out), tuple(pieces))


def parse_debug(text: str, pos: int = 0) -> DebugValue | None:
    """The Rust Debug value starting at `pos`, or None if the text there isn't one."""
    return DebugParser(text, pos + MAX_DEBUG_CHARS).parse(pos)
