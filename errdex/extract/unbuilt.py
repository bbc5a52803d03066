"""Files no build of the library compiles, dropped after extraction: what the files
themselves say is left out (errdex.extract.structure's `left_out`: Rust's
`#[cfg(test)] mod tests;` keeps `src/tests.rs` out of every build but the tests'), and
what a language's build files leave out (its spec's `unbuilt`: a vendored source beside the
ones a build script compiles)."""

from __future__ import annotations

from collections.abc import Sequence

from errdex.languages import all_specs
from errdex.models import FileExtraction

NOT_BUILT = "not built"


def drop_unbuilt(
    extractions: Sequence[FileExtraction], root: str | None = None
) -> tuple[list[FileExtraction], int]:
    """The extractions of built files, and how many were dropped as not built (`root`,
    the snapshot's tree, is where build files are read; None reads none)."""
    left_out = {path for e in extractions if e.structure is not None
                for path in e.structure.test_only}  # fmt: skip
    paths = [e.structure.path for e in extractions if e.structure is not None]
    for spec in all_specs():
        if spec.unbuilt is not None and root is not None:
            left_out |= spec.unbuilt(root, paths)
    kept = [e for e in extractions if e.structure is None or e.structure.path not in left_out]
    return kept, len(extractions) - len(kept)
