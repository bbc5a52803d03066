"""The indexing pipeline for one snapshot: extract every file, link error types to where
they are built, group sites into records, analyze them, and store them in one go.

Files are parsed in a small process pool (parsing dominates and is CPU-bound); the
grouping and analysis that need every site run once, in this process.
"""

from __future__ import annotations

import faulthandler
import json
import multiprocessing
import os
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from errdex import settings
from errdex.analyze.history import history_stamp
from errdex.analyze.reuse import Earlier
from errdex.analyze.snapshot import analyze_snapshot
from errdex.analyze.testrefs import KindsMemo
from errdex.contract import record_from_dict, status_of
from errdex.errors import SourceError
from errdex.extract import (
    OVER_TIME,
    OverBudget,
    Rule,
    bounded,
    extractor_for,
    load_rules,
    nesting_problem,
    resolve_constructions,
    warm_up,
)
from errdex.extract.cached import (
    Manifest,
    Reuse,
    decode_extraction,
    decode_kinds,
    decode_manifest,
    decode_result,
    encode_extraction,
    encode_kinds,
    encode_manifest,
    encode_result,
    file_key,
    kinds_key,
    manifest_key,
    plan_reuse,
    records_digest,
)
from errdex.extract.compose import attach_definitions, definitions_by_name, resolve_constants
from errdex.extract.helpers import Discovered, calling, discover, merged, shown
from errdex.extract.unbuilt import NOT_BUILT, drop_unbuilt
from errdex.extract.uncollected import keep, uncollected
from errdex.models import (
    FileExtraction,
    IndexSummary,
    Language,
    Record,
    Site,
    Snapshot,
    SourceFile,
    record_id,
)
from errdex.source.resolve import SourceOptions, installed_distributions, resolve
from errdex.store import Store
from errdex.store.base import previous_ref, snapshot_ref

Progress = Callable[[str, int, int, str], None]  # (stage, done, total, what was found)
_CHUNK = 64
MIN_LITERAL_CHARS = 3  # a template with less fixed text than this is not a record

# The budgets' defaults, declared once as settings.
FILE_SECONDS = float(settings.default_int("file_seconds"))  # one file's parse and queries
MAX_FILE_SITES = settings.default_int("max_file_sites")  # sites (constructions, ...) a file
MAX_SITES = settings.default_int("max_sites")  # sites and constructions per repository
KILL_GRACE = 5.0  # a worker silent this long past the file budget is killed
_POLL = 0.5  # seconds between checks of the workers' clocks

# Why a file was skipped or sites were dropped, as the summary counts them.
UNREADABLE = "unreadable"
CRASHED = "parser crashed"
FAILED = "extraction failed"
FILE_SITES = "sites over the per-file budget"
REPO_SITES = "sites over the repository budget"


@dataclass(frozen=True)
class Budgets:
    """How much work one file and one repository may cost. Hostile input (a file that
    crashes or stalls the parser, 8,000 raises in one file, a million in a tree) is cut
    here, and each cut is counted with its reason in the index summary."""

    file_seconds: float = FILE_SECONDS
    max_file_sites: int = MAX_FILE_SITES
    max_sites: int = MAX_SITES


_Outcome = FileExtraction | str  # an extraction, or why the file was skipped
_Result = tuple[FileExtraction, int] | str  # (bounded extraction, items dropped) or why not


def _extract_file(
    file: SourceFile, rules: dict[Language, tuple[Rule, ...]], budgets: Budgets
) -> _Result:
    """One file's bounded extraction, or the reason it has none. Runs in a worker."""
    try:
        with open(file.absolute, "rb") as handle:
            source = handle.read()
    except OSError:
        return UNREADABLE
    problem = nesting_problem(file.language, source)
    if problem:
        return problem
    try:
        extraction = extractor_for(file.language).extract(
            file.path, source, rules[file.language], budgets.file_seconds
        )
        return bounded(extraction, budgets.max_file_sites)
    except OverBudget as over:
        return over.reason
    except (RecursionError, ValueError, MemoryError):
        return UNREADABLE
    except Exception:  # one odd file never stops the run, whatever its extractor hit
        return FAILED


