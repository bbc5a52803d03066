"""Analysis of a snapshot's records: the facts read from the repository (origins, entry
points, tests, history), then related errors, the failure class and the prose of every
page written from those facts (no LLM; `errdex.write.llm` may rewrite the prose later).

It only combines `facts`, `callgraph`, `testrefs`, `history`, `related`, `classes` and
`prose`; each owns its own logic. Records whose message disappeared since the previous
snapshot are kept, marked removed (with the commit that removed them, when git tells).
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

from errdex.analyze import grouped
from errdex.analyze.callgraph import CallGraph
from errdex.analyze.classes import classify
from errdex.analyze.facts import FixedBy, record_facts, stable_literal
from errdex.analyze.fixedargs import fixed_arguments
from errdex.analyze.gates import BuildConditions
from errdex.analyze.history import QUOTED, RUNS, message_history, never_written
from errdex.analyze.related import find_related
from errdex.analyze.reuse import Earlier, kept_histories
from errdex.analyze.testrefs import KindsMemo, find_test_refs, test_files
from errdex.analyze.visibility import public_api
from errdex.contract import status_of
from errdex.extract.structure import FileStructure, TypedBinding
from errdex.languages import spec_for
from errdex.models import (
    EntryPoint,
    History,
    Language,
    Record,
    RecordFacts,
    Related,
    Site,
    Snapshot,
    TestRef,
)
from errdex.store import Store
from errdex.store.base import previous_ref, snapshot_ref
from errdex.write import escapes
from errdex.write.prose import write_explanation

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MIN_HISTORY_KEY = 8  # a shorter literal run would match unrelated lines of the history
MAX_NAME_CHARS = 200  # longer "identifiers" are not kept in the vocabulary (extract.NAME_CHARS)


@dataclass
class Repository:
    """What the facts need from the whole repository: built once per snapshot from the
    structure each file's extraction emitted (no file of the library is read again),
    the test files (which indexing skips) and git's history."""

    structures: Mapping[str, FileStructure] = field(default_factory=dict)
    graph: CallGraph = field(default_factory=CallGraph)
    tests: dict[str, tuple[TestRef, ...]] = field(default_factory=dict)
    history: dict[str, History] = field(default_factory=dict)

    test_texts: list[str] = field(default_factory=list)
    _importers: dict[Language, Callable[[str, str], str | None] | None] = field(
        default_factory=dict)
    _conditions: BuildConditions | None = None

    def importable(self, written: str, path: str, language: Language) -> str | None:
        """The class `written` in `path` as users import it (the language's importer over
        this repository's structures, built once), or None when not known."""
        if language not in self._importers:
            make = spec_for(language).importer
            self._importers[language] = make(self.structures) if make else None
        found = self._importers[language]
        return found(written, path) if found else None

    def built_when(self, path: str, line: int) -> tuple[str, ...]:
        """The build conditions the code at `path`:`line` is compiled under."""
        if self._conditions is None:
            self._conditions = BuildConditions(self.structures)
        return self._conditions.at(path, line)

    def typed(self, path: str) -> tuple[TypedBinding, ...] | None:
        """The names `path` declares with a type, as its extraction found them."""
        structure = self.structures.get(path)
        return structure.typed if structure is not None else None

    def names(self) -> frozenset[str]:
        """Every identifier in the code and tests: what a page may name."""
        found: set[str] = set()
        for structure in self.structures.values():
            found |= structure.identifiers
        for text in self.test_texts:
            found.update(_IDENT.findall(text))
        # A 400 KB "identifier" (the inside of a long string) names nothing on a page.
        return frozenset(name for name in found if len(name) <= MAX_NAME_CHARS)


