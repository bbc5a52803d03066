"""errdex.memory: freed C-heap memory goes back to the system."""

from __future__ import annotations

import platform
import sys

import pytest

from errdex.memory import release_free_memory


def resident_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_memory_freed_between_live_blocks_is_given_back() -> None:
    """100 MB in 4 kB blocks (the C heap's, not mapped one by one), one in a hundred kept:
    the free space between the survivors stays resident until it is released."""
    blocks = [bytes(4000 + k % 7) for k in range(25_000)]
    survivors = blocks[::100]
    del blocks
    before = resident_kb()
    assert release_free_memory()
    assert resident_kb() < before - 50_000
    assert all(not any(block) for block in survivors)  # what is in use is untouched
