"""What a re-index may keep of the previous analysis, and only where it is provably what
the analysis would compute again.

A record's facts are a function of the record itself (its sites, snippets and lines),
its sibling records, the structure of its sites' files, and four answers about the
rest of the repository: the entry points that reach each site (the call graph), which of
them build the object whose fields a check reads (the receiver's state), the tests that
expect it, and the class its exception is imported as. Its page is a
function of the record, its siblings and its facts (history included). So a record
keeps its previous facts when the record and its siblings are equal to the previous
ones, its files are those the previous analysis read (`Earlier.unchanged`: same
content, by the extraction cache's keys, and the same errdex), and those answers,
asked again of the new repository, equal what the previous facts hold; it keeps its
page too when its history is also unchanged and the page is the facts writer's (an
LLM's page is not what a full index writes). Its failure class reads the record alone:
the same record keeps it. Anything else is analyzed again.

History is git's: for the same stamp (HEAD, tags, shallow boundary) a message's
history along the same files is the same, so a record with the same key and files keeps
it; a new key that no commit ever wrote (git's pickaxe says so) has none; the others are
scanned, alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from errdex.analyze.facts import Builds, FixedBy, receiver_state, site_public
from errdex.extract.structure import FileStructure
from errdex.models import (
    EntryPoint,
    FailureClass,
    History,
    Language,
    Record,
    RecordFacts,
    Site,
    TestRef,
)

MAX_FACT_SITES = 20  # the sites record_facts reads (errdex.analyze.facts)


def bare(record: Record) -> Record:
    """The record as grouping made it, before analysis."""
    return replace(record, explanation=None, related=(), failure_class=None, facts=None)


@dataclass
class Earlier:
    """The previous snapshot's analysis, as far as a re-index may reuse it: its
    (current, not removed) records by id, the files whose content is what it read, and
    the history stamp it was made under."""

    records: Mapping[str, Record]
    unchanged: Collection[str]
    stamp: str | None = None
    _same: dict[str, bool] = field(default_factory=dict)
    _siblings: dict[str, tuple[str, ...]] | None = None
    reused: int = 0  # records whose facts were kept
    pages: int = 0  # of them, whose page was kept too

    def same(self, record: Record) -> bool:
        """Whether `record` is, before analysis, the previous record of its id."""
        if record.id not in self._same:
            before = self.records.get(record.id)
            self._same[record.id] = before is not None and bare(before) == record
        return self._same[record.id]

    def facts_for(
        self, record: Record, siblings: Sequence[Record],
        previous_siblings: Callable[[Record], Sequence[Record]],
        entry_points: Callable[[Site], tuple[EntryPoint, ...]] | None,
        tests: tuple[TestRef, ...],
        importable: Callable[[str, str, Language], str | None] | None,
        structure: Callable[[str], FileStructure | None] | None = None,
        builds: Builds | None = None,
        conditions: Callable[[str, int], tuple[str, ...]] | None = None,
        caught_by: Callable[[Site], tuple[str, ...]] | None = None,
        fixed: FixedBy | None = None,
    ) -> RecordFacts | None:  # fmt: skip
        """The previous facts of `record` (its history aside) when they are provably
        what `record_facts` computes now, else None."""
        before = self.records.get(record.id)
        if before is None or before.facts is None or not self.same(record):
            return None
        shown = record.sites[:MAX_FACT_SITES]
        if any(site.path not in self.unchanged for site in shown):
            return None
        if not all(self.same(other) for other in siblings):
            return None
        if tuple(o.id for o in siblings) != tuple(o.id for o in previous_siblings(before)):
            return None
        facts = before.facts
        if facts.tests != tests or len(facts.sites) != len(shown):
            return None
        for site, known in zip(shown, facts.sites, strict=True):
            points = entry_points(site) if entry_points else ()
            if tuple(points) != known.entry_points:
                return None
            if (caught_by(site) if caught_by else ()) != known.caught_by:
                return None  # who catches it asks the call graph too
            if (fixed(site) if fixed else ()) != known.fixed:
                return None  # and so do the literals its callers pass
            exception = importable(site.exception, site.path, site.language) \
                if importable and site.exception else None
            if exception != known.exception:
                return None
            # What the receiver's fields say asks the call graph too (who builds the
            # object): asked again, it must be what the stored facts say.
            file = structure(site.path) if structure else None
            own = file.def_at(site.line) if file is not None else None
            if receiver_state(site, file, own, points, builds) != known.state:
                return None
            if site_public(own) != known.public:
                return None  # a re-export in another file (`pub use inner::Tower`)
            if (conditions(site.path, site.line) if conditions else ()) != known.built_when:
                return None  # `#[cfg(..)] mod x;` is written in another file
        self.reused += 1
        return facts

    def failure_class(self, record: Record,
                      classify: Callable[[Record], FailureClass | None]) -> FailureClass | None:
        """The previous record's class when the record is the same (`classify` reads the
        record alone), else `classify`'s."""
        before = self.records.get(record.id)
        return before.failure_class if before is not None and self.same(record) \
            else classify(record)

    def page_for(self, record: Record, facts: RecordFacts) -> Record | None:
        """The previous record's page, when its facts (history included) are `facts`
        and the facts writer wrote it."""
        before = self.records.get(record.id)
        if before is None or before.explanation is None or before.facts != facts:
            return None
        if before.explanation.source != "facts" or before.explanation.model is not None:
            return None
        self.pages += 1
        return before


def kept_histories(
    records: Sequence[Record], earlier: Earlier | None, stamp: str | None,
    previous: Mapping[str, Record], key_of: Callable[[Record], str],
) -> tuple[dict[str, History | None], list[Record]]:  # fmt: skip
    """(id -> the history kept from the previous analysis, None meaning none found;
    the records whose history must be found again)."""
    kept: dict[str, History | None] = {}
    again: list[Record] = []
    for record in records:
        before = previous.get(record.id)
        if (earlier is None or stamp is None or earlier.stamp != stamp or before is None
                or before.facts is None or (before.facts.history is not None
                                            and before.facts.history.removed)
                or key_of(before) != key_of(record)
                or [s.path for s in before.sites] != [s.path for s in record.sites]):
            again.append(record)
            continue
        kept[record.id] = before.facts.history
    return kept, again
