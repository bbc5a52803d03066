"""Explain pasted text: find the records it contains and return them in the JSON shape
of `explain --json` (`{"input", "matches": [{"id", "score", "exact", "values", "span",
"record"}]}`), the one shape the CLI, the API and the hook all use.
"""

from __future__ import annotations

from typing import Any

from errdex.errors import EmptyInputError, UsageError
from errdex.match import Matcher
from errdex.models import Match
from errdex.store import SQLiteStore

MAX_INPUT_CHARS = 50_000_000


def load_matcher(store: SQLiteStore) -> Matcher:
    return Matcher(store.match_entries())


def match_to_dict(match: Match, record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": match.record_id,
        "score": round(match.score, 4),
        "exact": match.exact,
        "values": dict(match.values),
        "span": list(match.span),
        "why": match.why,
        "site_index": match.site_index,
        "record": record,
    }


def explain_text(
    store: SQLiteStore, matcher: Matcher, text: str, limit: int = 5
) -> dict[str, Any]:
    if not text.strip():
        raise EmptyInputError("nothing to explain: the input is empty")
    if len(text) > MAX_INPUT_CHARS:
        raise UsageError(f"input too large: over {MAX_INPUT_CHARS:,} characters")
    matches = matcher.match(text, limit=limit)
    return {
        "input": text,
        "matches": [match_to_dict(m, store.record_dict(m.record_id)) for m in matches],
    }
