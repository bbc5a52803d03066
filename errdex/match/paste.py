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

from errdex.match.frames import OUTPUT_FRAMES, output_frame
from errdex.match.prefixes import PREFIX_RULES, Frame, PrefixRule, prefix_span, strip_prefixes
from errdex.match.rust_debug import MAX_DEBUG_CHARS, DebugParser, DebugValue, parse_debug

__all__ = [
    "PREFIX_RULES",
    "DebugHit",
    "DebugValue",
    "Doc",
    "Frame",
    "Group",
    "Line",
    "Paste",
    "PrefixRule",
    "parse_debug",
    "parse_paste",
    "strip_prefixes",
]

# --- rules, as data ----------------------------------------------------------------------

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
# A frame of a Java stack trace (`\tat com.x.Shape.reshape(Shape.java:30)`, with a jar
# after it in logback's form `~[gridlib-1.2.0.jar:1.2.0]`), a frame with no file line
# (`(Native Method)`), or the count of frames left out (`... 12 more`).
JAVA_FRAME = re.compile(
    r"[ \t]*(?:at (?P<where>[\w$.<>/@-]{1,500})\((?:(?P<file>[\w$.-]{1,200}\.(?:java|kt|scala"
    r"|groovy)):(?P<line>\d{1,9})|[^()\n]{0,200})\)(?:[ \t]+~?\[[^\]\n]{0,300}\])?"
    r"|\.\.\. \d{1,9} (?:more|common frames omitted))[ \t]*$"
)
# Frames of the JDK and of check helpers: the frame that threw is the first one below them.
JAVA_LIBRARY_FRAME = re.compile(r"(?:java|javax|jdk|sun|com\.sun)\.|com\.google\.common\.base\."
                                r"|org\.apache\.commons\.lang3\.Validate\.")
# A frame of a traceback `rich` draws in a box: `│ /srv/app/x.py:12 in load   │`.
RICH_FRAME = re.compile(r"│ (?P<path>[^\s│]+\.py):(?P<line>\d+) in ")
# A traceback pasted indented as a whole (a quote, a tab before every line): its final
# exception line is indented too, but less than the code lines the frames quote.
QUOTED_EXCEPTION = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit):")
CAUSE_INDEX = re.compile(r"[ \t]+(?:\d+:[ \t]+)?")
PANIC_NOTE = re.compile(r"note: |stack backtrace:")
# Lines that are never messages, wherever they appear.
STRUCTURE_LINE = re.compile(
    r"[ \t]*(?:note: run with `RUST_BACKTRACE|note: Some details are omitted"
    r"|\[Previous line repeated \d+ more times?\])"
)

# Where a Rust Debug value may start: `Name(`, `Name {`, `Name [`, or a quoted string.
DEBUG_START = re.compile(r"[A-Z]\w*[ \t]*[({\[]|\"")
# A Debug value further inside a message: `Name {` or `Name(` after a space, a colon,
# an opener or a quote (`err="Variant { .. }"`).
_CODE_BEFORE = re.compile(r"(?:\bnew|\bthrow|\braise)\s+$")  # `throw new E(..)`: source
LATE_DEBUG = re.compile(r"(?<=[\s:(,=\"])[A-Z]\w*(?:::[A-Z]\w*)*(?: \{|\()")
# Debug wrappers whose string is the message, and struct fields holding one.
# `Error("msg", line: 1, column: 4)`: serde_json's, and any newtype error around a String.
MESSAGE_WRAPPERS = frozenset({"Msg", "Message", "Custom", "Other", "Context", "Any", "Error"})
MESSAGE_FIELDS = frozenset({"context", "message", "msg", "reason", "description"})
CAUSE_FIELDS = frozenset({"source", "cause", "inner_error"})

_MAX_DEPTH = 3  # derived docs inside derived docs
_MAX_DEBUG_HITS = 1_000


# --- data --------------------------------------------------------------------------------

# A paste's objects are made anew for every message and never changed once parse_paste
# returns them. They are slotted dataclasses, not frozen ones (a frozen dataclass sets
# each field through object.__setattr__), with an __init__ of their own: mypyc compiles
# that one, while the __init__ @dataclass writes runs as Python, at about 7 times the
# cost. tests/test_compiled.py holds each __init__ to the dataclass's fields.


@dataclass(slots=True)
class Line:
    """A physical line of a Doc; `group` is -1 for lines that are structure (traceback
    frames, code, carets, headers), not message text."""

    start: int
    end: int
    content_start: int  # after recognised prefixes and indentation
    content_end: int
    group: int

    def __init__(
        self, start: int, end: int, content_start: int, content_end: int, group: int
    ) -> None:
        self.start = start
        self.end = end
        self.content_start = content_start
        self.content_end = content_end
        self.group = group


