"""A MatchEntry: what the matcher is built from, one per record a store holds.

Plain data handed in by a store (`Store.match_entries`); nothing here knows how it is
stored or how it is matched. It belongs with the shared types and moves to
`errdex/models.py` with the store's move; `errdex.match.MatchEntry` stays its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from errdex.models import Template


@dataclass(frozen=True)
class MatchEntry:
    record_id: str
    repo: str
    exception: str | None  # "ValueError", "Error::ShapeMismatchBinaryOp", None
    template: Template
    sites: tuple[tuple[str, int], ...]  # (path relative to the repo root, line), in order
    variant: str | None = None  # Rust error variant whose #[error] text is the template
    variant_fields: tuple[str, ...] = ()  # its fields in declared order
    language: str = "python"  # "python" | "rust"
    version: str | None = None  # the indexed snapshot's release version, where known
