"""Understanding what a user pastes: one message, a Python traceback, Rust error output or
a log, turned into the message text to match and what surrounds it (the exception type a
prefix names, the traceback frame or panic location that raised it, Rust Debug values).

The pasted text is never rewritten: every message is a range of a `Doc` whose offsets
map back to the original input, so a match can point at what the user pasted. Only
strings unescaped out of a Rust Debug form (`Msg("a \\"b\\"")`) get a derived `Doc` of
their own, with a piecewise map back. This module knows nothing about templates.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

# --- rules, as data ----------------------------------------------------------------------

_LEVEL = r"(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|CRITICAL|FATAL)"
_TIMESTAMP = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?"
)


@dataclass(frozen=True)
class PrefixRule:
    """A prefix in front of a message. Named groups say what it tells: `exc` the
    exception type, `path`/`line` where it was raised, `msg` the message itself when
    something follows it on the line (an old Rust panic's `', src/x.rs:1:2`)."""

    name: str
    pattern: re.Pattern[str]


def _rule(name: str, pattern: str) -> PrefixRule:
    return PrefixRule(name, re.compile(pattern))


# Applied in order at the start of each line, again and again (a log prefix, then
# `ValueError: `), until none applies. Patterns are anchored by `match`, never by `^`.
PREFIX_RULES: tuple[PrefixRule, ...] = (
    _rule("indent", r"[ \t]+"),
    _rule(
        "bracketed_log",
        r"\[(?:[^\]\s]{1,64}[ \t]+)?" + _LEVEL + r"(?:[ \t]+[^\]]{0,200})?\][ \t:]*",
    ),
    _rule("timestamp", r"\[?" + _TIMESTAMP + r"\]?(?:[ \t]+|[ \t]*[|:-][ \t]*)"),
    _rule("python_logging", r"(?:CRITICAL|ERROR|WARNING|INFO|DEBUG):[\w.]{0,200}:"),
    _rule("error_word", r"(?:Error|error|ERROR)(?:\[E\d+\])?:(?:[ \t]+|$)"),
    # `ERROR app.db: ...`: Python logging's `%(levelname)s %(name)s: %(message)s`.
    _rule("level_logger", _LEVEL + r"[ \t]+[A-Za-z_][\w.\-]{0,100}:[ \t]+"),
    _rule("level", r"\[?" + _LEVEL + r"\]?(?:[ \t]*[:|-][ \t]*|[ \t]+)"),
    _rule("rust_target", r"[a-z_]\w{0,64}(?:::\w{1,64}){1,12}:[ \t]+"),
    _rule(
        "rust_unwrap", r"called `(?:Result|Option)::unwrap\(\)` on an `(?:Err|None)` value:[ \t]*"
    ),
    _rule(
        "rust_panic_old",
        r"thread '[^']{0,200}' panicked at '(?P<msg>.*)', "
        r"(?P<path>[^\s:]{1,500}):(?P<line>\d+):\d+[ \t]*$",
    ),
    _rule(
        "rust_panic",
        r"thread '[^']{0,200}' panicked at (?P<path>[^\s:]{1,500}):(?P<line>\d+):\d+:[ \t]*",
    ),
    _rule(
        "python_warning",
        r"(?P<path>[^\s:]{1,500}\.py):(?P<line>\d+): (?P<exc>[A-Z]\w{0,120}):[ \t]+",
    ),
    _rule("exception_type", r"(?P<exc>(?:[A-Za-z_]\w{0,120}\.){0,12}[A-Z]\w{0,120}):(?:[ \t]+|$)"),
)

# Lines that are structure, not messages.
PYTHON_FRAME = re.compile(r"[ \t]*File \"(?P<path>[^\"]+)\", line (?P<line>\d+)")
PYTHON_EXCEPTION_LINE = re.compile(r"(?P<exc>[A-Za-z_][\w.]{0,200})(?::[ \t]?(?P<rest>.*))?$")
TRACEBACK_HEADER = "Traceback (most recent call last):"
CHAIN_MARKERS = frozenset(
    {
        "During handling of the above exception, another exception occurred:",
        "The above exception was the direct cause of the following exception:",
    }
)
# Header lines -> the state they start.
_HEADERS = {
    TRACEBACK_HEADER: "traceback",
    **{marker: "text" for marker in CHAIN_MARKERS},
    "Caused by:": "causes",
    "caused by:": "causes",
    "stack backtrace:": "backtrace",
    "Stack backtrace:": "backtrace",
    "Backtrace:": "backtrace",
}
CAUSE_INDEX = re.compile(r"[ \t]+(?:\d+:[ \t]+)?")
PANIC_NOTE = re.compile(r"note: |stack backtrace:")
# Lines that are never messages, wherever they appear.
STRUCTURE_LINE = re.compile(
    r"[ \t]*(?:note: run with `RUST_BACKTRACE|note: Some details are omitted"
    r"|\[Previous line repeated \d+ more times?\])"
)

