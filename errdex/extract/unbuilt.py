"""Files no build of the library compiles, dropped after extraction: what the files
themselves say is left out (errdex.extract.structure's `test_only`: Rust's
`#[cfg(test)] mod tests;` keeps `src/tests.rs` out of every build but the tests')."""

from __future__ import annotations

from collections.abc import Sequence

from errdex.models import FileExtraction

NOT_BUILT = "not built"


def drop_unbuilt(extractions: Sequence[FileExtraction]) -> tuple[list[FileExtraction], int]:
    """The extractions of built files, and how many were dropped as not built."""
    test_only = {path for e in extractions if e.structure is not None
                 for path in e.structure.test_only}  # fmt: skip
    kept = [e for e in extractions if e.structure is None or e.structure.path not in test_only]
    return kept, len(extractions) - len(kept)
