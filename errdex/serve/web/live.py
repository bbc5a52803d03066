"""What a server serves, kept fresh: the matcher and the snapshots it was built from, and
one store connection per worker thread (SQLite or PostgreSQL: `errdex.store.open_store`).

A re-index (`errdex index` from another process) commits new records while the server
runs. A watcher thread asks the store every RELOAD_CHECK_SECONDS whether another connection
has committed (`Store.data_version`: in SQLite one pragma, no table read), and if so builds a new
matcher on that thread, off the event loop, then swaps it in as one object: a request sees
the old matcher and snapshots or the new ones, never a mix. Until the swap, a match of a
record the re-index removed is dropped (`errdex.service.explain_text`), never a 404 or a stale
page. Requests find records through a per-thread `errdex.service.Explainer` over the
served matcher.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from errdex.errors import ErrdexError
from errdex.match import Matcher
from errdex.models import Repository
from errdex.serve.web.views import Health, ServedSnapshot
from errdex.service import Explainer, MatcherMode
from errdex.store import Store, is_url, open_store, store_name

RELOAD_CHECK_SECONDS = 1.0
log = logging.getLogger("errdex.serve.web")


@dataclass(frozen=True)
class Served:
    """One generation of what is served: swapped whole, read without a lock."""

    matcher: Matcher
    snapshots: tuple[Repository, ...]
    generation: int
    loaded_at: str


def _load(store: Store, generation: int) -> Served:
    # The snapshots first: if a re-index lands between the two reads, the matcher is the
    # newer, and the next check (which saw the version before both) loads again.
    service = Explainer(store, mode=MatcherMode.KEPT)
    snapshots = tuple(service.snapshots())
    return Served(matcher=service.matcher(), snapshots=snapshots, generation=generation,
                  loaded_at=datetime.now(UTC).isoformat(timespec="seconds"))


class LiveIndex:
    """The served generation of one database, a store per thread, and the watcher."""

    def __init__(self, db_path: str | Path, check_seconds: float = RELOAD_CHECK_SECONDS
                 ) -> None:
        self.db_path = db_path if is_url(db_path) else Path(db_path)
        self.name = store_name(db_path)
        self.check_seconds = check_seconds
        self._local = threading.local()
        self.store_threads: set[int] = set()  # who opened a store: never the event loop's
        self.served = _load(self.store(), 1)
        self.reloading = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def store(self) -> Store:
        """This thread's store. sqlite3 connections are not to be shared between threads
        mid-query (and text search sets a per-connection progress handler), so each worker
        thread of the server opens its own."""
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = open_store(self.db_path, create=False)
            self._local.store = store
            self.store_threads.add(threading.get_ident())
        return store

    def explainer(self) -> Explainer:
        """This thread's service, over its store and the served matcher (whichever
        generation is served when a call starts)."""
        explainer: Explainer | None = getattr(self._local, "explainer", None)
        if explainer is None:
            explainer = Explainer(self.store(), matcher=lambda: self.served.matcher)
            self._local.explainer = explainer
        return explainer

    def start(self) -> None:
        """Start watching (the app's startup); idempotent."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._watch, name="errdex-reload",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching (the app's shutdown) and wait for a reload under way."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None

    def _watch(self) -> None:
        # All of the watcher's SQLite work is on this thread: data_version is only
        # comparable on one connection.
        try:
            store = open_store(self.db_path, create=False)
            version = store.data_version()
            if store.repos() != list(self.served.snapshots):  # re-indexed since __init__
                version = -1
        except ErrdexError as exc:
            log.warning("errdex: not watching %s for re-indexes: %s", self.name, exc)
            return
        try:
            while True:
                try:
                    version = self.check(store, version)
                except ErrdexError as exc:
                    log.warning("errdex: cannot reload %s: %s", self.name, exc)
                if self._stop.wait(self.check_seconds):
                    break
        finally:
            store.close()

    def check(self, store: Store, version: int) -> int:
        """Load a new generation if the database changed since `version`; returns the
        version the served generation was loaded at."""
        now = store.data_version()
        if now == version:
            return version
        self.reloading = True
        try:
            self.served = _load(store, self.served.generation + 1)
        finally:
            self.reloading = False
        return now

    def health(self) -> Health:
        """What `/api/health` says: the snapshots served and whether a reload runs."""
        served = self.served
        return Health(
            status="ok", process=os.getpid(), generation=served.generation,
            loaded_at=served.loaded_at, reloading=self.reloading,
            snapshots=tuple(
                ServedSnapshot(repo=s.repo, commit=s.commit_sha, version=s.version,
                               indexed_at=s.indexed_at, records=s.records)
                for s in served.snapshots
            ),
        )