def history_key(record: Record) -> str:
    """The message's literal runs in order, as the history looks for them, or "" when its
    longest run is too short to tell the message's lines from others."""
    runs = [r for r in (p.strip(" \t\n:=([{") for p in record.template.literals) if len(r) >= 3]
    if len(stable_literal(record)) < MIN_HISTORY_KEY:
        return ""
    whole = record.template.literals
    if len(whole) == 1 and runs == [whole[0]]:  # all of the message, as one literal
        return f"{QUOTED}{whole[0]}{QUOTED}"
    return RUNS.join(runs)


def read_repository(
    snapshot: Snapshot, records: Sequence[Record],
    structures: Mapping[str, FileStructure] | None = None, memo: KindsMemo | None = None,
) -> Repository:  # fmt: skip
    """The repository's facts from its files' `structures` (path -> the structure its
    extraction emitted; a file without one has no outline, typed names or identifiers),
    and its test files; the history is `record_history`'s, which git runs meanwhile."""
    repo = Repository(structures=public_api(
        ((f.path, f.language) for f in snapshot.files), structures or {}))
    repo.graph = CallGraph.build(
        (f.path, f.language, repo.structures[f.path]) for f in snapshot.files
        if f.path in repo.structures
    )
    tests = test_files(snapshot)
    repo.test_texts = [text for _, _, text in tests]
    repo.tests = find_test_refs(records, tests, repo.graph, memo)
    return repo


def record_history(
    snapshot: Snapshot, records: Sequence[Record], previous: Sequence[Record] = (),
    earlier: Earlier | None = None, stamp: str | None = None,
) -> dict[str, History]:
    """Each record's message history in git (id -> history; the previous records' too,
    to date their removal); empty for a snapshot that is not a commit. With `earlier`
    made under the same history `stamp`, what it knew is kept (`kept_histories`) and
    only the others are looked for."""
    if not snapshot.commit:
        return {}
    # A record removed before and still gone keeps what was learned then (`kept_removed`):
    # its history now is never read, so it is not looked for.
    live = [r for r in previous if status_of(r.facts) != "removed"]
    everyone = list({r.id: r for r in (*live, *records)}.values())  # the current wins
    kept, again = kept_histories(everyone, earlier, stamp, {r.id: r for r in previous},
                                 history_key)
    found = {rid: h for rid, h in kept.items() if h is not None}
    if not again:
        return found
    if len(again) < len(everyone):  # a few: those no commit ever wrote have none
        absent = never_written(snapshot.root, list({history_key(r) for r in again} - {""}))
        again = [r for r in again if history_key(r) not in absent]
    return found | _scanned_history(snapshot, again)


def _scanned_history(snapshot: Snapshot, records: Sequence[Record]) -> dict[str, History]:
    """The history of `records` from one scan of git's log."""
    keys: dict[str, list[str]] = defaultdict(list)
    paths: dict[str, list[str]] = {}  # a record's history is that of its own files
    for record in records:
        key = history_key(record)
        if key and record.id not in keys[key]:
            keys[key].append(record.id)
        paths.setdefault(record.id, list(dict.fromkeys(s.path for s in record.sites)))
    return message_history(snapshot.root, keys, paths=paths)


def _functions(record: Record) -> dict[tuple[str, str], int]:
    """The (path, function) pairs the record is raised in, each with its first line
    there; only its first MAX_SIBLINGS sites count (8,000 raises of one message)."""
    found: dict[tuple[str, str], int] = {}
    for site in record.sites[:MAX_SIBLINGS]:
        if site.function:
            found.setdefault((site.path, site.function), site.line)
    return found


_Grouped = dict[tuple[str, str], list[tuple[int, Record]]]  # sorted by line


def _grouped_entries(repository: Repository) -> Callable[[Site], tuple[EntryPoint, ...]]:
    """The call graph's entry points of a site, each with the group error it raises the
    site's error inside, when it gathers errors so (errdex.analyze.grouped)."""
    graph, structures = repository.graph, repository.structures
    known = grouped.collectors(structures)

    def entries(site: Site) -> tuple[EntryPoint, ...]:
        return grouped.grouped(graph.entry_points(site), site, structures, known,
                               graph.ancestors, escapes.catches)  # fmt: skip

    return entries