def _worker(
    conn: Connection, files: list[SourceFile], rules: dict[Language, tuple[Rule, ...]],
    budgets: Budgets,
) -> None:  # fmt: skip
    """Extract `files` in order, sending each result as soon as it is ready, so that the
    parent knows which file a crash or a stall happened on. A crash is the parent's to
    report, in one line: no fault handler dumps this worker's stack on the user."""
    faulthandler.disable()
    for file in files:
        result = _extract_file(file, rules, budgets)
        try:
            conn.send_bytes(encode_result(result))
        except (RecursionError, TypeError, ValueError):
            conn.send_bytes(encode_result(FAILED))  # an extraction that cannot be encoded
    conn.close()


@dataclass
class _Running:
    """A worker process and the files it was given; `done` of them have answered."""

    process: BaseProcess
    conn: Connection
    files: list[int]
    done: int = 0
    since: float = field(default_factory=time.monotonic)


class _Pool:
    """Extraction in worker processes only: the parser never runs in errdex's own process
    on untrusted input. A worker that dies (a segfault in the parser) or stays on one
    file past the budget (it is killed) costs that one file: the rest of its files go to a
    fresh worker, and the culprit, if it was not alone, is retried once alone before it is
    counted. Each file is thus tried at most twice: the retries are bounded."""

    def __init__(
        self, snapshot: Snapshot, rules: dict[Language, tuple[Rule, ...]], budgets: Budgets,
        workers: int, on_result: Callable[[int, _Result, bytes | None], None],
    ) -> None:  # fmt: skip
        self.files = snapshot.files
        self.rules, self.budgets, self.workers = rules, budgets, max(workers, 1)
        self.on_result = on_result
        self.queue: deque[list[int]] = deque(
            list(range(i, min(i + _CHUNK, len(self.files))))
            for i in range(0, len(self.files), _CHUNK)
        )
        self.running: list[_Running] = []
        self.retried: set[int] = set()
        self.context = multiprocessing.get_context()

    def run(self) -> None:
        try:
            while self.queue or self.running:
                while self.queue and len(self.running) < self.workers:
                    self._start(self.queue.popleft())
                wait([w.conn for w in self.running], timeout=_POLL)
                for worker in list(self.running):
                    self._check(worker)
        finally:
            for worker in self.running:
                self._stop(worker)

    def _start(self, files: list[int]) -> None:
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_worker, daemon=True,
            args=(send, [self.files[i] for i in files], self.rules, self.budgets),
        )  # fmt: skip
        process.start()
        send.close()  # the worker holds the only writing end: its death reads as EOF
        self.running.append(_Running(process, receive, files))

    def _check(self, worker: _Running) -> None:
        """Take what the worker sent; then see whether it finished, died or stalled. A
        death shows as end-of-file on its pipe once everything it sent has been read."""
        dead = False
        try:
            while worker.done < len(worker.files) and worker.conn.poll():
                data = worker.conn.recv_bytes()
                self.on_result(worker.files[worker.done], decode_result(data, FAILED), data)
                worker.done += 1
                worker.since = time.monotonic()
        except (EOFError, OSError):
            dead = True
        if worker.done == len(worker.files):
            self._stop(worker)
        elif dead:
            self._lost(worker, CRASHED)
        elif time.monotonic() - worker.since > self.budgets.file_seconds + KILL_GRACE:
            self._lost(worker, OVER_TIME)

    def _lost(self, worker: _Running, reason: str) -> None:
        """The worker died or stalled on its current file: that file alone is charged."""
        self._stop(worker)
        culprit, rest = worker.files[worker.done], worker.files[worker.done + 1 :]
        if rest:
            self.queue.appendleft(rest)
        if reason == CRASHED and len(worker.files) > 1 and culprit not in self.retried:
            self.retried.add(culprit)  # maybe it was the worker, not the file: once more
            self.queue.appendleft([culprit])
        else:
            self.on_result(culprit, reason, None)

    def _stop(self, worker: _Running) -> None:
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()
        if worker in self.running:
            self.running.remove(worker)