@dataclass(slots=True)
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

    def __init__(
        self, index: int, doc: int, start: int, end: int, exception: str | None,
        frame: Frame | None, debug: bool = False, cause: bool = False
    ) -> None:
        self.index = index
        self.doc = doc
        self.start = start
        self.end = end
        self.exception = exception
        self.frame = frame
        self.debug = debug
        self.cause = cause


@dataclass(slots=True)
class Doc:
    text: str
    lines: tuple[Line, ...]
    line_starts: tuple[int, ...]
    pieces: tuple[tuple[int, int], ...]  # (doc offset, original offset), sorted

    def __init__(
        self, text: str, lines: tuple[Line, ...], line_starts: tuple[int, ...],
        pieces: tuple[tuple[int, int], ...]
    ) -> None:
        self.text = text
        self.lines = lines
        self.line_starts = line_starts
        self.pieces = pieces

    def line_at(self, pos: int) -> Line:
        return self.lines[max(0, bisect_right(self.line_starts, pos) - 1)]

    def to_original(self, pos: int) -> int:
        doc_off, orig_off = self.pieces[max(0, bisect_right(self.pieces, (pos, 1 << 62)) - 1)]
        return orig_off + (pos - doc_off)

    def span_to_original(self, start: int, end: int) -> tuple[int, int]:
        # A piece starts right after each escape, so `end` maps past a trailing `\"`.
        return self.to_original(start), self.to_original(max(start, end))


@dataclass(slots=True)
class DebugHit:
    value: DebugValue
    doc: int
    group: int

    def __init__(self, value: DebugValue, doc: int, group: int) -> None:
        self.value = value
        self.doc = doc
        self.group = group


@dataclass(slots=True)
class Paste:
    docs: tuple[Doc, ...]
    groups: tuple[Group, ...]
    debug: tuple[DebugHit, ...]  # every named Debug value (variant or struct), outer first

    def __init__(
        self, docs: tuple[Doc, ...], groups: tuple[Group, ...], debug: tuple[DebugHit, ...]
    ) -> None:
        self.docs = docs
        self.groups = groups
        self.debug = debug