# Where a Rust Debug value may start: `Name(`, `Name {`, `Name [`, or a quoted string.
DEBUG_START = re.compile(r"[A-Z]\w*[ \t]*[({\[]|\"")
# Debug wrappers whose string is the message, and struct fields holding one.
MESSAGE_WRAPPERS = frozenset({"Msg", "Message", "Custom", "Other", "Context", "Any"})
MESSAGE_FIELDS = frozenset({"context", "message", "msg", "reason", "description"})
CAUSE_FIELDS = frozenset({"source", "cause", "inner_error"})

_MAX_DEPTH = 3  # derived docs inside derived docs
_MAX_DEBUG_CHARS = 200_000
_MAX_DEBUG_NODES = 5_000
_MAX_DEBUG_HITS = 1_000


# --- data --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """Where the text says the error was raised: a traceback's last frame, a panic's
    location, a warning's `path:line`."""

    path: str
    line: int


@dataclass(frozen=True)
class Line:
    """A physical line of a Doc; `group` is -1 for lines that are structure (traceback
    frames, code, carets, headers), not message text."""

    start: int
    end: int
    content_start: int  # after recognised prefixes and indentation
    content_end: int
    group: int


@dataclass(frozen=True)
class Group:
    """One message in the paste (a log line, an exception's possibly multi-line message,
    a cause, an unescaped Debug string)."""

    index: int
    doc: int
    start: int  # content range in the doc
    end: int
    exception: str | None  # the type a prefix names: "ValueError", "json.decoder.JSONDecodeError"
    frame: Frame | None
    debug: bool = False  # the message is a Rust Debug value (its strings have groups of their own)
    cause: bool = False  # a line of a Rust `Caused by:` list: what the error above wraps


@dataclass(frozen=True)
class Doc:
    text: str
    lines: tuple[Line, ...]
    line_starts: tuple[int, ...]
    pieces: tuple[tuple[int, int], ...]  # (doc offset, original offset), sorted

    def line_at(self, pos: int) -> Line:
        return self.lines[max(0, bisect_right(self.line_starts, pos) - 1)]

    def to_original(self, pos: int) -> int:
        doc_off, orig_off = self.pieces[max(0, bisect_right(self.pieces, (pos, 1 << 62)) - 1)]
        return orig_off + (pos - doc_off)

    def span_to_original(self, start: int, end: int) -> tuple[int, int]:
        # A piece starts right after each escape, so `end` maps past a trailing `\"`.
        return self.to_original(start), self.to_original(max(start, end))


