"""Building a Matcher from what a store holds: every match entry of every snapshot, or the
matcher the store saved for exactly those snapshots.

The one place a surface turns a store into a matcher (`errdex.service`, the CLI, the web
app). It asks the store only for what it needs, through the methods below, so it imports
no backend and runs no SQL; choosing which entries to load for one text is the store's
business (`errdex.store.keys`), not this module's.

A matcher built here is saved in the store (`errdex.match.saved`), tagged with the
store's matcher state; the next process that loads the same snapshots reads it back
instead of compiling every template again. A re-index changes the state (and the store
drops what was saved), so a saved matcher is never served for other snapshots; one that
can't be read is rebuilt, with a one-line note.
"""

from __future__ import annotations

import logging
from typing import Protocol, runtime_checkable

from errdex.errors import StoreError
from errdex.match.matcher import Matcher
from errdex.match.saved import SavedMatcherError, dump_matcher, load_saved
from errdex.models import MatchEntry

log = logging.getLogger("errdex.match")


class EntrySource(Protocol):
    """What load_matcher needs of a store (any object that lists its entries will do)."""

    def match_entries(self) -> list[MatchEntry]: ...


@runtime_checkable
class SavingSource(EntrySource, Protocol):
    """A store that also keeps a saved matcher (every backend)."""

    def matcher_state(self) -> str: ...

    def saved_matcher(self, state: str) -> bytes | None: ...

    def save_matcher(self, state: str, data: bytes) -> bool: ...


def load_matcher(store: EntrySource, *, save: bool = True) -> Matcher:
    """A matcher over every template the store holds: the saved one when it was saved for
    the store's current snapshots, else built (and, with `save`, saved for next time)."""
    if not isinstance(store, SavingSource):
        return Matcher(store.match_entries())
    state = store.matcher_state()
    data = store.saved_matcher(state)
    if data is not None:
        try:
            return load_saved(data, state)
        except SavedMatcherError as exc:
            if not exc.stale:
                log.warning("errdex: %s: building it again", exc.message)
    matcher = Matcher(store.match_entries())
    if save:
        try:
            store.save_matcher(state, dump_matcher(matcher, state))
        except StoreError as exc:  # locked by a writer, a full disk: next time, then
            log.info("errdex: the matcher was not saved: %s", exc.message)
    return matcher