# --- the line scanner --------------------------------------------------------------------


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
        self.groups.append(Group(len(self.groups), doc, start, end, exc, frame, False, cause))
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
        code_indent = 1 << 30  # of the last traceback code line (a frame's source line)
        thrown = -1  # a Java exception's group, until a frame below it says where

        def debug_at(pos: int, group: int) -> None:
            nonlocal skip_until
            if not DEBUG_START.match(text, pos) or self.debug_budget <= 0:
                return
            # Compact Debug is one line; only a line ending in an opener is `{:#?}`.
            newline = text.find("\n", pos)
            limit = len(text) if newline < 0 else newline
            if text[pos:limit].rstrip()[-1:] in ("{", "(", "["):
                limit = len(text)
            limit = min(limit, pos + MAX_DEBUG_CHARS, pos + self.debug_budget)
            parser = DebugParser(text, limit, cut_ok=True)
            value = parser.parse(pos)
            self.debug_budget -= max(1, parser.pos - pos)
            if value is not None:
                # What is left of the message after the value (an old panic's message
                # ends before its `', src/x.rs:1:2`).
                stop = self.groups[group].end
                if value.end > stop:
                    after = text.find("\n", value.end)
                    stop = len(text) if after < 0 else after
                if text[value.end : stop].strip():
                    value = None  # `"writer" must be writable`: a message that starts quoted
                elif value.cut and _inert(value):
                    value = None  # `Expected [58, 35` cut off: no variant to find it by
            if value is not None:
                values.append((value, group))
                skip_until = value.end  # a `{:#?}` value's lines are not messages
                self._set(group, end=max(value.end, self.groups[group].end), debug=True)

        def late_debug(cs: int, ce: int, group: int) -> None:
            """Debug values inside a message (`load failed: Variant { path: \\"a\\" }`,
            a log's quoted string): each a Debug hit, the message still text."""
            for m in LATE_DEBUG.finditer(text, cs + 1, ce):
                if self.debug_budget <= 0 or len(values) >= _MAX_DEBUG_HITS:
                    return
                if _CODE_BEFORE.search(text, max(cs, m.start() - 16), m.start()):
                    continue  # a quoted source line (Node's, above its caret): not printed
                parser = DebugParser(text, ce, cut_ok=True)
                value = parser.parse(m.start())
                self.debug_budget -= max(1, parser.pos - m.start())
                if value is not None and value.name and value.fields:
                    values.append((value, group))

        start = 0
        for raw in text.split("\n"):
            ls = start
            start += len(raw) + 1
            s = raw[:-1] if raw.endswith("\r") else raw
            le = ls + len(s)
            stripped = s.strip()
            first = s[:1]
            if ls < skip_until or stripped in _HEADERS or (
                first in _STRUCTURE_FIRST and STRUCTURE_LINE.match(s)
            ):
                lines.append(Line(ls, le, ls, le, -1))
                state = _HEADERS.get(stripped, state)
                frames = [] if state == "traceback" and ls >= skip_until else frames
                continue
            if first in _BOX_FIRST:
                # A rich-boxed traceback (`rich.traceback`): its box is structure, its
                # `│ /path/x.py:12 in f` lines are the frames, the exception follows it.
                rich = RICH_FRAME.match(s)
                if rich is not None:
                    if state != "traceback":
                        state, frames = "traceback", []
                    frames.append(Frame(rich.group("path"), int(rich.group("line"))))
                    code_indent = 1 << 30
                if rich is not None or s[:1] in "╭╰" or state == "traceback":
                    state = "traceback" if s[:1] != "╭" else state
                    lines.append(Line(ls, le, ls, le, -1))
                    continue
            java = JAVA_FRAME.match(s) if first in _JAVA_FIRST else None
            if java is not None:
                lines.append(Line(ls, le, ls, le, -1))
                if thrown >= 0 and java.group("file"):
                    frame = _java_frame(java.group("where"), java.group("file"),
                                        int(java.group("line")))
                    if frame is not None:
                        self.groups[thrown] = replace(self.groups[thrown], frame=frame)
                        thrown = -1
                continue
            at = output_frame(s) if OUTPUT_FRAMES and state == "text" else None
            if at is not None:  # a spec's frame line; the top one is where it was thrown
                if group >= 0 and self.groups[group].frame is None and at.path:
                    self.groups[group] = replace(self.groups[group], frame=at)
                lines.append(Line(ls, le, ls, le, -1))
                continue
            frame_match = PYTHON_FRAME.match(s) if first in _STRUCTURE_FIRST else None
            if frame_match is not None:
                if state != "traceback":
                    state, frames = "traceback", []  # a traceback pasted without its header
                frames.append(Frame(frame_match.group("path"), int(frame_match.group("line"))))
                code_indent = 1 << 30
                lines.append(Line(ls, le, ls, le, -1))
                continue
            if state == "traceback":
                indent = len(s) - len(s.lstrip(" \t"))
                if not stripped or (s[0] in " \t" and not (
                    0 < indent < code_indent and QUOTED_EXCEPTION.match(s, indent)
                )):  # code, carets, "[Previous line repeated]"
                    if stripped and frames:
                        code_indent = indent
                    lines.append(Line(ls, le, ls, le, -1))
                    continue
                exc_line = PYTHON_EXCEPTION_LINE.match(s, indent)
                if exc_line is not None:
                    rest = exc_line.group("rest")
                    cs = ls + (exc_line.start("rest") if rest is not None else len(s))
                    frame = frames[-1] if frames else None
                    group = self._group(doc_index, cs, le, exc_line.group("exc"), frame)
                    lines.append(Line(ls, le, cs, le, group))
                    state = "message"
                    continue
                state = "text"
            if state == "message" and not stripped:
                # A blank line inside an exception's message (a paragraph break of a
                # multi-line literal) when the message goes on indented after it.
                following = _next_nonblank(text, start)
                if following is not None and following[:1] in (" ", "\t") and not (
                    PYTHON_FRAME.match(following)
                ):
                    lines.append(Line(ls, le, ls, le, -1))
                    continue
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
            # The Java frames below an exception's line say where it was thrown.
            thrown = group if prefixed.exception is not None and prefixed.frame is None else -1
            if prefixed.exception is not None and cs >= ce:
                state = "message"  # `RuntimeError:` alone: its message is on the lines below
                continue
            debug_at(cs, group)
            if not self.groups[group].debug:
                late_debug(cs, ce, group)
        line_starts = tuple([line.start for line in lines])
        self.docs[doc_index] = Doc(text, tuple(lines), line_starts, pieces)
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


def _java_frame(where: str, file: str, line: int) -> Frame | None:
    """Where a Java frame points, as a path: the class's package folders and its file
    (`com.x.Shape.reshape` in `Shape.java` -> `com/x/Shape.java`); None for a frame of the
    JDK or a check helper (the frame that threw is further down)."""
    where = where.rsplit("/", 1)[-1]  # `java.base/java.util.Objects..`, `app//com.x..`
    if JAVA_LIBRARY_FRAME.match(where):
        return None
    package = []
    for part in where.split(".")[:-1]:
        if not part[:1].islower():
            break
        package.append(part)
    return Frame("/".join([*package, file]), line)