def _by_function(records: Sequence[Record]) -> _Grouped:
    grouped: _Grouped = defaultdict(list)
    for record in records:
        for key, line in _functions(record).items():
            grouped[key].append((line, record))
    for group in grouped.values():
        group.sort(key=lambda pair: pair[0])
    return grouped


MAX_SIBLINGS = 12  # other records of a function a page lists: the nearest ones


def _near(record: Record, grouped: _Grouped) -> list[Record]:
    """The other records of the record's function(s), at most MAX_SIBLINGS, nearest
    in lines first: found by bisection, so a function of 2,000 checks costs each record
    a few dozen looks, not 2,000 (each page stores its siblings: that was quadratic)."""
    found: dict[str, tuple[int, Record]] = {}
    for key, line in _functions(record).items():
        group = grouped.get(key, [])
        at = bisect_left(group, line, key=lambda pair: pair[0])
        for other_line, other in group[max(at - MAX_SIBLINGS, 0) : at + MAX_SIBLINGS + 1]:
            distance = abs(other_line - line)
            if other.id != record.id and distance < found.get(other.id, (distance + 1,))[0]:
                found[other.id] = (distance, other)
    nearest = heapq.nsmallest(MAX_SIBLINGS, found.values(), key=lambda pair: pair[0])
    return [other for _, other in nearest]


def _siblings(record: Record, grouped: _Grouped) -> list[Record]:
    """The other records raised in the same function(s), in source order (the nearest
    MAX_SIBLINGS of them)."""
    return sorted(_near(record, grouped), key=lambda r: (r.sites[0].path, r.sites[0].line))


def analyze_records(
    records: Sequence[Record], repository: Repository | None = None,
    history: Callable[[], dict[str, History]] | None = None,
    earlier: Earlier | None = None,
) -> list[Record]:  # fmt: skip
    """The records with their facts, related records, failure class and prose. The
    facts come first and the prose last: `history` (git's, running meanwhile) is
    asked for in between, into `repository.history`, when the prose needs it. With
    `earlier`, a record keeps its previous facts and page where they are provably what
    would be computed again (`errdex.analyze.reuse`)."""
    related = find_related(records)
    by_function = _by_function(records)
    entry_points: Callable[[Site], tuple[EntryPoint, ...]] | None = None
    caught_by: Callable[[Site], tuple[str, ...]] | None = None
    fixed: FixedBy | None = None
    if repository is not None:
        graph = repository.graph
        entry_points = _grouped_entries(repository)
        caught_by = partial(graph.caught_by_callers, catches=escapes.catches)
        fixed = partial(fixed_arguments, graph)
    before_by_function = _by_function(list(earlier.records.values())) if earlier else {}
    gathered = []
    for record in records:
        siblings = _siblings(record, by_function)
        tests = repository.tests.get(record.id, ()) if repository else ()
        known = earlier.facts_for(
            record, siblings, lambda old: _siblings(old, before_by_function), entry_points,
            tests, repository.importable, repository.structures.get, repository.graph.builds,
            repository.built_when,
            caught_by, fixed,
        ) if earlier is not None and repository is not None else None  # fmt: skip
        kept = known is not None
        if known is None:
            known = record_facts(
                record, siblings,
                typed=repository.typed if repository else None,
                structure=repository.structures.get if repository else None,
                entry_points=entry_points, tests=tests,
                importable=repository.importable if repository else None,
                builds=repository.graph.builds if repository else None,
                conditions=repository.built_when if repository else None,
                caught_by=caught_by, fixed=fixed,
            )  # fmt: skip
        gathered.append((record, siblings, known, kept))
    if repository is not None and history is not None:
        repository.history = history()
    analyzed = []
    for record, siblings, known, kept in gathered:
        if repository is not None:
            known = replace(known, history=repository.history.get(record.id))
        page = earlier.page_for(record, known) if kept and earlier is not None else None
        analyzed.append(
            replace(
                record,
                explanation=page.explanation if page is not None
                else write_explanation(record, siblings, known),
                related=related.get(record.id, ()),
                failure_class=earlier.failure_class(record, classify) if earlier is not None
                else classify(record),
                facts=known,
            )
        )
    return analyzed


