"""Hit rates of the real matcher on error texts that users pasted into public issue threads.

    python bench/pastes.py --db PASTES.sqlite [--pastes bench/pastes] [--details OUT.jsonl]
    python bench/pastes.py --build --checkouts DIR [--work .pastes-work] [--details OUT.jsonl]
    python bench/pastes.py --build --mirrors /work/.mirror [--work .pastes-work]
    python bench/pastes.py --db PASTES.sqlite --set fresh   # the untuned set, bench/pastes/fresh
    python bench/pastes.py --db PASTES.sqlite --set fresh2  # the second one, bench/pastes/fresh2

`bench/pastes/<library>.jsonl` holds one real paste a line with the record it should find
(the message template as written in the library's source and its site, path and line, at
the version `bench/pastes/sources.toml` pins); `foreign.jsonl` holds real pastes from
libraries that are not indexed, which should match nothing. Every paste goes through one
`errdex explain --json --batch` process, which is what a CLI user gets.

With `--db` the database must already hold every library of sources.toml, indexed at its
pinned version. With `--build` the script makes it under `--work`: one virtual environment
with every pinned pip requirement (`pip install`, so a registry or a local index must be
reachable), the standard library of the interpreter running this script (which must be
the pinned Python version), and, for git sources, the checkouts in `--checkouts`, one
directory per repository named `owner+name` (see bench/pastes/README.md for making them
from a mirror with `git archive`), or, with `--mirrors DIR`, trees this script exports
from the bare repositories DIR/owner+name/repo at the pinned commits into WORK/checkouts.
A checkout that is a git work tree must be at the pinned commit; an exported tree is
trusted.

Per library it prints: pastes; distinct templates; hit@1, where the first match's record
has a site at the expected path within 3 lines of the expected line, or a template equal
to the expected one once every hole ({...}, %-specs) is read as one hole and whitespace is
collapsed; hit@5, the same over the first five matches; no-match, the share with no match
at all; and not-indexed, the share whose expected record is in no record the database
lists (by template or by first site; a paste hit in the first five counts as indexed),
which says the miss is the extractor's, not the matcher's; and wrong-exact, the share whose
first match is an exact match of another record (a confident wrong answer). `errdex list`
shows only a record's first site, so a record whose other site is the expected one is missed by that
test: not-indexed is an upper bound. Over foreign.jsonl it prints the false-match rate (any
exact match counts) and the share with any match shown. `--halves` prints the table again
for each half of the set split by a hash of the issue URL, so that a change tuned on one
half can be measured on the other. Nothing here is tuned to the set:
it only measures.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PASTES = HERE / "pastes"
LINE_SLACK = 3
TOP = 5

_BRACE_HOLE = re.compile(r"\{[^{}]*\}")
_PERCENT_HOLE = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[a-zA-Z%]")
_SPACE = re.compile(r"\s+")


def normalize(template: str) -> str:
    """A template with every hole as `{}` and its whitespace collapsed, for comparing."""
    text = _BRACE_HOLE.sub("{}", template)
    text = _PERCENT_HOLE.sub("{}", text)
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Paste:
    library: str
    url: str
    text: str
    template: str = ""
    path: str = ""
    line: int = 0


@dataclass
class Tally:
    pastes: int = 0
    templates: set[str] = field(default_factory=set)
    hit1: int = 0
    hit5: int = 0
    no_match: int = 0
    not_indexed: int = 0
    wrong_exact: int = 0

    def add(self, other: Tally) -> None:
        self.pastes += other.pastes
        self.templates |= other.templates
        self.hit1 += other.hit1
        self.hit5 += other.hit5
        self.no_match += other.no_match
        self.not_indexed += other.not_indexed
        self.wrong_exact += other.wrong_exact


def load_pastes(folder: Path) -> tuple[list[Paste], list[Paste]]:
    """The expected pastes of every library file, and the foreign ones."""
    expected: list[Paste] = []
    foreign: list[Paste] = []
    for file in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            item = json.loads(line)
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise SystemExit(f"{file}:{number}: each line must be an object with a text")
            if file.stem == "foreign":
                foreign.append(Paste(str(item.get("library", "?")), item["url"], item["text"]))
                continue
            expected.append(
                Paste(
                    file.stem,
                    str(item["url"]),
                    item["text"],
                    str(item["template"]),
                    str(item["path"]),
                    int(item["line"]),
                )
            )
    return expected, foreign


def record_fits(record: dict[str, Any], paste: Paste) -> bool:
    """Whether a matched record is the one the paste expects: a site or the template."""
    for site in record.get("sites") or []:
        path = str(site.get("path", ""))
        line = int(site.get("line") or 0)
        end = int(site.get("end_line") or line)
        if _same_path(path, paste.path) and line - LINE_SLACK <= paste.line <= end + LINE_SLACK:
            return True
    wanted = normalize(paste.template)
    return any(
        isinstance(record.get(key), str) and normalize(record[key]) == wanted
        for key in ("message", "template")
    )


def _same_path(found: str, wanted: str) -> bool:
    found, wanted = found.replace("\\", "/"), wanted.replace("\\", "/")
    return found == wanted or found.endswith("/" + wanted) or wanted.endswith("/" + found)


def run_errdex(errdex: Sequence[str], db: Path, texts: Sequence[str]) -> list[dict[str, Any]]:
    """One `errdex explain --json --batch` over every text, its results in input order."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as f:
        for text in texts:
            f.write(json.dumps({"text": text}) + "\n")
        batch = f.name
    try:
        command = [*errdex, "--db", str(db), "explain", "--json", "--limit", str(TOP)]
        done = subprocess.run(
            [*command, "--batch", batch], capture_output=True, text=True, check=False
        )
    finally:
        os.unlink(batch)
    if done.returncode not in (0, 1):
        raise SystemExit(f"errdex explain exited {done.returncode}: {done.stderr.strip()}")
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(results) != len(texts):
        raise SystemExit(f"errdex answered {len(results)} lines for {len(texts)} pastes")
    return results


