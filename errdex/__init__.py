"""errdex: explain any library's errors from its own source code.

The public API: resolve a source into snapshots, index them into a store, and explain
pasted text against what is indexed.
"""

from errdex.errors import (
    ConfigError,
    EmptyInputError,
    ErrdexError,
    NotFoundError,
    SourceError,
    StoreError,
    UsageError,
)
from errdex.explain import explain_text, load_matcher
from errdex.indexer import index_snapshot
from errdex.match import MatchEntry, Matcher
from errdex.models import (
    Explanation,
    Language,
    Match,
    Placeholder,
    Record,
    Site,
    SiteKind,
    Snapshot,
    Template,
)
from errdex.source import SourceOptions, resolve
from errdex.store import SQLiteStore

__all__ = [
    "ConfigError",
    "EmptyInputError",
    "ErrdexError",
    "Explanation",
    "Language",
    "Match",
    "MatchEntry",
    "Matcher",
    "NotFoundError",
    "Placeholder",
    "Record",
    "SQLiteStore",
    "Site",
    "SiteKind",
    "Snapshot",
    "SourceError",
    "SourceOptions",
    "StoreError",
    "Template",
    "UsageError",
    "explain_text",
    "index_snapshot",
    "load_matcher",
    "resolve",
]