def snapshot_rules(snapshot: Snapshot) -> dict[Language, tuple[Rule, ...]]:
    """The rules in force for each language of the snapshot (built in, and the
    repository's `errdex.toml`)."""
    languages = {f.language for f in snapshot.files}
    return {lang: tuple(load_rules(lang, snapshot.root)) for lang in languages}


def _file_budget(budgets: Budgets) -> tuple[float, int]:
    """The budgets one file's extraction depends on (part of its cache key)."""
    return (budgets.file_seconds, budgets.max_file_sites)


def extract_snapshot(
    snapshot: Snapshot, workers: int = 0, progress: Progress | None = None,
    budgets: Budgets | None = None, more_rules: Mapping[Language, Sequence[Rule]] | None = None,
    reuse: Reuse | None = None,
) -> tuple[list[FileExtraction], Counter[str]]:  # fmt: skip
    """Every file's extraction in file order, and the reasons files were skipped or
    sites dropped, counted. Sites past the repository's budget are dropped in file order
    as results arrive, so memory stays bounded and the cut is the same on every run.
    `more_rules`: read after each language's own (the helpers discovered in the code).

    With `reuse` (`errdex.extract.cached.plan_reuse`), a file whose key the store had
    (`reuse.found`) is read from those bytes, and only the others go to the workers;
    each of those extracted whole is added to `reuse.new`, under its key, if its file
    still holds the content the key was made of. (A reading with `more_rules` has no
    `reuse`: the cache keys are made of the rules in force without them.)"""
    budgets = budgets or Budgets()
    rules = dict(reuse.rules) if reuse is not None else snapshot_rules(snapshot)
    for language, extra in (more_rules or {}).items():
        if language in rules:
            rules[language] = (*rules[language], *extra)
    total = len(snapshot.files)
    results: list[_Result | None] = [None] * total
    outcomes: list[_Outcome] = []
    skipped: Counter[str] = Counter()
    kept = 0

    def take(index: int, result: _Result) -> None:
        """Store one file's result, then admit every result now contiguous in order."""
        nonlocal kept
        results[index] = result
        while len(outcomes) < total and results[len(outcomes)] is not None:
            ready = results[len(outcomes)]
            results[len(outcomes)] = None  # the extraction now lives in `outcomes` only
            assert ready is not None
            if isinstance(ready, str):
                skipped[ready] += 1
                outcomes.append(ready)
                continue
            extraction, dropped = ready
            skipped[FILE_SITES] += dropped
            extraction, over = _within(extraction, budgets.max_sites - kept)
            skipped[REPO_SITES] += over
            kept += len(extraction.sites) + len(extraction.constructions)
            outcomes.append(extraction)
            keep()  # out of the collector's way while the snapshot is built (`uncollected`)
        if progress:
            progress("parsing files", len(outcomes), total, f"{kept} sites")

    workers = workers or min(os.cpu_count() or 1, 4)
    misses = _take_cached(reuse, take) if reuse is not None else list(range(total))
    if misses:
        pending = replace(snapshot, files=tuple(snapshot.files[i] for i in misses))
        for language in {file.language for file in pending.files}:
            warm_up(language, rules[language])
        if reuse is None:
            _Pool(pending, rules, budgets, workers,
                  lambda at, result, _data: take(at, result)).run()
        else:
            _Pool(pending, rules, budgets, workers,
                  lambda at, result, data: _cache_result(reuse, snapshot, misses[at], result,
                                                         data, budgets, take)).run()  # fmt: skip
    return [o for o in outcomes if not isinstance(o, str)], +skipped


HELPER_ROUNDS = 3  # readings for helpers: one that calls a helper may itself be one


