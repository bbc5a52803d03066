"""errdex's own exceptions: one tree, so the CLI and the API each turn any failure into
one line (or one JSON shape) and the right exit status.

    ErrdexError                    exit 1 unless said otherwise
    ├── UsageError                 bad arguments or input (exit 2)
    │   └── EmptyInputError        nothing to explain
    ├── SourceError                a path, URL or distribution that can't be read
    ├── ConfigError                an invalid errdex.toml or setting
    ├── StoreError                 the database can't be opened, read or written
    └── NotFoundError              an unknown record id or repository
"""

from __future__ import annotations


class ErrdexError(Exception):
    exit_code = 1
    http_status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(ErrdexError):
    exit_code = 2
    http_status = 400


class EmptyInputError(UsageError):
    pass


class SourceError(ErrdexError):
    exit_code = 2
    http_status = 400


class ConfigError(ErrdexError):
    exit_code = 2
    http_status = 400


class StoreError(ErrdexError):
    exit_code = 1
    http_status = 503


class NotFoundError(ErrdexError):
    exit_code = 1
    http_status = 404
