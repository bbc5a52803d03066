"""How the CLI shows things on a terminal: records, matches, listings, summaries and
progress. Plain text that reads well piped; colour only on a terminal, and never when
NO_COLOR is set (FORCE_COLOR forces it).

Everything errdex prints comes from code it indexed or text a user pasted, and either may
carry terminal control sequences (a message with `\x1b]52;...` writes the clipboard, a
file name with `\x1b[2J` clears the screen, a bidi override reorders what is read).
`safe` is the one place that makes such text inert: every control character but newline
and tab, every C1 control, the bidi overrides and any lone surrogate are shown as a
visible escape (`\x1b`, `\u202e`) instead. `write`, `error_line`, `Progress` and the
hook all go through it, and the CLI cleans the data it renders (`clean`) before styling
it, so the only escape sequences that reach a terminal are `Style`'s own. `json_text` is
the same rule for JSON output.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from errdex import sections
from errdex.models import IndexSummary, RecordVersion

# C0 controls but tab and newline, DEL, C1 controls, the bidi embeddings, overrides and
# isolates, the line/paragraph separators, and lone surrogates (invalid UTF-8 from argv).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_UNSAFE_LINE = re.compile(_UNSAFE.pattern[:-1] + "\n\t]")  # one-line output: these too
# The only escape sequences printed on purpose: Style's (bold, dim, accent, reset).
_STYLE_CODES = ("0", "1", "2", "36")
_STYLED = re.compile("(\x1b\\[(?:" + "|".join(_STYLE_CODES) + ")m)")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, *, one_line: bool = False) -> str:
    """`text` with every character that could drive a terminal shown as a visible
    escape; with `one_line`, newlines and tabs too. Idempotent: the escapes it writes are
    plain printable characters."""
    return (_UNSAFE_LINE if one_line else _UNSAFE).sub(_escape, text)


def safe_styled(text: str) -> str:
    """`safe`, keeping Style's own escape sequences (which only ever wrap text that
    `clean` or `safe` made inert already)."""
    parts = _STYLED.split(text)
    return "".join(part if k % 2 else safe(part) for k, part in enumerate(parts))


def clean(data: Any) -> Any:
    """A copy of JSON-shaped data with every string (keys too) made `safe`: what the
    text renderers are given, so nothing they print from a record can drive a terminal."""
    if isinstance(data, str):
        return safe(data)
    if isinstance(data, dict):
        return {clean(k): clean(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [clean(v) for v in data]
    return data


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(data: Any) -> str:
    """JSON with non-ASCII text kept readable but no raw C1 control, bidi control or lone
    surrogate: `json.dumps(ensure_ascii=False)` escapes only C0. Outside strings JSON is
    ASCII, so every character replaced here is inside a string, and the escape decodes
    back to the same text."""
    return _JSON_UNSAFE.sub(_json_escape, json.dumps(data, ensure_ascii=False))


def error_line(message: str) -> str:
    """The one line errdex prints on stderr for a failure; the message may quote file
    names or pasted text."""
    return "errdex: " + safe(message, one_line=True)


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


class Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def accent(self, text: str) -> str:
        return self._wrap("36", text)


class Progress:
    """One self-overwriting status line on a terminal; silent when not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self._last = 0.0

    def __call__(self, stage: str, done: int, total: int, found: str = "") -> None:
        now = time.monotonic()
        if not self.enabled or (done < total and now - self._last < 0.1):
            return
        self._last = now
        tail = f" · {found}" if found else ""
        self.stream.write("\r\x1b[K" + safe(f"{stage}: {done}/{total}{tail}", one_line=True))
        self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def summary_text(summary: IndexSummary, style: Style) -> str:
    repo = safe(summary.repo)
    kinds = ", ".join(f"{kind} {count}" for kind, count in summary.sites_by_kind) or "none"
    skipped = ", ".join(f"{reason} {count}" for reason, count in summary.skipped) or "none"
    sites = sum(count for _, count in summary.sites_by_kind)
    at = f" @ {summary.commit[:10]}" if summary.commit else ""
    lines = [
        style.bold(f"{repo}{safe(at)}"),
        f"  files read   {summary.files_read}" + (
            f" ({summary.extra['files_reused']} unchanged, not parsed again)"
            if summary.extra.get("files_reused") else ""),
        f"  skipped      {skipped}",
        f"  sites        {sites} ({kinds})",
        f"  no literal   {summary.dynamic_sites} sites raise a message with no fixed text",
        f"  records      {summary.records}",
        f"  time         {summary.seconds:.1f}s",
    ]
    if summary.helpers:
        lines.insert(5, "  helpers      " + _helpers_text(summary.helpers))
    return "\n".join(lines)


_HELPERS_SHOWN = 12  # helpers named one by one in the summary; the rest are counted