def read_helper_calls(
    snapshot: Snapshot, extractions: list[FileExtraction], dropped: Counter[str],
    workers: int = 0, progress: Progress | None = None, budgets: Budgets | None = None,
) -> tuple[list[FileExtraction], Counter[str], Discovered]:  # fmt: skip
    """The extractions with every file that calls an error helper found in the code read
    again with the helpers as rules (errdex.extract.helpers), until no new helper turns
    up (at most HELPER_ROUNDS readings; each reads only the files calling a helper new
    to it, with every helper known). A file's budget cuts are counted again when it is
    read again."""
    languages = {f.path: f.language for f in snapshot.files}
    listed = snapshot_rules(snapshot)
    found = discover(extractions, listed, languages)
    done: frozenset[str] = frozenset()
    for _ in range(HELPER_ROUNDS):
        new = found.names() - done
        if not new:
            break
        done |= new
        again = calling(snapshot.files, found, new)
        if not again:
            break
        redone, more = extract_snapshot(replace(snapshot, files=tuple(again)), workers,
                                        progress, budgets, found.rules)  # fmt: skip
        extractions, dropped = merged(extractions, redone), dropped + more
        found = discover(extractions, listed, languages)
    return extractions, dropped, found


def _take_cached(reuse: Reuse, take: Callable[[int, _Result], None]) -> list[int]:
    """Hand `take` every file the cache holds a sound entry for; the others' indexes."""
    misses = []
    for index, key in enumerate(reuse.keys):
        found = reuse.found.get(key) if key is not None else None
        cached = decode_extraction(found) if found is not None else None
        if key is None or cached is None:
            misses.append(index)
            continue
        reuse.reused.add(key)
        take(index, cached)
    return misses


def _cache_result(
    reuse: Reuse, snapshot: Snapshot, index: int, result: _Result, data: bytes | None,
    budgets: Budgets, take: Callable[[int, _Result], None],
) -> None:  # fmt: skip
    """Keep a fresh extraction for the cache (`data`: the bytes it came in, which are
    the entry), then pass it on. A file that changed while it was extracted is not
    cached: its key no longer names what was read."""
    key = reuse.keys[index]
    if key is not None and not isinstance(result, str):
        file = snapshot.files[index]
        if file_key(file, reuse.rules, _file_budget(budgets)) == key:
            reuse.new[key] = data if data is not None else encode_extraction(*result)
    take(index, result)


def _within(extraction: FileExtraction, room: int) -> tuple[FileExtraction, int]:
    """`extraction` with at most `room` sites and constructions (sites first), and how
    many were dropped."""
    size = len(extraction.sites) + len(extraction.constructions)
    if size <= room:
        return extraction, 0
    room = max(room, 0)
    sites = extraction.sites[:room]
    constructions = extraction.constructions[: room - len(sites)]
    return replace(extraction, sites=sites, constructions=constructions), size - room


def build_records(snapshot: Snapshot, sites: Sequence[Site]) -> list[Record]:
    """One record per distinct template: all the places that raise the same message."""
    groups: dict[str, list[Site]] = defaultdict(list)
    for site in sites:
        if site.template.literal_chars >= MIN_LITERAL_CHARS:
            groups[site.template.key].append(site)
        elif site.template.literal_chars:
            continue  # "{}: {}" says nothing and would match any line
        elif site.exception:  # a type that carries a message made at run time
            groups[f"{{}}\x00{site.exception}"].append(site)
    records = []
    for group in groups.values():
        group.sort(key=lambda s: (s.path, s.line))
        first = group[0]
        exceptions = Counter(s.exception for s in group if s.exception)
        records.append(
            Record(
                id=record_id(snapshot.repo, first.template, first.exception),
                repo=snapshot.repo,
                commit=snapshot.commit,
                commit_date=snapshot.commit_date,
                version=snapshot.version,
                language=first.language,
                kind=first.kind,
                exception=exceptions.most_common(1)[0][0] if exceptions else None,
                template=first.template,
                sites=tuple(group),
                site_urls=tuple(snapshot.url_for(s.path, s.line, s.end_line) for s in group),
            )
        )
    records.sort(key=lambda r: (r.sites[0].path, r.sites[0].line))
    return records


