"""The Python exception hook: an uncaught exception prints its normal traceback, then
errdex's explanation of it from the local database.

The traceback always comes first and is printed by the hook that was installed before
(normally Python's own), so errdex can never hide or change it: everything errdex does
afterwards runs under a catch-all and at worst adds one line saying it could not explain.
Importing this module costs nothing beyond `sys`; the matcher, the store and the key
index are imported only when an exception actually reaches the hook, and only the
templates the traceback's words select are loaded (`errdex.matchindex`).

    import errdex.hook; errdex.hook.install()

or, for every Python process, `ERRDEX_HOOK=1` with the `sitecustomize` recipe in the
README, or `python -m errdex run script.py [args]`.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO

ENV_VAR = "ERRDEX_HOOK"
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


def explain_exception(
    value: BaseException, tb: TracebackType | None, out: TextIO, db: str | None = None
) -> None:
    """Write errdex's explanation of an exception that was already printed. Never raises
    (except KeyboardInterrupt and SystemExit raised while it runs)."""
    try:
        import traceback

        text = "".join(traceback.format_exception(type(value), value, tb))
        block = explanation_text(text, db)
    except Exception as exc:  # the user's error must stay what they see
        block = f"errdex: could not explain this error ({type(exc).__name__}: {exc})"
    try:
        if block:
            out.write("\n" + block + "\n")
            out.flush()
    except Exception:  # stderr is gone: nothing left to tell
        pass


def explanation_text(text: str, db: str | None = None) -> str:
    """The block the hook prints for a formatted traceback; "" when nothing matched."""
    from errdex import settings
    from errdex.match import Matcher
    from errdex.matchindex import matcher_for_text
    from errdex.store import SQLiteStore

    path = settings.database_path(db)
    with SQLiteStore(path, create=False) as store:
        matcher = matcher_for_text(store, text) or Matcher(store.match_entries())
        matches = [m for m in matcher.match(text, limit=3) if m.exact]
        if not matches:
            return f"errdex: no indexed error matches this exception ({path})"
        best = matches[0]
        record = store.record_dict(best.record_id)
    return _render(record, best.values, best.site_index, best.why)


def _render(
    record: dict[str, Any], values: tuple[tuple[str, str], ...], site_index: int | None,
    why: str,
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
        lines.append("  your values: " + ", ".join(f"{k} = {v}" for k, v in values))
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