def rewrite_with_facts(records: Sequence[Record]) -> list[Record]:
    """Stored records with their pages written again by the facts writer, from the facts
    stored with them (no repository needed); removed records are left as they are."""
    by_function = _by_function(records)
    out = []
    for record in records:
        if record.facts and record.facts.history and record.facts.history.removed:
            out.append(record)
            continue
        siblings = _siblings(record, by_function)
        out.append(replace(record, explanation=write_explanation(record, siblings, record.facts)))
    return out


_WORD = re.compile(r"[a-z][a-z0-9_]+")


def kept_removed(
    previous: Sequence[Record], current: Sequence[Record], repository: Repository | None
) -> list[Record]:
    """The previous snapshot's records whose message is gone, marked removed, each
    pointing at the record of the same function that reads most alike (a rename)."""
    ids = {r.id for r in current}
    by_function = _by_function(current)
    kept = []
    for old in previous:
        if old.id in ids:
            continue
        found = repository.history.get(old.id) if repository else None
        base = old.facts.history if old.facts and old.facts.history else None
        if base is not None and base.removed:
            history = base  # already known to be gone: keep what was learned then
        else:
            history = replace(found or base or History(), removed=True)
            if found is None or not found.removed_commit:
                history = replace(history, removed_commit=None, removed_date=None)
        words = set(_WORD.findall(" ".join(old.template.literals).lower()))
        candidates = _near(old, by_function)
        best = max(candidates, default=None, key=lambda r: len(
            words & set(_WORD.findall(" ".join(r.template.literals).lower()))))  # fmt: skip
        related = old.related
        if best is not None:
            related = (Related(best.id, best.template.message, "replaced it: same function"),
                       *[r for r in related if r.id != best.id])  # fmt: skip
        facts = replace(old.facts or RecordFacts(sites=()), history=history)
        kept.append(replace(old, facts=facts, related=related))
    return kept


def previous_records(store: Store, snapshot: Snapshot) -> list[Record]:
    """The records of the snapshot before `snapshot` among its repository's versions
    (the latest other version indexed before it: `errdex.store.base`), which its records
    are compared with to tell what was removed."""
    if not store.has_repo(snapshot.repo):
        return []
    before = previous_ref([row.ref for row in store.snapshots(snapshot.repo)],
                          snapshot_ref(snapshot))
    if before is None:
        return []
    return [store.record(row.id, before) for row in store.records(snapshot.repo, before)]


def analyze_snapshot(
    snapshot: Snapshot, records: Sequence[Record], previous: Sequence[Record] = (),
    structures: Mapping[str, FileStructure] | None = None,
    earlier: Earlier | None = None, stamp: str | None = None, memo: KindsMemo | None = None,
) -> tuple[list[Record], list[Record], frozenset[str]]:  # fmt: skip
    """(the snapshot's records analyzed, the previous records kept as removed, every
    identifier of the repository's code), from the files' extracted `structures`; with
    `earlier` (the previous analysis) and the history `stamp` (`history_stamp`), what
    provably did not change is kept rather than computed again."""
    # git does most of the history's work in its own process: it runs while the facts
    # are gathered, and is joined before the first page is written.
    with ThreadPoolExecutor(max_workers=1) as pool:
        history = pool.submit(record_history, snapshot, records, previous, earlier, stamp)
        repository = read_repository(snapshot, records, structures, memo)
        analyzed = analyze_records(records, repository, history.result, earlier)
    return analyzed, kept_removed(previous, analyzed, repository), repository.names()