def dependency_snapshots(
    store: Store, options: SourceOptions, named: Sequence[Snapshot] = ()
) -> tuple[list[tuple[str, Snapshot]], list[tuple[str, str]]]:
    """`index --deps`: (its source, its snapshot) for every distribution installed in the
    environment but those stored (or `named`) at the same version, and the (source,
    reason) of each one skipped: already indexed, or unreadable (an editable install lists
    no files)."""
    stored = {(s.repo, s.version) for s in store.snapshots()}
    stored |= {(s.repo, s.version) for s in named}
    found: list[tuple[str, Snapshot]] = []
    skipped: list[tuple[str, str]] = []
    for spec in installed_distributions(options):
        try:
            (snapshot,) = resolve(spec, options)
        except SourceError as exc:
            skipped.append((spec, str(exc)))
            continue
        if (snapshot.repo, snapshot.version) in stored:
            skipped.append((spec, "already indexed"))
            continue
        stored.add((snapshot.repo, snapshot.version))
        found.append((spec, snapshot))
    return found, skipped


@dataclass(frozen=True)
class Built:
    """One snapshot indexed but not yet stored: what `store_built` writes in one go. It is
    built where the snapshot's files are (this process, or an engine's worker) and
    crosses to the one writer by pickling."""

    snapshot: Snapshot
    summary: IndexSummary
    records: list[Record]  # the snapshot's records, then the previous ones kept as removed
    vocabulary: frozenset[str]
    reuse: Reuse | None = None  # what the extraction cache gave and gets (index_snapshot)
    stamp: str | None = None  # the history stamp the analysis was made under
    memo: KindsMemo | None = None  # the test files' expectations, read or kept


