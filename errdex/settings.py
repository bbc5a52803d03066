"""Settings, declared once as data: each has a name, an `ERRDEX_*` variable, a default
and help. The CLI makes its flags from this list, and a command-line flag beats the
environment, which beats the default. Nothing is read implicitly from the current
directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import ConfigError


@dataclass(frozen=True)
class Setting:
    name: str
    default: str | int | None
    help: str
    parse: Callable[[str], str | int] = str

    @property
    def env(self) -> str:
        return "ERRDEX_" + self.name.upper()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


SETTINGS: tuple[Setting, ...] = (
    Setting("db", None, "the SQLite database file, or a postgresql:// URL (default: "
            "errdex.sqlite in the user data directory)"),
    Setting("cache_dir", None, "where git URLs are cloned (default: the user cache directory)"),
    Setting("max_file_bytes", 2_000_000, "skip source files larger than this", _positive_int),
    Setting("workers", 0, "processes that parse files (0: one per core, at most 4)",
            _positive_int),
    Setting("header_timeout", 10, "serve: seconds a client has to send a request's headers "
            "before it is disconnected (408)", _positive_int),
    Setting("body_timeout", 30, "serve: seconds a client has to send a request's body after "
            "its headers before it is disconnected", _positive_int),
    Setting("keep_alive_timeout", 5, "serve: seconds an idle keep-alive connection is kept",
            _positive_int),
    Setting("lock_wait", 2, "seconds a reading command waits for a database another "
            "process holds locked, before it fails with one line", _positive_int),
    Setting("max_input_bytes", 50_000_000, "longest text `explain` reads (standard input, "
            "or one --batch line); a longer one is refused unread", _positive_int),
    Setting("file_seconds", 30, "seconds one file's extraction may take; a file over it "
            "is skipped as 'over the time budget'", _at_least_one),
    Setting("max_file_sites", 2_000, "error sites kept per file; the rest are counted as "
            "'sites over the per-file budget'", _at_least_one),
    Setting("max_sites", 50_000, "error sites kept per repository; the rest are counted "
            "as 'sites over the repository budget'", _at_least_one),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def default_int(name: str) -> int:
    """A numeric setting's default, for the module whose limit it is: declared once, here."""
    value = BY_NAME[name].default
    assert isinstance(value, int), name
    return value


def resolve(name: str, flag_value: str | int | None) -> str | int | None:
    """The value of a setting: the flag, else the environment, else the default."""
    setting = BY_NAME[name]
    if flag_value is not None:
        raw: str | int = flag_value
    elif os.environ.get(setting.env):
        raw = os.environ[setting.env]
    else:
        return setting.default
    if isinstance(raw, int):
        return raw
    try:
        return setting.parse(raw)
    except ValueError as exc:
        raise ConfigError(f"{setting.flag} / {setting.env}: invalid value {raw!r}: {exc}") from None


def database_path(flag_value: str | None) -> Path | str:
    """The database to open (`errdex.store.open_store`): a SQLite file's path, or a
    PostgreSQL URL as it was given."""
    value = resolve("db", flag_value)
    if value:
        from errdex.store import is_url

        return str(value) if is_url(str(value)) else Path(str(value)).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("errdex")) / "errdex.sqlite"
