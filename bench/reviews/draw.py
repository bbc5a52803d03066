"""Draw a page-review sample the way ../shared/review/RUBRIC.md asks: a fixed seed over
`errdex list --json`, stratified by kind in proportion (largest remainder), with at least
3 error-type records and 3 multi-site records (a draw short of either swaps in random
ones of that group for records of the largest kind).

    python bench/reviews/draw.py DB SEED SIZE [--repo REPO ...]

Prints one line per record: id, kind, sites, message. Use a new seed for every review,
drawn after the last change to the page writer: a writer tuned to one sample is not
better.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import defaultdict
from typing import Any

ERROR_TYPES = ("error-enum", "exception-class")


def _rows(db: str, repos: list[str]) -> list[dict[str, Any]]:
    done = subprocess.run(["errdex", "--db", db, "list", "--json"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return [r for r in rows if not repos or r["repo"] in repos]


def draw(rows: list[dict[str, Any]], seed: int, size: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r["id"]):
        by_kind[row["kind"]].append(row)
    shares = {k: size * len(v) / len(rows) for k, v in by_kind.items()}
    quota = {k: int(s) for k, s in shares.items()}
    for kind in sorted(shares, key=lambda k: shares[k] - quota[k], reverse=True):
        if sum(quota.values()) >= size:
            break
        quota[kind] += 1
    sample = [r for k, n in quota.items() for r in rng.sample(by_kind[k], min(n, len(by_kind[k])))]
    quotas = (("error-type", lambda r: r["kind"] in ERROR_TYPES),
              ("multi-site", lambda r: r["site_count"] > 1))  # fmt: skip
    for label, wanted in quotas:
        have = [r for r in sample if wanted(r)]
        pool = [r for r in rows if wanted(r) and r not in sample]
        if len(have) + len(pool) < 3:
            print(f"draw.py: only {len(have) + len(pool)} {label} records exist: the "
                  "rubric's quota of 3 cannot be met", file=sys.stderr)
        while len(have) < 3 and pool:
            largest = max(quota, key=lambda k: sum(1 for r in sample if r["kind"] == k))
            out = next(r for r in sample if r["kind"] == largest and not wanted(r))
            new = pool.pop(rng.randrange(len(pool)))
            sample[sample.index(out)] = new
            have.append(new)
    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("seed", type=int)
    parser.add_argument("size", type=int)
    parser.add_argument("--repo", action="append", default=[])
    args = parser.parse_args()
    rows = _rows(args.db, args.repo)
    if not rows:
        sys.exit("no records to draw from")
    for row in draw(rows, args.seed, args.size):
        print(f"{row['id']}  {row['kind']:<10} {row['site_count']:>3}  {row['message'][:90]}")


if __name__ == "__main__":
    main()