def build_snapshot(
    snapshot: Snapshot,
    previous: Sequence[Record] = (),
    *,
    workers: int = 0,
    progress: Progress | None = None,
    budgets: Budgets | None = None,
    reuse: Reuse | None = None,
    earlier: Earlier | None = None,
    memo: KindsMemo | None = None,
) -> Built:
    """Extract, group and analyze one snapshot against the `previous` records of its
    repository (`previous_records`) and, with `reuse`, the extractions the store cached
    (`extract_snapshot`) and with `earlier` the previous analysis where it provably
    holds (`errdex.analyze.reuse`); nothing is read from or written to a store."""
    started = time.perf_counter()
    extractions, dropped = extract_snapshot(snapshot, workers, progress, budgets, reuse=reuse)
    failed = len(snapshot.files) - len(extractions)
    extractions, dropped[NOT_BUILT] = drop_unbuilt(extractions, snapshot.root)
    dropped = +dropped
    extractions, dropped, helpers = read_helper_calls(snapshot, extractions, dropped, workers,
                                                      progress, budgets)
    sites = [site for extraction in extractions for site in extraction.sites]
    sites.extend(resolve_constructions(extractions))
    sites = resolve_constants(sites, definitions_by_name(extractions))
    records = attach_definitions(build_records(snapshot, sites), extractions, snapshot)
    if progress:
        progress("analyzing records", 0, len(records), f"{len(sites)} sites")
    structures = {e.structure.path: e.structure for e in extractions if e.structure}
    keep()  # the sites and records made of them, which the analysis reads throughout
    stamp = history_stamp(snapshot.root) if reuse is not None and snapshot.commit else None
    records, removed, names = analyze_snapshot(snapshot, records, previous, structures,
                                               earlier, stamp, memo)
    if progress:
        progress("analyzing records", len(records), len(records), f"{len(sites)} sites")
    kinds = Counter(site.kind.value for site in sites)
    skipped = Counter(dict(snapshot.skipped)) + dropped
    summary = IndexSummary(
        repo=snapshot.repo,
        commit=snapshot.commit,
        files_read=len(snapshot.files) - failed,
        skipped=tuple(sorted(skipped.items())),
        sites_by_kind=tuple(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        records=len(records),
        dynamic_sites=sum(e.dynamic_sites for e in extractions),
        seconds=round(time.perf_counter() - started, 3),
        helpers=shown(helpers.helpers),
    )
    if removed:
        summary.extra["removed"] = len(removed)
    if reuse is not None:
        summary.extra["files_reused"] = len(reuse.reused)
    if earlier is not None:
        summary.extra["analyses_reused"] = earlier.reused
    return Built(snapshot, summary, [*records, *removed], names, reuse, stamp, memo)


def store_built(store: Store, built: Built) -> IndexSummary:
    """Write one built snapshot, replacing what was stored for its repository's version,
    then the extraction cache: the files extracted now, and of the older entries those
    this index reused."""
    texts = store.replace_snapshot(built.snapshot, built.summary, built.records,
                                   vocabulary=built.vocabulary)
    reuse = built.reuse
    if reuse is not None:
        files = {f.path: key for f, key in zip(built.snapshot.files, reuse.keys, strict=True)
                 if key is not None and (key in reuse.reused or key in reuse.new)}
        digest = records_digest(texts)  # as stored: the next index reads them back
        ref = snapshot_ref(built.snapshot)
        manifest = {manifest_key(ref): encode_manifest(Manifest(files, digest, built.stamp))}
        if built.memo is not None:
            manifest[kinds_key(ref)] = encode_kinds(built.memo.used)
        store.keep_extractions(built.snapshot.repo, {**reuse.new, **manifest},
                               keep=reuse.reused)
    return built.summary


def index_snapshot(
    snapshot: Snapshot,
    store: Store,
    *,
    workers: int = 0,
    progress: Progress | None = None,
    budgets: Budgets | None = None,
    full: bool = False,
) -> IndexSummary:
    """Index `snapshot` into `store`. A re-index reads every file but sends to the
    workers only those whose extraction the store's cache lacks (its content, the rules
    or the budgets changed); `full` extracts every file again (and refreshes the cache)."""
    before, previous, digest = _previous(store, snapshot)
    budgets = budgets or Budgets()
    reuse = plan_reuse(snapshot.files, snapshot_rules(snapshot), _file_budget(budgets))
    earlier, memo = None, KindsMemo()
    if not full:
        wanted = [k for k in reuse.keys if k is not None]
        if before is not None:
            wanted += [manifest_key(before), kinds_key(before)]
        found = store.cached_extractions(snapshot.repo, wanted)
        manifest = decode_manifest(found.pop(manifest_key(before), None)) \
            if before is not None else None  # fmt: skip
        if before is not None:
            memo.known = decode_kinds(found.pop(kinds_key(before), None))
        reuse.found = found
        if manifest is not None and manifest.records == digest:
            unchanged = {f.path for f, key in zip(snapshot.files, reuse.keys, strict=True)
                         if key is not None and manifest.files.get(f.path) == key}
            earlier = Earlier({r.id: r for r in previous if status_of(r.facts) != "removed"},
                              unchanged, manifest.stamp)
    with uncollected():
        built = build_snapshot(snapshot, previous, workers=workers, progress=progress,
                               budgets=budgets, reuse=reuse, earlier=earlier, memo=memo)
    return store_built(store, built)


def _previous(store: Store, snapshot: Snapshot) -> tuple[str | None, list[Record], str]:
    """(the ref of the snapshot the new one is compared with, its records, their
    digest: `records_digest`), as `previous_records` finds them."""
    if not store.has_repo(snapshot.repo):
        return None, [], ""
    before = previous_ref([row.ref for row in store.snapshots(snapshot.repo)],
                          snapshot_ref(snapshot))
    if before is None:
        return None, [], ""
    texts = [store.record_json(row.id, before) for row in store.records(snapshot.repo, before)]
    records = [record_from_dict(json.loads(text)) for text in texts]
    return before, records, records_digest(texts)