def listed_records(errdex: Sequence[str], db: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [*errdex, "--db", str(db), "list", "--json"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"errdex list exited {done.returncode}: {done.stderr.strip()}")
    records = json.loads(done.stdout)
    if not isinstance(records, list):
        raise SystemExit("errdex list --json did not print a list")
    return records


def indexed(listed: Iterable[dict[str, Any]], paste: Paste) -> bool:
    """Whether any listed record has the expected template or first site."""
    wanted = normalize(paste.template)
    for record in listed:
        if normalize(str(record.get("message", ""))) == wanted:
            return True
        line = int(record.get("line") or 0)
        if _same_path(str(record.get("path", "")), paste.path) and (
            abs(line - paste.line) <= LINE_SLACK
        ):
            return True
    return False


def score(
    pastes: Sequence[Paste],
    results: Sequence[dict[str, Any]],
    listed: Sequence[dict[str, Any]],
) -> tuple[dict[str, Tally], list[dict[str, Any]]]:
    tallies: dict[str, Tally] = {}
    details: list[dict[str, Any]] = []
    for paste, result in zip(pastes, results, strict=True):
        tally = tallies.setdefault(paste.library, Tally())
        matches = [m for m in result.get("matches") or [] if isinstance(m, dict)]
        ranks = [
            i for i, m in enumerate(matches[:TOP]) if record_fits(m.get("record") or {}, paste)
        ]
        known = bool(ranks) or indexed(listed, paste)
        tally.pastes += 1
        tally.templates.add(normalize(paste.template))
        tally.hit1 += bool(ranks and ranks[0] == 0)
        tally.hit5 += bool(ranks)
        tally.no_match += not matches
        tally.not_indexed += not known
        tally.wrong_exact += bool(
            matches and matches[0].get("exact") and not (ranks and ranks[0] == 0)
        )
        details.append(
            {
                "library": paste.library,
                "url": paste.url,
                "expected": f"{paste.path}:{paste.line}",
                "rank": ranks[0] + 1 if ranks else None,
                "matches": len(matches),
                "first": _describe(matches[0]) if matches else None,
                "indexed": known,
                "error": result.get("error"),
            }
        )
    return tallies, details


def url_half(url: str) -> int:
    """A fixed half of the set, the same in every run: all pastes of one thread together."""
    return zlib.crc32(url.encode("utf-8")) % 2


def _describe(match: dict[str, Any]) -> str:
    record = match.get("record") or {}
    sites = record.get("sites") or [{}]
    where = f"{sites[0].get('path', '?')}:{sites[0].get('line', '?')}"
    exact = "exact" if match.get("exact") else f"near {match.get('score')}"
    return f"{where} {exact} {str(record.get('message', ''))[:60]!r}"


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:5.1f}%" if whole else "    -"


