"""What one `match` call finds and does before ranking: a `Found` per template occurrence,
and `MatchStats`, the work counted on the way.

Plain records passed between the finding modules (verify, variants, approximate) and
`errdex.match.rank`; they hold no logic beyond the work total.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class MatchStats:
    """The work one `match` call did, for tests and benchmarks that bound it."""

    anchor_hits: int = 0  # automaton hits looked at
    verifications: int = 0  # (candidate, anchor occurrence) pairs verified
    scanned: int = 0  # characters inside search windows and hole checks
    approximate: int = 0  # postings entries read by the nearest-record lookup
    exhausted: bool = False  # the budget ran out: later text was not fully verified

    def __init__(
        self, anchor_hits: int = 0, verifications: int = 0, scanned: int = 0,
        approximate: int = 0, exhausted: bool = False
    ) -> None:
        self.anchor_hits = anchor_hits
        self.verifications = verifications
        self.scanned = scanned
        self.approximate = approximate
        self.exhausted = exhausted

    @property
    def work(self) -> int:
        return self.anchor_hits + self.verifications + self.scanned + self.approximate


@dataclass(slots=True)
class Found:
    """One template found in the paste (exactly, as a Debug value, by its type, or as a
    near miss), before ranking fills `rank`, `why` and `site_index`."""

    entry: int
    exact: bool
    values: tuple[tuple[str, str], ...]
    span: tuple[int, int]
    score: float
    group: int
    detail: str

    rank: tuple[int | float, ...] = ()
    why: str = ""
    site_index: int | None = None
    variant: bool = False  # found as a Rust Debug value, not as text
    order: float = 0.0  # approximate only: share of the template's indexed word pairs kept
    partial: bool = False  # exact, but text is left over on the message's line(s)
    words: tuple[int, int] = (0, 0)  # approximate only: template words kept, of all
    cut: bool = False  # not exact: the text holds the template's beginning (truncated.py)
    covers: float = 0.0  # approximate only: share of the message's words the template holds

    def __init__(
        self, entry: int, exact: bool, values: tuple[tuple[str, str], ...], span: tuple[int, int],
        score: float, group: int, detail: str, rank: tuple[int | float, ...] = (), why: str = "",
        site_index: int | None = None, variant: bool = False, order: float = 0.0,
        partial: bool = False, words: tuple[int, int] = (0, 0), cut: bool = False,
        covers: float = 0.0,
    ) -> None:
        self.entry = entry
        self.exact = exact
        self.values = values
        self.span = span
        self.score = score
        self.group = group
        self.detail = detail
        self.rank = rank
        self.why = why
        self.site_index = site_index
        self.variant = variant
        self.order = order
        self.partial = partial
        self.words = words
        self.cut = cut
        self.covers = covers
