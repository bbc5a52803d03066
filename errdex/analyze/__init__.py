"""Stage 4, facts read from the code: the requirement a guard implies, where guarded values
come from, entry points, tests, history, related errors, failure classes."""
