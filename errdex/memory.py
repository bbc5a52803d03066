"""Giving memory back: a big build (a matcher of a million templates) frees temporary
data in the C heap that glibc keeps in the process, resident, for later: 140 MB of it
at a million templates. `release_free_memory` asks glibc to return it (`malloc_trim`,
which also releases free pages in the middle of the heap). Best effort: elsewhere it
does nothing, and it never raises. It frees nothing in use, so answers can't change.
"""

from __future__ import annotations

import sys


def release_free_memory() -> bool:
    """Return the C heap's free pages to the system; False where that isn't possible
    (not Linux, or a C library without malloc_trim)."""
    if sys.platform != "linux":
        return False
    import ctypes  # here, not at the top: every `explain` imports this module, few call it

    try:
        trim = ctypes.CDLL(None).malloc_trim
        trim.argtypes = (ctypes.c_size_t,)
        trim.restype = ctypes.c_int
        trim(0)
    except (OSError, AttributeError):
        return False
    return True
