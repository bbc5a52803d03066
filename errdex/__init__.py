"""errdex: explain any library's errors from its own source code.

The public API: resolve a source into snapshots, index them into a store, and explain
pasted text against what is indexed.
"""

import importlib
from typing import TYPE_CHECKING, Any

from errdex.errors import (
    ConfigError,
    EmptyInputError,
    ErrdexError,
    NotFoundError,
    SourceError,
    StoreError,
    UsageError,
)

if TYPE_CHECKING:
    from errdex.index import index_snapshot
    from errdex.match import MatchEntry, Matcher, load_matcher
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
    from errdex.service import explain_text
    from errdex.source.resolve import SourceOptions, resolve
    from errdex.store import SQLiteStore

# Imported on first use, so `import errdex.hook` (run at every interpreter start by the
# hook's sitecustomize recipe) doesn't load the matcher, SQLite and tree-sitter.
_LAZY = {
    **dict.fromkeys(
        ("Explanation", "Language", "Match", "Placeholder", "Record", "Site", "SiteKind",
         "Snapshot", "Template"),
        "errdex.models",
    ),
    "explain_text": "errdex.service", "load_matcher": "errdex.match",
    "index_snapshot": "errdex.index", "MatchEntry": "errdex.match", "Matcher": "errdex.match",
    "SourceOptions": "errdex.source.resolve", "resolve": "errdex.source.resolve",
    "SQLiteStore": "errdex.store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'errdex' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

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