def _helpers_text(helpers: tuple[str, ...]) -> str:
    """The error helpers the index found in the code (their calls are sites)."""
    named = ", ".join(safe(h, one_line=True) for h in helpers[:_HELPERS_SHOWN])
    more = len(helpers) - _HELPERS_SHOWN
    return f"{len(helpers)} found in the code: {named}" + (f", and {more} more" if more > 0
                                                            else "")


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def record_text(
    record: dict[str, Any], style: Style, *, full: bool = True, focus: int | None = None
) -> str:
    """A record as text; `focus` is the site a pasted traceback points at: listed first
    and marked, because of several places that raise a message it is the one hit."""
    lines = [style.bold(record["message"])]
    where = f"{record['repo']}"
    if record.get("version"):
        where += f" {record['version']}"
    if record.get("commit"):
        where += f" @ {record['commit'][:10]}"
    kind = record["kind"] + (f" {record['exception']}" if record.get("exception") else "")
    lines.append(style.dim(f"{where} · {kind} · id {record['id']}"))
    explanation = record.get("explanation")
    if explanation:
        lines += ["", explanation["summary"]]
    sites = list(enumerate(record["sites"]))
    if focus is not None and 0 <= focus < len(sites):
        sites.insert(0, sites.pop(focus))
    for index, site in sites:
        function = f" in {site['function']}" if site.get("function") else ""
        where = style.accent(f"{site['path']}:{site['line']}")
        yours = " (your traceback)" if index == focus and len(sites) > 1 else ""
        lines.append(f"  thrown at {where}{function}{yours}")
        if site.get("guard"):
            lines.append(f"    when {site['guard']}")
        if full and site.get("url"):
            lines.append(style.dim(f"    {site['url']}"))
    if full and explanation:
        title = sections.titles()
        lines += ["", style.bold(title["what_it_means"]),
                  _indent(explanation["what_it_means"], "  ")]
        lines += ["", style.bold(title["solutions"])]
        lines += [f"  {i}. {s}" for i, s in enumerate(explanation["solutions"], 1)]
        fix = explanation["example_fix"]
        lines += ["", style.bold(title["example_fix"])]
        for part in sections.BY_NAME["example_fix"].parts:
            lines += [f"  {part.title.lower()}:", _indent(fix[part.name])]
        lines += ["", style.bold(sections.BY_NAME["trigger"].group),
                  _indent(explanation["trigger"], "  ")]
        if explanation["prevention"]:
            lines += ["", style.bold(title["prevention"])]
            lines += [f"  - {p}" for p in explanation["prevention"]]
    if full and record.get("failure_class"):
        lines += ["", f"Failure class: {record['failure_class']['title']}"]
    if full and record.get("related"):
        lines += ["", style.bold("Related errors")]
        lines += [f"  {r['id']}  {r['message']}  ({r['reason']})" for r in record["related"]]
    return "\n".join(lines)


def explain_text(result: dict[str, Any], style: Style) -> str:
    blocks = []
    for i, match in enumerate(result["matches"], 1):
        record = match["record"]
        label = "match" if match["exact"] else "closest (not exact)"
        head = style.dim(f"[{i}] {label}, score {match['score']:.2f}")
        block = [head, record_text(record, style, full=False, focus=match.get("site_index"))]
        if match["values"]:
            block.append("  your values: " + ", ".join(
                f"{name} = {value}" for name, value in match["values"].items()))
        explanation = record.get("explanation")
        if explanation and explanation["solutions"]:
            block.append("  try:")
            block += [f"    - {s}" for s in explanation["solutions"][:3]]
        block.append(style.dim(f"  more: errdex show {record['id']}"))
        blocks.append("\n".join(block))
    return "\n\n".join(blocks)


def listing_text(rows: Sequence[dict[str, Any]], style: Style) -> str:
    lines = []
    for row in rows:
        exception = f" {row['exception']}" if row.get("exception") else ""
        more = f" (+{row['site_count'] - 1} more)" if row.get("site_count", 1) > 1 else ""
        lines.append(f"{row['id']}  {style.dim(row['kind'] + exception)}  {row['message']}")
        lines.append(style.dim(f"    {row['repo']} {row['path']}:{row['line']}{more}"))
    return "\n".join(lines)


def write(text: str, stream: TextIO = sys.stdout) -> None:
    """Print rendered text: every line errdex prints on stdout goes through here."""
    if text:
        stream.write(safe_styled(text) + "\n")


def versions_line(versions: Sequence[RecordVersion]) -> str:
    """In which indexed versions a record's message is, oldest first: `1.0, 2.0 (sites
    changed); removed in 3.0; not in 0.9`."""
    def label(v: RecordVersion) -> str:
        return v.ref[:12] or "(working tree)"

    held = [label(v) + (" (sites changed)" if v.changed else "")
            for v in versions if v.status == "current"]
    parts = [f"in versions: {', '.join(held) or 'none'}"]
    for status, words in (("removed", "removed in"), ("absent", "not in")):
        named = [label(v) for v in versions if v.status == status]
        if named:
            parts.append(f"{words} {', '.join(named)}")
    return "; ".join(parts)
