"""What a stored record costs: index candle and the standard library into fresh SQLite
files and print, per record, the database file's size and the record's data packed
(as stored) against its JSON text (the baseline, measured in the same run).

    python bench/storage.py [--candle /path/to/candle] [--no-stdlib]

Issue 19 asks for at most 2 KB a record on average on both.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from pathlib import Path

from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from errdex.store.packing import unpack


def measure(source: str, repo: str | None) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        (snapshot,) = resolve(source, SourceOptions(repo=repo))
        with SQLiteStore(db) as store:
            index_snapshot(snapshot, store)
        with sqlite3.connect(db) as conn:
            conn.execute("VACUUM")
            values = [value for (value,) in conn.execute("SELECT data FROM records")]
        count = len(values)
        packed = sum(len(v) for v in values) / count
        text = sum(len(unpack(v).encode()) for v in values) / count
        size = db.stat().st_size / count
    return (f"{snapshot.repo}: {count} records, {size / 1024:.2f} KB of database a record; "
            f"data {packed / 1024:.2f} KB packed against {text / 1024:.2f} KB of JSON "
            f"(ratio {packed / text:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--candle", default="/work/candle")
    parser.add_argument("--no-stdlib", action="store_true")
    args = parser.parse_args()
    if Path(args.candle).is_dir():
        print(measure(args.candle, "huggingface/candle"))
    if not args.no_stdlib:
        print(measure("py:stdlib", None))


if __name__ == "__main__":
    main()
