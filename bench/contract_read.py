"""What reading a record through the typed contract costs against the stored JSON text
parsed as it is (what `explain` and `show` did before records were typed after the store).

    python bench/contract_read.py [--repeat 20]

Indexes the golden fixture repositories into a temporary database, then reads every
record both ways and prints microseconds per record and their ratio (same run, same
records), so the cost of a typed `Record` plus `contract.record_to_dict` is seen against
its baseline, `json.loads(store.record_json(id))`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.test_golden import REPOSITORIES


def _best(ids: list[str], read: Callable[[str], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            for record_id in ids:
                read(record_id)
        best = min(best, time.perf_counter() - start)
    return best / (repeat * len(ids)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="errdex-contract-"))
    with SQLiteStore(tmp / "bench.sqlite") as store:
        for name, build in sorted(REPOSITORIES.items()):
            for root in build(tmp / name):
                (snapshot,) = resolve(str(root), SourceOptions(repo=f"fixtures/{name}"))
                index_snapshot(snapshot, store, workers=1)
        ids = [row.id for row in store.records()]
        raw = _best(ids, lambda i: json.loads(store.record_json(i)), args.repeat)
        typed = _best(ids, lambda i: record_to_dict(store.record(i)), args.repeat)
    print(f"{len(ids)} records: stored JSON parsed {raw:.0f} us/record, typed Record + "
          f"record_to_dict {typed:.0f} us/record, ratio {typed / raw:.2f}")


if __name__ == "__main__":
    main()
