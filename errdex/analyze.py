"""Analysis of a snapshot's records: related errors, the failure class, and the prose of
every page, all from facts read out of the code (no LLM).

It only combines `related`, `classes` and `prose`; each of those owns its own logic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from errdex.classes import classify
from errdex.models import Record
from errdex.prose import write_explanation
from errdex.related import find_related


def _functions(record: Record) -> set[tuple[str, str]]:
    return {(site.path, site.function) for site in record.sites if site.function}


def analyze_records(records: Sequence[Record]) -> list[Record]:
    related = find_related(records)
    by_function: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record in records:
        for key in _functions(record):
            by_function[key].append(record)
    analyzed = []
    for record in records:
        seen = {record.id}
        siblings: list[Record] = []
        for key in sorted(_functions(record)):
            for other in by_function[key]:
                if other.id not in seen:
                    seen.add(other.id)
                    siblings.append(other)
        siblings.sort(key=lambda r: (r.sites[0].path, r.sites[0].line))
        analyzed.append(
            replace(
                record,
                explanation=write_explanation(record, siblings),
                related=related.get(record.id, ()),
                failure_class=classify(record),
            )
        )
    return analyzed
