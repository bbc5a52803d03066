"""Stage 1, what to read: a directory, a git URL@ref, `py:DIST`, `py:stdlib`, resolved
into snapshots; and the one module that runs git."""
