"""Objects the cyclic garbage collector need not walk again while a snapshot is built: a
snapshot's extractions are millions of objects in no cycle, which every full collection
would walk again as they accumulate (candle: 5 full collections, 2.2 s of the 3.2 s the
indexing process spent collecting)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_KEEPING: ContextVar[bool] = ContextVar("errdex_uncollected", default=False)


@contextmanager
def uncollected() -> Iterator[None]:
    """Within the block, `keep()` takes every object alive out of the cyclic
    collector's generations (`gc.freeze`), until the block ends (`gc.unfreeze`). Nothing
    is frozen when the process already froze objects of its own: unfreezing would
    release those too."""
    if gc.get_freeze_count() or _KEEPING.get():
        yield
        return
    token = _KEEPING.set(True)
    try:
        yield
    finally:
        _KEEPING.reset(token)
        gc.unfreeze()


def keep() -> None:
    """Every object alive now kept out of collections until `uncollected` ends (outside
    one, nothing)."""
    if _KEEPING.get():
        gc.freeze()