def print_table(tallies: dict[str, Tally], out: Any = sys.stdout) -> Tally:
    total = Tally()
    head = f"{'library':<12} {'pastes':>6} {'tmpls':>5} {'hit@1':>7} {'hit@5':>7}"
    print(f"{head} {'no-match':>8} {'not-indexed':>11} {'wrong-exact':>11}", file=out)
    for name in sorted(tallies):
        tally = tallies[name]
        total.add(
            Tally(
                tally.pastes,
                {f"{name}:{t}" for t in tally.templates},
                tally.hit1,
                tally.hit5,
                tally.no_match,
                tally.not_indexed,
                tally.wrong_exact,
            )
        )
        _row(name, tally, out)
    _row("all", total, out)
    return total


def _row(name: str, tally: Tally, out: Any) -> None:
    n = tally.pastes
    print(
        f"{name:<12} {n:>6} {len(tally.templates):>5} {_pct(tally.hit1, n):>7}"
        f" {_pct(tally.hit5, n):>7} {_pct(tally.no_match, n):>8} {_pct(tally.not_indexed, n):>11}"
        f" {_pct(tally.wrong_exact, n):>11}",
        file=out,
    )


def foreign_rates(results: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """How many foreign pastes got an exact match, and how many got any match shown."""
    exact = shown = 0
    for result in results:
        matches = [m for m in result.get("matches") or [] if isinstance(m, dict)]
        exact += any(m.get("exact") for m in matches)
        shown += bool(matches)
    return exact, shown


# --- building the database from sources.toml ---------------------------------------------


def build(
    sources: Path,
    checkouts: Path | None,
    mirrors: Path | None,
    work: Path,
    errdex: Sequence[str],
) -> Path:
    """Index every library of sources.toml at its pinned version into work/pastes.sqlite."""
    config = tomllib.loads(sources.read_text(encoding="utf-8"))
    libraries: list[dict[str, Any]] = list(config.get("library", []))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "pastes.sqlite"
    if db.exists():
        db.unlink()
    pip = [str(lib["requirement"]) for lib in libraries if lib["kind"] == "pip"]
    venv = work / "venv"
    python = venv / "bin" / "python"
    if pip or any(lib["kind"] == "stdlib" for lib in libraries):
        if not python.exists():
            _run([sys.executable, "-m", "venv", str(venv)])
        if pip:
            _run([str(python), "-m", "pip", "install", "-q", *pip])
    for lib in libraries:
        kind = lib["kind"]
        if kind == "pip":
            _run([*errdex, "--db", str(db), "index", f"py:{lib['dist']}", "--python", str(python)])
        elif kind == "stdlib":
            version = subprocess.run(
                [str(python), "-c", "import platform; print(platform.python_version())"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            if version != lib["python"]:
                print(
                    f"warning: stdlib is pinned at {lib['python']}, this Python is {version}",
                    file=sys.stderr,
                )
            _run([*errdex, "--db", str(db), "index", "py:stdlib", "--python", str(python)])
        elif kind == "git":
            slug = str(lib["repo"]).replace("/", "+")
            if checkouts is None and mirrors is None:
                raise SystemExit(f"{lib['name']} is a git source: give --checkouts or --mirrors")
            tree = checkouts / slug if checkouts is not None else work / "checkouts" / slug
            if checkouts is None and mirrors is not None:
                _export(mirrors / slug / "repo", str(lib["commit"]), tree)
            if not tree.is_dir() or not any(tree.iterdir()):
                raise SystemExit(f"no checkout of {lib['repo']} at {tree} (or it is empty)")
            _check_commit(tree, str(lib["commit"]))
            _run(
                [
                    *errdex,
                    "--db",
                    str(db),
                    "index",
                    str(tree),
                    "--repo",
                    str(lib["repo"]),
                    "--commit",
                    str(lib["commit"]),
                ]
            )
        else:
            raise SystemExit(f"{lib['name']}: unknown kind {kind!r}")
    return db


def _export(git_dir: Path, commit: str, tree: Path) -> None:
    """The files of `commit` in the bare repository `git_dir`, written afresh under `tree`."""
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", commit], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"git archive {commit} in {git_dir} failed: {archive.stderr.decode()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")


def _check_commit(tree: Path, commit: str) -> None:
    if not (tree / ".git").exists():
        return
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if head != commit:
        raise SystemExit(f"{tree} is at {head or 'no commit'}, sources.toml pins {commit}")


def _run(command: Sequence[str]) -> None:
    done = subprocess.run(list(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a database with every library indexed")
    parser.add_argument("--build", action="store_true", help="index sources.toml first")
    parser.add_argument("--checkouts", type=Path, help="owner+name trees of the git sources")
    parser.add_argument(
        "--mirrors",
        type=Path,
        help="or: a folder of owner+name/repo bare git dirs to export the pinned commits from",
    )
    parser.add_argument("--work", type=Path, default=Path(".pastes-work"))
    parser.add_argument("--pastes", type=Path, default=PASTES)
    parser.add_argument(
        "--set",
        choices=("original", "fresh", "fresh2", "fresh3"),
        default="original",
        help="original: the set the matcher was tuned on (PASTES/*.jsonl); fresh, fresh2, fresh3:"
        " the untuned sets collected after it (PASTES/<set>/*.jsonl, same sources.toml)",
    )
    parser.add_argument("--details", type=Path, help="write one JSON line per paste here")
    parser.add_argument(
        "--halves",
        action="store_true",
        help="also print the table for each half of the pastes split by a hash of the issue"
        " URL (a fixed split, for a tuned and a held-out half)",
    )
    parser.add_argument(
        "--errdex",
        default=f"{sys.executable} -m errdex",
        help="the command to run (default: this Python's errdex module)",
    )
    args = parser.parse_args(argv)
    errdex = args.errdex.split()
    if args.build:
        db = build(args.pastes / "sources.toml", args.checkouts, args.mirrors, args.work, errdex)
    elif args.db is not None:
        db = args.db
    else:
        parser.error("give --db DB or --build")
    folder = args.pastes if args.set == "original" else args.pastes / args.set
    expected, foreign = load_pastes(folder)
    results = run_errdex(errdex, db, [p.text for p in expected] + [p.text for p in foreign])
    tallies, details = score(expected, results[: len(expected)], listed_records(errdex, db))
    print_table(tallies)
    if args.halves:
        for half in (0, 1):
            chosen = [i for i, p in enumerate(expected) if url_half(p.url) == half]
            print(f"\nhalf {half} (crc32 of the issue URL % 2 == {half})")
            print_table(score([expected[i] for i in chosen], [results[i] for i in chosen],
                              listed_records(errdex, db))[0])
    exact, shown = foreign_rates(results[len(expected) :])
    if foreign:
        print(
            f"\nforeign      {len(foreign):>6}   false-match (exact) {_pct(exact, len(foreign))}"
            f"   any match shown {_pct(shown, len(foreign))}"
        )
    if args.details is not None:
        with args.details.open("w", encoding="utf-8") as out:
            for row in details:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
            for paste, result in zip(foreign, results[len(expected) :], strict=True):
                matches = [m for m in result.get("matches") or [] if isinstance(m, dict)]
                out.write(
                    json.dumps(
                        {
                            "library": "foreign:" + paste.library,
                            "url": paste.url,
                            "exact": any(m.get("exact") for m in matches),
                            "matches": len(matches),
                            "first": _describe(matches[0]) if matches else None,
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
