"""`errdex`'s public names are what `__all__` says, each one importable, and importing
the package stays cheap (the hook's sitecustomize recipe imports it in every process)."""

from __future__ import annotations

import subprocess
import sys

import errdex

# What users are promised: a name leaving this list is a breaking change, said in its commit.
PUBLIC = {
    "ConfigError", "EmptyInputError", "ErrdexError", "Explanation", "Language", "Match",
    "MatchEntry", "Matcher", "NotFoundError", "Placeholder", "Record", "SQLiteStore", "Site",
    "SiteKind", "Snapshot", "SourceError", "SourceOptions", "StoreError", "Template",
    "UsageError", "explain_text", "index_snapshot", "load_matcher", "resolve",
}


def test_all_is_the_public_api_and_every_name_resolves() -> None:
    assert set(errdex.__all__) == PUBLIC
    assert len(errdex.__all__) == len(PUBLIC)
    for name in errdex.__all__:
        assert getattr(errdex, name) is not None, name


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from errdex import *", namespace)
    assert set(namespace) - {"__builtins__"} == PUBLIC


def test_errors_share_one_root() -> None:
    for name in PUBLIC:
        value = getattr(errdex, name)
        if isinstance(value, type) and name.endswith("Error"):
            assert issubclass(value, errdex.ErrdexError), name


def test_importing_errdex_or_the_hook_loads_no_parser_store_or_matcher() -> None:
    code = ("import sys, errdex, errdex.serve.hook; heavy = [m for m in ('tree_sitter', 'sqlite3', "
            "'errdex.match', 'errdex.store', 'ahocorasick_rs') if m in sys.modules]; "
            "print(','.join(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == ""