def _next_nonblank(text: str, pos: int) -> str | None:
    """The first line at or after `pos` with something on it (at most a few lines on)."""
    for _ in range(8):
        if pos >= len(text):
            return None
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if line.strip():
            return line
        pos = end + 1
    return None


def parse_paste(text: str) -> Paste:
    """Split pasted text into the messages it holds and what the text says about each."""
    if "\n" not in text:
        one_line = _parse_one_line(text)
        if one_line is not None:
            return one_line
    return _parse_general(text)


def _parse_general(text: str) -> Paste:
    """Any paste: the line scanner, with tracebacks, causes, panics and Debug values."""
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


# Characters a line's first character must be for STRUCTURE_LINE or PYTHON_FRAME to match,
# and a message's first character for DEBUG_START to.
_STRUCTURE_FIRST = frozenset(" \tn[F")
_JAVA_FIRST = frozenset(" \ta.")  # a Java frame line's first character
_BOX_FIRST = frozenset("╭╰│")  # the first character of a rich traceback's box lines
_DEBUG_FIRST = frozenset('"ABCDEFGHIJKLMNOPQRSTUVWXYZ')
_DEBUG_LAST = frozenset(')]}"')
_ONE_PIECE = ((0, 0),)
_FIRST_LINE = (0,)


def _parse_one_line(text: str) -> Paste | None:
    """What `_parse_general` gives for a text without a line break (most pastes, every
    line of a log), or None where it is not that simple: a Rust Debug value. This is the
    general scanner's first line in its first state, with the tests that cannot match
    skipped by their first character; tests/test_paste.py holds the two to the same
    result on thousands of generated lines."""
    s = text[:-1] if text.endswith("\r") else text
    if s[:1] in _BOX_FIRST:
        return None  # a line of a rich traceback's box: the general scanner's
    le = len(s)
    stripped = s.strip()
    if (
        not stripped
        or stripped in _HEADERS
        or (
            s[0] in _STRUCTURE_FIRST
            and (STRUCTURE_LINE.match(s) is not None or PYTHON_FRAME.match(s) is not None)
        )
        or (s[0] in _JAVA_FIRST and JAVA_FRAME.match(s) is not None)
    ):
        doc = Doc(text, (Line(0, le, 0, le, -1),), _FIRST_LINE, _ONE_PIECE)
        return Paste((doc,), (), ())
    start, end, exception, frame, panic_header = prefix_span(s)
    if (text[start : start + 1] in _DEBUG_FIRST and text.rstrip()[-1:] not in _DEBUG_LAST
            and DEBUG_START.match(text, start)):
        return None  # maybe a Debug value cut off at the end: the general scanner's
    if ("(" in text or "{" in text) and LATE_DEBUG.search(text, start + 1, end):
        return None  # a Debug value inside the message: the general scanner's
    if panic_header:
        group = Group(0, 0, end, end, None, frame, False, False)
        line = Line(0, le, end, end, 0)
    else:
        debug, group_end = False, end
        if (
            text[start : start + 1] in _DEBUG_FIRST
            and text.rstrip()[-1:] in _DEBUG_LAST
            and DEBUG_START.match(text, start)
        ):
            # As `debug_at` on the only line: a value that parses and ends the line is
            # Debug, and needs the general path if it holds a message or a variant;
            # anything else (`Size [2, 3] out of range`) is plain text.
            # Such a value starts with `Name(`, `Name [`, `Name {` or `"` (DEBUG_START)
            # and ends with its closer, so a line ending otherwise holds none.
            value = DebugParser(text, min(end, start + MAX_DEBUG_CHARS), cut_ok=True).parse(start)
            if value is not None and not text[value.end : end].strip():
                if value.cut or not _inert(value):
                    return None
                # `Expected [58, 35]`: what `debug_at` makes of a value with no string
                # and no struct or variant in it, without reading it a second time.
                debug, group_end = True, max(value.end, end)
        group = Group(0, 0, start, group_end, exception, frame, debug, False)
        line = Line(0, le, start, end, 0)
    return Paste((Doc(text, (line,), _FIRST_LINE, _ONE_PIECE),), (group,), ())


def _inert(value: DebugValue) -> bool:
    """A Debug value that gives the general scanner nothing to look into (`_visit`): no
    string, so no message to unescape, and no struct or variant, so no Debug hit."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node.kind in ("str", "struct", "variant"):
            return False
        stack.extend(child for _, child in node.fields)
    return True