@dataclass(frozen=True)
class DebugValue:
    """A parsed Rust Debug value. `kind`: str, atom, list, tuple, map, struct, variant."""

    kind: str
    name: str | None
    fields: tuple[tuple[str, DebugValue], ...]
    start: int
    end: int
    raw: str
    string: str | None = None  # unescaped content of a string
    string_pieces: tuple[tuple[int, int], ...] = ()  # (string offset, doc offset)

    def render(self) -> str:
        """Compact Debug text, the same whether the paste was `{:?}` or `{:#?}`."""
        if self.kind == "str":
            escaped = (self.string or "").replace("\\", "\\\\").replace('"', '\\"')
            return '"' + escaped.replace("\n", "\\n") + '"'
        if self.kind == "atom":
            return self.raw
        inner = ", ".join(
            f"{key}: {value.render()}" if self.kind in ("struct", "map") else value.render()
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


@dataclass(frozen=True)
class DebugHit:
    value: DebugValue
    doc: int
    group: int


@dataclass(frozen=True)
class Paste:
    docs: tuple[Doc, ...]
    groups: tuple[Group, ...]
    debug: tuple[DebugHit, ...]  # every named Debug value (variant or struct), outer first


# --- Rust Debug parsing ------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_ATOM = re.compile(r"(?:[^\s,:()\[\]{}\"]|::)+")
_CHAR = re.compile(r"'(?:\\.|[^'\\])*'")
_STRING_STEP = re.compile(r"\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|\"", re.DOTALL)
_INLINE_WS = re.compile(r"[ \t]*")
_WS = re.compile(r"\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


class _DebugParser:
    """A tolerant recursive-descent parser; gives up (None) rather than guess."""

    def __init__(self, text: str, limit: int) -> None:
        self.text = text
        self.limit = min(limit, len(text))
        self.pos = 0
        self.nodes = 0

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
                return None
            if keyed and self.text.startswith("..", self.pos):
                self.pos += 2
                continue
            key = str(len(fields))
            if keyed and name:
                ident = _IDENT.match(self.text, self.pos, self.limit)
                if ident is None:
                    return None
                key, self.pos = ident.group(), ident.end()
            else:
                value = self._value(depth + 1)
                if value is None:
                    return None
                if not keyed:
                    fields.append((key, value))
                else:
                    key = value.render()
            if keyed:
                self._ws()
                if self._peek() != ":":
                    return None
                self.pos += 1
                value = self._value(depth + 1)
                if value is None:
                    return None
                fields.append((key, value))
            self._ws()
            if self._peek() == ",":
                self.pos += 1
            elif self._peek() != closer:
                return None
        raw = self.text[start : self.pos]
        return DebugValue(kind[opener], name, tuple(fields), start, self.pos, raw)

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
    return _DebugParser(text, pos + _MAX_DEBUG_CHARS).parse(pos)


# --- the line scanner --------------------------------------------------------------------


@dataclass(frozen=True)
class _Prefixed:
    start: int
    end: int
    exception: str | None
    frame: Frame | None
    panic_header: bool  # a new-style panic: the message is on the following lines


def strip_prefixes(line: str) -> _Prefixed:
    """Apply PREFIX_RULES to the start of one line."""
    pos, end = 0, len(line)
    exception: str | None = None
    frame: Frame | None = None
    panic_header = False
    for _ in range(10):
        for rule in PREFIX_RULES:
            m = rule.pattern.match(line, pos, end)
            if m is None or (m.end() == pos and m.lastgroup is None):
                continue
            found = m.groupdict()
            if found.get("exc"):
                exception = found["exc"]
            if found.get("path") and found.get("line"):
                frame = Frame(found["path"], int(found["line"]))
            if found.get("msg") is not None:
                pos, end = m.start("msg"), m.end("msg")
            else:
                pos = m.end()
                panic_header = rule.name == "rust_panic" and not line[pos:end].strip()
            break
        else:
            break
    return _Prefixed(pos, end, exception, frame, panic_header)


class _Builder:
    def __init__(self) -> None:
        self.docs: list[Doc] = []
        self.groups: list[Group] = []
        self.debug: list[DebugHit] = []
        self.debug_budget = 0  # characters Debug parsing may still read (set per paste)

    def _group(
        self, doc: int, start: int, end: int, exc: str | None, frame: Frame | None,
        cause: bool = False,
    ) -> int:
        self.groups.append(Group(len(self.groups), doc, start, end, exc, frame, cause=cause))
        return len(self.groups) - 1

    def add_doc(
        self,
        text: str,
        pieces: tuple[tuple[int, int], ...],
        inherited: Frame | None = None,
        depth: int = 0,
    ) -> None:
        doc_index = len(self.docs)
        self.docs.append(Doc(text, (), (0,), pieces))  # replaced once its lines are known
        lines: list[Line] = []
        values: list[tuple[DebugValue, int]] = []
        state = "text"
        frames: list[Frame] = []
        group = -1
        skip_until = -1

        def debug_at(pos: int, group: int) -> None:
            nonlocal skip_until
            if not DEBUG_START.match(text, pos) or self.debug_budget <= 0:
                return
            # Compact Debug is one line; only a line ending in an opener is `{:#?}`.
            newline = text.find("\n", pos)
            limit = len(text) if newline < 0 else newline
            if text[pos:limit].rstrip()[-1:] in ("{", "(", "["):
                limit = len(text)
            limit = min(limit, pos + _MAX_DEBUG_CHARS, pos + self.debug_budget)
            parser = _DebugParser(text, limit)
            value = parser.parse(pos)
            self.debug_budget -= max(1, parser.pos - pos)
            after = text.find("\n", value.end) if value is not None else -1
            if value is not None and text[value.end : len(text) if after < 0 else after].strip():
                value = None  # `"writer" must be writable`: a message that starts quoted
            if value is not None:
                values.append((value, group))
                skip_until = value.end  # a `{:#?}` value's lines are not messages
                self._set(group, end=max(value.end, self.groups[group].end), debug=True)

        start = 0
        for raw in text.split("\n"):
            ls = start
            start += len(raw) + 1
            s = raw[:-1] if raw.endswith("\r") else raw
            le = ls + len(s)
            stripped = s.strip()
            if ls < skip_until or stripped in _HEADERS or STRUCTURE_LINE.match(s):
                lines.append(Line(ls, le, ls, le, -1))
                state = _HEADERS.get(stripped, state)
                frames = [] if state == "traceback" and ls >= skip_until else frames
                continue
            frame_match = PYTHON_FRAME.match(s)
            if frame_match is not None:
                if state != "traceback":
                    state, frames = "traceback", []  # a traceback pasted without its header
                frames.append(Frame(frame_match.group("path"), int(frame_match.group("line"))))
                lines.append(Line(ls, le, ls, le, -1))
                continue
            if state == "traceback":
                if not stripped or s[0] in " \t":  # code, carets, "[Previous line repeated]"
                    lines.append(Line(ls, le, ls, le, -1))
                    continue
                exc_line = PYTHON_EXCEPTION_LINE.match(s)
                if exc_line is not None:
                    rest = exc_line.group("rest")
                    cs = ls + (exc_line.start("rest") if rest is not None else len(s))
                    frame = frames[-1] if frames else None
                    group = self._group(doc_index, cs, le, exc_line.group("exc"), frame)
                    lines.append(Line(ls, le, cs, le, group))
                    state = "message"
                    continue
                state = "text"
            if state in ("message", "panic"):
                if stripped and not (state == "panic" and PANIC_NOTE.match(stripped)):
                    prefixed = strip_prefixes(s) if state == "panic" else None
                    cs = ls + (prefixed.start if prefixed else 0)
                    ce = ls + (prefixed.end if prefixed else len(s))
                    lines.append(Line(ls, le, cs, ce, group))
                    if self.groups[group].start >= self.groups[group].end:
                        self._set(group, start=cs, end=ce)
                        if state == "panic":
                            debug_at(cs, group)
                    else:
                        self._set(group, end=max(ce, self.groups[group].end))
                    continue
                state = "text"
            if state == "causes":
                if stripped and s[0] in " \t":
                    m = CAUSE_INDEX.match(s)
                    cs = ls + (m.end() if m else 0)
                    group = self._group(doc_index, cs, le, None, inherited, cause=True)
                    lines.append(Line(ls, le, cs, le, group))
                    debug_at(cs, group)
                    continue
                state = "text"
            if state == "backtrace":
                if not stripped or s[0] in " \t" or stripped[0].isdigit():
                    lines.append(Line(ls, le, ls, le, -1))
                    continue
                state = "text"
            if not stripped:
                lines.append(Line(ls, le, ls, le, -1))
                continue
            prefixed = strip_prefixes(s)
            cs, ce = ls + prefixed.start, ls + prefixed.end
            if prefixed.panic_header:
                group = self._group(doc_index, ce, ce, None, prefixed.frame or inherited)
                lines.append(Line(ls, le, ce, ce, group))
                state = "panic"
                continue
            group = self._group(doc_index, cs, ce, prefixed.exception, prefixed.frame or inherited)
            lines.append(Line(ls, le, cs, ce, group))
            debug_at(cs, group)
        self.docs[doc_index] = Doc(text, tuple(lines), tuple(line.start for line in lines), pieces)
        for value, value_group in values:
            self._visit(value, doc_index, value_group, depth, top=True)

    def _set(
        self, group: int, start: int | None = None, end: int | None = None, debug: bool = False
    ) -> None:
        old = self.groups[group]
        self.groups[group] = Group(
            old.index,
            old.doc,
            old.start if start is None else start,
            old.end if end is None else end,
            old.exception,
            old.frame,
            old.debug or debug,
            old.cause,
        )

    def _visit(
        self,
        value: DebugValue,
        doc_index: int,
        group: int,
        depth: int,
        top: bool = False,
        wrapper: str | None = None,
        field: str | None = None,
        cause: bool = False,
    ) -> None:
        if value.kind == "str":
            if top or wrapper in MESSAGE_WRAPPERS or field in MESSAGE_FIELDS:
                self._derive(value, doc_index, group, depth, cause)
            return
        if value.name and value.kind in ("struct", "variant") and len(self.debug) < _MAX_DEBUG_HITS:
            self.debug.append(DebugHit(value, doc_index, group))
        for key, child in value.fields:
            self._visit(child, doc_index, group, depth, wrapper=value.name, field=key,
                        cause=cause or key in CAUSE_FIELDS)

    def _derive(
        self, value: DebugValue, doc_index: int, group: int, depth: int, cause: bool = False
    ) -> None:
        if depth >= _MAX_DEPTH or not value.string or not value.string.strip():
            return
        parent = self.docs[doc_index]
        pieces = tuple(
            (string_off, parent.to_original(doc_off)) for string_off, doc_off in value.string_pieces
        )
        first = len(self.groups)
        self.add_doc(value.string, pieces, self.groups[group].frame, depth + 1)
        if cause:  # anyhow's `Context { context: .., source: .. }`: the source is a cause
            for g in self.groups[first:]:
                self.groups[g.index] = replace(g, cause=True)


def parse_paste(text: str) -> Paste:
    """Split pasted text into the messages it holds and what the text says about each."""
    builder = _Builder()
    builder.debug_budget = 4 * len(text) + 100_000  # failed parses can't add up to quadratic
    if "\r\n" in text:
        pieces = [(0, 0)]
        for removed, m in enumerate(re.finditer("\r\n", text), start=1):
            pieces.append((m.end() - removed, m.end()))
        builder.add_doc(text.replace("\r\n", "\n"), tuple(pieces))
    else:
        builder.add_doc(text, ((0, 0),))
    return Paste(tuple(builder.docs), tuple(builder.groups), tuple(builder.debug))
