"""Building a Matcher from what a store holds: every match entry of every snapshot.

The one place a surface turns a store into a matcher (`errdex.service`, the CLI, the web
app). It asks the store only for its entries, through the one method it needs, so it
imports no backend and runs no SQL; choosing which entries to load for one text is the
store's business (`errdex.store.keys`), not this module's.
"""

from __future__ import annotations

from typing import Protocol

from errdex.match.matcher import Matcher
from errdex.models import MatchEntry


class EntrySource(Protocol):
    """What load_matcher needs of a store (every backend has it)."""

    def match_entries(self) -> list[MatchEntry]: ...


def load_matcher(store: EntrySource) -> Matcher:
    """A matcher over every template the store holds."""
    return Matcher(store.match_entries())
