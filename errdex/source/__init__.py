"""Stage 1, what to read: a directory, a git URL@ref, `py:DIST`, `py:stdlib`, `npm:PKG`,
resolved into snapshots; the lock files that list many (`cargo.py`, `npm.py`); and the one
module that runs git."""
