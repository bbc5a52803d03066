"""The Python exception hook: an uncaught exception prints its normal traceback, then
errdex's explanation of it from the local database.

The traceback always comes first and is printed by the hook that was installed before
(normally Python's own), so errdex can never hide or change it: everything errdex does
afterwards runs under a catch-all and at worst adds one line saying it could not explain.
Importing this module costs nothing beyond `sys`; the matcher, the store and the key
index are imported only when an exception actually reaches the hook, and only the
templates the traceback's words select are loaded (`errdex.store.keys`).

    import errdex.hook; errdex.hook.install()

or, for every Python process, `ERRDEX_HOOK=1` with the `sitecustomize` recipe in the
README, or `python -m errdex run script.py [args]`.

The hook runs inside someone else's program, after their error, so it has a budget (about
200 ms, whatever the database or the exception): it matches at most the traceback's last
`MAX_TEXT_CHARS` characters (and of each line its first `MAX_LINE_CHARS`), loads at most
`MAX_CANDIDATES` templates, and only those the key index selects for an exact match (no
key hit means no match: it never compiles every template, and a database without a key
index is not searched at all), and waits at most `LOCK_WAIT` seconds for a database
another process holds locked. Past any of these it gives up with its one line.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO

ENV_VAR = "ERRDEX_HOOK"
MAX_TEXT_CHARS = 64 * 1024  # of the formatted traceback, the end (where its error is)
MAX_LINE_CHARS = 8 * 1024  # of each line, the start (where the message's text is)
MAX_CANDIDATES = 256  # templates loaded from the store for one exception
LOCK_WAIT = 0.05  # seconds to wait for a locked database
_installed: list[Any] = []  # the hook we replaced, while ours is installed


def install(db: str | None = None) -> None:
    """Make uncaught exceptions explain themselves. Idempotent; `db` overrides the
    database path (else `ERRDEX_DB`, else the per-user default)."""
    if _installed:
        return
    previous = sys.excepthook

    def hook(
        kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        previous(kind, value, tb)
        explain_exception(value, tb, sys.stderr, db)

    _installed.append(previous)
    sys.excepthook = hook


def uninstall() -> None:
    if _installed:
        sys.excepthook = _installed.pop()


def install_from_env() -> None:
    """For sitecustomize: install when ERRDEX_HOOK is set to something other than 0."""
    import os

    if os.environ.get(ENV_VAR, "0") not in ("", "0"):
        install()


class HookStats:
    """The work one explanation did: tests bound it by counting, not by the clock."""

    def __init__(self) -> None:
        self.chars = 0  # characters of the traceback matched
        self.entries = 0  # templates loaded from the store


def explain_exception(
    value: BaseException, tb: TracebackType | None, out: TextIO, db: str | None = None,
    stats: HookStats | None = None,
) -> None:
    """Write errdex's explanation of an exception that was already printed. Never raises
    (except KeyboardInterrupt and SystemExit raised while it runs)."""
    try:
        block = explanation_text(bounded_traceback(value, tb), db, stats)
    except Exception as exc:  # the user's error must stay what they see
        from errdex.serve.terminal import safe

        block = safe(f"errdex: could not explain this error ({type(exc).__name__}: {exc})",
                     one_line=True)
    try:
        if block:
            out.write("\n" + block + "\n")
            out.flush()
    except Exception:  # stderr is gone: nothing left to tell
        pass


def bounded_traceback(value: BaseException, tb: TracebackType | None) -> str:
    """The traceback as Python formats it, but only its last MAX_TEXT_CHARS characters
    and of each piece (a frame, the message line) its first MAX_LINE_CHARS: a 50 MB
    message costs no more to look up than a short one."""
    import traceback
    from collections import deque

    kept: deque[str] = deque()
    size = 0
    for piece in traceback.TracebackException(type(value), value, tb).format():
        if len(piece) > MAX_LINE_CHARS:
            piece = piece[:MAX_LINE_CHARS] + "\n"
        kept.append(piece)
        size += len(piece)
        while size > MAX_TEXT_CHARS and len(kept) > 1:
            size -= len(kept.popleft())
    return "".join(kept)[-MAX_TEXT_CHARS:]


def explanation_text(text: str, db: str | None = None, stats: HookStats | None = None) -> str:
    """The block the hook prints for a formatted traceback: the explanation, or one line
    saying why there is none. Only exact matches count, so only the templates the key
    index selects for an exact match are loaded (at most MAX_CANDIDATES)."""
    from errdex import settings
    from errdex.serve.terminal import safe
    from errdex.service import Explainer, MatcherMode, NoKeyIndexError

    stats = stats if stats is not None else HookStats()
    text = text[-MAX_TEXT_CHARS:]
    stats.chars += len(text)
    path = settings.database_path(db)
    with Explainer(path, mode=MatcherMode.KEYED, timeout=LOCK_WAIT,
                   candidate_limit=MAX_CANDIDATES) as explainer:
        try:
            result = explainer.explain(text, limit=3)
        except NoKeyIndexError as exc:
            return safe(f"errdex: {exc.message}", one_line=True)
        finally:
            stats.entries += explainer.entries_loaded
    matches = [m for m in result["matches"] if m["exact"]]
    if not matches:
        return safe(f"errdex: no indexed error matches this exception ({path})", one_line=True)
    best = matches[0]
    return safe(_render(best["record"], best["values"], best["site_index"], best["why"]))


def _render(
    record: dict[str, Any], values: dict[str, str], site_index: int | None, why: str,
) -> str:
    explanation = record.get("explanation") or {}
    sites = record.get("sites") or [{}]
    site = sites[site_index if site_index is not None and site_index < len(sites) else 0]
    lines = [f"errdex: {record.get('repo')} — {record.get('message')}"]
    if explanation.get("summary"):
        lines.append(f"  {explanation['summary']}")
    where = f"{site.get('path')}:{site.get('line')}"
    if site.get("function"):
        where += f" in {site['function']}"
    lines.append(f"  thrown at {where}" + (f" ({site['url']})" if site.get("url") else ""))
    if values:
        lines.append("  your values: " + ", ".join(f"{k} = {v}" for k, v in values.items()))
    for solution in (explanation.get("solutions") or [])[:3]:
        lines.append(f"  - {solution}")
    lines.append(f"  more: errdex show {record.get('id')}")
    return "\n".join(lines)


def run_script(path: str, args: list[str], db: str | None = None) -> int:
    """`python -m errdex run script.py [args]`: run the script as `__main__` in this
    process with the hook's explanation after an uncaught exception. Returns the exit
    status Python itself would give (the script's `sys.exit` code, 1 after a traceback)."""
    import os
    import runpy

    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:  # reported exactly as Python would
        tb = _user_frames(exc.__traceback__, os.path.abspath(path))
        exc.__traceback__ = tb
        sys.__excepthook__(type(exc), exc, tb)
        explain_exception(exc, tb, sys.stderr, db)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    return 0


def _user_frames(tb: TracebackType | None, script: str) -> TracebackType | None:
    """Drop errdex's and runpy's frames above the script's first frame, so the
    traceback reads as if Python had run the script directly."""
    import os

    cursor = tb
    while cursor is not None:
        if os.path.abspath(cursor.tb_frame.f_code.co_filename) == script:
            return cursor
        cursor = cursor.tb_next
    return tb
