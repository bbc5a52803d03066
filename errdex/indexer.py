"""The indexing pipeline for one snapshot: extract every file, link error types to where
they are built, group sites into records, analyze them, and store them in one go.

Files are parsed in a small process pool (parsing dominates and is CPU-bound); the
grouping and analysis that need every site run once, in this process.
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from errdex.analyze import analyze_snapshot, previous_records
from errdex.extract import Rule, extractor_for, load_rules, resolve_constructions
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
from errdex.store import SQLiteStore

Progress = Callable[[str, int, int, str], None]  # (stage, done, total, what was found)
_CHUNK = 64
MIN_LITERAL_CHARS = 3  # a template with less fixed text than this is not a record


@dataclass(frozen=True)
class _Job:
    files: tuple[SourceFile, ...]
    rules: dict[Language, tuple[Rule, ...]]


def _extract_chunk(job: _Job) -> list[FileExtraction | None]:
    results: list[FileExtraction | None] = []
    for file in job.files:
        try:
            with open(file.absolute, "rb") as handle:
                source = handle.read()
            extractor = extractor_for(file.language)
            results.append(extractor.extract(file.path, source, job.rules[file.language]))
        except (OSError, RecursionError, ValueError):
            results.append(None)  # counted as unreadable; one bad file never stops the run
    return results


def extract_snapshot(
    snapshot: Snapshot, workers: int = 0, progress: Progress | None = None
) -> tuple[list[FileExtraction], int]:
    """Every file's extraction, and how many files could not be read or parsed."""
    languages = {f.language for f in snapshot.files}
    rules = {lang: tuple(load_rules(lang, snapshot.root)) for lang in languages}
    chunks = [
        _Job(snapshot.files[i : i + _CHUNK], rules)
        for i in range(0, len(snapshot.files), _CHUNK)
    ]
    total = len(snapshot.files)
    workers = workers or min(os.cpu_count() or 1, 4)
    extractions: list[FileExtraction] = []
    failed = done = sites = 0

    def collect(results: list[FileExtraction | None]) -> None:
        nonlocal failed, done, sites
        for result in results:
            if result is None:
                failed += 1
            else:
                extractions.append(result)
                sites += len(result.sites)
        done += len(results)
        if progress:
            progress("parsing files", done, total, f"{sites} sites")

    if workers <= 1 or len(chunks) <= 1:
        for job in chunks:
            collect(_extract_chunk(job))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for results in pool.map(_extract_chunk, chunks):
                collect(results)
    return extractions, failed


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


def index_snapshot(
    snapshot: Snapshot,
    store: SQLiteStore,
    *,
    workers: int = 0,
    progress: Progress | None = None,
) -> IndexSummary:
    started = time.perf_counter()
    extractions, failed = extract_snapshot(snapshot, workers, progress)
    sites = [site for extraction in extractions for site in extraction.sites]
    sites.extend(resolve_constructions(extractions))
    records = build_records(snapshot, sites)
    if progress:
        progress("analyzing records", 0, len(records), f"{len(sites)} sites")
    previous = previous_records(store, snapshot.repo)
    records, removed, names = analyze_snapshot(snapshot, records, previous)
    if progress:
        progress("analyzing records", len(records), len(records), f"{len(sites)} sites")
    kinds = Counter(site.kind.value for site in sites)
    skipped = Counter(dict(snapshot.skipped))
    if failed:
        skipped["unreadable"] += failed
    summary = IndexSummary(
        repo=snapshot.repo,
        commit=snapshot.commit,
        files_read=len(snapshot.files) - failed,
        skipped=tuple(sorted(skipped.items())),
        sites_by_kind=tuple(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        records=len(records),
        dynamic_sites=sum(e.dynamic_sites for e in extractions),
        seconds=round(time.perf_counter() - started, 3),
    )
    if removed:
        summary.extra["removed"] = len(removed)
    store.replace_snapshot(snapshot, summary, [*records, *removed], vocabulary=names)
    return summary
