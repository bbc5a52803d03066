"""Git history of messages: the commit (date, first tag containing it) that introduced a
message and the last commit that changed a line carrying it, and for messages that are
gone, the commit that removed them.

History is followed per file: a record's history is that of its message in the files of
its own sites (when they are given), so a copy of the message in another file (an example
that was later moved, a sibling crate) never lends it dates, changes or a removal. A tag
is named as the first release only when an older tag exists or the commit is the root of
history: the oldest tag of a checkout whose earlier releases were never tagged says
nothing about when a message was first released.

Bounded in cost: ONE `git log -p -U0` pass over the snapshot's source files, every added
and removed line scanned once by an Aho-Corasick automaton of the messages' longest
literal runs, and one `git name-rev` call for the tags; a time budget stops the pass on
huge histories (what was seen until then is kept). Only `git` is run, read-only, and
through `errdex.source.git`: the checkout's config, hooks, textconv and diff drivers are never
used (the tree is untrusted).
"""

from __future__ import annotations

import hashlib
import re
import time
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import ahocorasick_rs

from errdex.errors import SourceError
from errdex.languages import all_specs
from errdex.models import History
from errdex.source import git

BUDGET_SECONDS = 60.0
RUNS = "\x00"  # a key is a message's literal runs, in order, joined by this
# A run that opens or closes with this is only found between quotes on that side: the
# whole message "Expected CPU" is not a part of "Expected CPU storage for q".
QUOTED = "\x01"
_QUOTES = "\"'`"



def _globs() -> tuple[str, ...]:
    """The source files of every registered language: the history of their messages."""
    return tuple(f"*{suffix}" for spec in all_specs() for suffix in spec.suffixes)


@dataclass
class _Seen:
    introduced: tuple[str, str] | None = None  # (commit, date)
    changed: tuple[str, str] | None = None
    added_at: int = -1  # sequence number of the last commit that added a line with it
    removed_at: int = -1
    removed: tuple[str, str] | None = None
    introduced_at: int = -1
    changed_at: int = -1
    # The file as the introducing and the last changing commit named it (a move or a
    # rename later does not make those commits touch the file's new path)
    introduced_in: str = ""
    changed_in: str = ""


_DIFF = re.compile(rb'^diff --git "?a/.*?"? "?b/(.*?)"?$')


def _scan(session: git.Git, keys: Sequence[str], budget: float) -> dict[tuple[str, str], _Seen]:
    """(literal, path) -> what the history shows of that literal in that file. A literal
    that a commit adds to a file and removes from another (code moved to a new file,
    which git's rename detection does not see when the old file stays) keeps the old
    file's introduction: the move is not where the message began."""
    keys = list(dict.fromkeys(keys))
    runs = [key.split(RUNS) for key in keys]
    anchors: dict[str, list[int]] = {}  # a key's longest run -> the keys it anchors
    for index, parts in enumerate(runs):
        anchors.setdefault(max(parts, key=len).strip(QUOTED), []).append(index)
    anchored = list(anchors.values())
    automaton = ahocorasick_rs.AhoCorasick(list(anchors))
    seen: dict[tuple[str, str], _Seen] = {}
    path = ""
    deadline = time.monotonic() + budget
    new_here: list[tuple[str, str]] = []  # (literal, path) first added by this commit
    gone_here: dict[str, list[str]] = {}  # literal -> the paths this commit removed it from
    # (literal, path) -> its last change before this commit, for the files it touches
    changed_before: dict[tuple[str, str], tuple[tuple[str, str] | None, int, str]] = {}

    def moved() -> None:
        for key, to in new_here:
            olds = [p for p in gone_here.get(key, ()) if p != to and seen[key, p].introduced]
            if olds:  # nor is it a change: the message's last change is the old file's
                first = min((seen[key, p] for p in olds), key=lambda o: o.introduced_at)
                last = max((changed_before[key, p] for p in olds), key=lambda c: c[1])
                state = seen[key, to]
                state.introduced, state.introduced_at = first.introduced, first.introduced_at
                state.introduced_in = first.introduced_in
                state.changed, state.changed_at, state.changed_in = last
        new_here.clear()
        gone_here.clear()
        changed_before.clear()

    pending: list[tuple[str, str]] = []  # (op, path) of each line not yet looked through
    lines: list[str] = []
    ends = [0]  # where each pending line ends in their text joined

    def look() -> None:
        """The pending lines through the automaton at once (a call per line cost more
        than the matching), each line then read with the hits that lie inside it."""
        text = "".join(lines)
        hits_in: dict[int, list[int]] = {}
        for pattern, start, end in automaton.find_matches_as_indexes(text, overlapping=True):
            at = bisect_right(ends, start) - 1
            if end <= ends[at + 1]:  # not across lines: as the line alone would match
                hits_in.setdefault(at, []).append(pattern)
        for at, hits in hits_in.items():  # in line order: the hits are in order of end
            (op, path), line = pending[at], lines[at]
            for index in dict.fromkeys(i for hit in hits for i in anchored[hit]):
                if not _in_order(line, runs[index]):
                    continue  # the longest run alone: another message that shares it
                key = keys[index]
                state = seen.setdefault((key, path), _Seen())
                if op == "+" and state.introduced is None:
                    state.introduced, state.introduced_at = commit, number
                    state.introduced_in = path
                    new_here.append((key, path))
                changed_before.setdefault((key, path),
                                          (state.changed, state.changed_at, state.changed_in))
                state.changed, state.changed_at, state.changed_in = commit, number, path
                if op == "+":
                    state.added_at = number
                else:
                    state.removed_at, state.removed = number, commit
                    gone_here.setdefault(key, []).append(path)
        pending.clear()
        lines.clear()
        del ends[1:]

    # No textconv, external diff or signature check even if asked for: raw diffs only.
    with session.popen("log", "--reverse", "--no-renames", "--no-color", "--no-textconv",
                       "--no-ext-diff", "--no-show-signature", "-p", "-U0",
                       "--format=%x00%H %cI", "HEAD", "--", *_globs()) as proc:
        assert proc.stdout is not None
        commit: tuple[str, str] = ("", "")
        number = 0
        for count, raw in enumerate(proc.stdout):
            first = raw[:1]
            if first == b"\x00":
                look()
                moved()
                sha, _, date = raw[1:].decode("ascii", "replace").strip().partition(" ")
                commit, number = (sha, date), number + 1
                if count % 64 == 0 and time.monotonic() > deadline:
                    proc.kill()
                    break
                continue
            if first == b"d" and raw.startswith(b"diff --git "):
                m = _DIFF.match(raw.rstrip(b"\r\n"))
                path = m.group(1).decode("utf-8", "replace") if m else ""
                continue
            if first not in (b"+", b"-") or raw[:4] in (b"+++ ", b"--- "):
                continue
            line = raw[1:].decode("utf-8", "replace")
            pending.append(("+" if first == b"+" else "-", path))
            lines.append(line)
            ends.append(ends[-1] + len(line))
            if ends[-1] > LOOK_CHARS:
                look()  # a huge commit is looked through in parts
        look()
        moved()
    return seen


LOOK_CHARS = 1 << 20  # pending text looked through at once, at most (and a line more)


def _in_order(line: str, runs: Sequence[str]) -> bool:
    at = 0
    for run in runs:
        text = run.strip(QUOTED)
        at = line.find(text, at)
        while at >= 0 and not _quoted_as(line, at, run, len(text)):
            at = line.find(text, at + 1)
        if at < 0:
            return False
        at += len(text)
    return True


def _quoted_as(line: str, at: int, run: str, size: int) -> bool:
    """Whether the run's text found at `at` has the quote its QUOTED marks ask for."""
    before = not run.startswith(QUOTED) or (at > 0 and line[at - 1] in _QUOTES)
    after = not run.endswith(QUOTED) or line[at + size : at + size + 1] in tuple(_QUOTES)
    return before and after


MAX_TAG_CHECKS = 300  # distinct tags asked whether an older tag exists; the rest are dropped


def _first_tags(session: git.Git, tags: set[str]) -> set[str]:
    """The tags with no older tag behind them (or not checked): naming one of them as a
    message's first release would assume the checkout's oldest tag is its first release."""
    out = set()
    for number, tag in enumerate(sorted(tags)):
        if number >= MAX_TAG_CHECKS:
            out.add(tag)
            continue
        try:
            session.run("describe", "--tags", "--abbrev=0", f"{tag}^")
        except SourceError:
            out.add(tag)
    return out


def _roots(session: git.Git) -> set[str]:
    try:
        done = session.run("rev-list", "--max-parents=0", "HEAD")
    except SourceError:
        return set()
    return set(done.decode("ascii", "replace").split())


def _tags(session: git.Git, commits: Sequence[str]) -> dict[str, str]:
    """commit -> the tag nearest above it (the first release that contains it), only
    where that is known: an older tag exists, or the commit is a root of the history."""
    out: dict[str, str] = {}
    unique = sorted(set(commits))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        try:
            done = session.run("name-rev", "--tags", "--name-only", *chunk)
        except SourceError:
            return out
        names = done.decode("utf-8", "replace").splitlines()
        for sha, name in zip(chunk, names, strict=False):
            tag = re.sub(r"[~^].*$", "", name.strip())
            if tag and tag != "undefined":
                out[sha] = tag
    first = _first_tags(session, set(out.values()))
    if first:
        roots = _roots(session)
        out = {sha: tag for sha, tag in out.items() if tag not in first or sha in roots}
    return out


def _combine(states: Sequence[_Seen]) -> _Seen | None:
    """One file's history, or several files' together: introduced first, changed last
    (each with the file it was in), removed only when it is gone from every one of them."""
    found = [s for s in states if s.introduced is not None]
    if not found:
        return None
    first = min(found, key=lambda s: s.introduced_at)
    last = max(found, key=lambda s: s.changed_at)
    gone = [s for s in found if s.removed_at > s.added_at]
    removed = max(gone, key=lambda s: s.removed_at) if len(gone) == len(found) else None
    return _Seen(introduced=first.introduced, changed=last.changed,
                 added_at=max(s.added_at for s in found),
                 removed_at=removed.removed_at if removed else -1,
                 removed=removed.removed if removed else None,
                 introduced_at=first.introduced_at, changed_at=last.changed_at,
                 introduced_in=first.introduced_in, changed_in=last.changed_in)  # fmt: skip


def message_history(
    root: str,
    keys: Mapping[str, Sequence[str]],
    budget: float = BUDGET_SECONDS,
    paths: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, History]:
    """For each id, its message's history. `keys` maps a message's literal runs (joined
    by RUNS: a line carries the message when it holds all of them in order) to the ids
    that carry it; `paths` maps an id to the files of its sites, whose history alone
    is its own (an id without paths gets the literal's history over every file). Ids
    whose literal was removed and not added back get `removed_commit`. Empty when `root`
    is not the top of a git checkout with a commit."""
    checkout = git.find_checkout(Path(root)) if keys and Path(root).is_dir() else None
    if checkout is None or checkout.head is None:
        return {}
    try:
        with checkout.session() as session:
            seen = _scan(session, list(keys), budget)
            by_key: dict[str, dict[str, _Seen]] = {}
            for (key, path), state in seen.items():
                by_key.setdefault(key, {})[path] = state
            states: dict[tuple[str, str], _Seen] = {}
            for key, ids in keys.items():
                for record_id in ids:
                    files = by_key.get(key, {})
                    wanted = (paths or {}).get(record_id)
                    picked = [files[p] for p in dict.fromkeys(wanted) if p in files] \
                        if wanted else list(files.values())
                    combined = _combine(picked)
                    if combined is not None:
                        states[(key, record_id)] = combined
            tags = _tags(session, [s.introduced[0] for s in states.values() if s.introduced])
    except (OSError, SourceError):
        return {}
    out: dict[str, History] = {}
    for (_key, record_id), state in states.items():
        if state.introduced is None or record_id in out:
            continue
        removed = state.removed if state.removed_at > state.added_at else None
        history = History(
            introduced_commit=state.introduced[0],
            introduced_date=state.introduced[1] or None,
            introduced_tag=tags.get(state.introduced[0]),
            changed_commit=state.changed[0] if state.changed else None,
            changed_date=state.changed[1] if state.changed else None,
            removed_commit=removed[0] if removed else None,
            removed_date=removed[1] if removed else None,
            introduced_path=state.introduced_in or None,
            changed_path=state.changed_in if state.changed else None,
        )
        out[record_id] = history
    return out


def history_stamp(root: str) -> str | None:
    """What the history of every message at `root` is a function of: HEAD's commit, the
    tags (they name first releases) and a shallow clone's boundary. Equal stamps give
    equal histories for the same (key, paths); None when `root` is no git checkout."""
    checkout = git.find_checkout(Path(root)) if Path(root).is_dir() else None
    if checkout is None or checkout.head is None:
        return None
    shallow = git.read_file(checkout.common_dir / "shallow") or b""
    tags = "".join(f"{name} {sha}\n" for name, sha in sorted(checkout.tags().items()))
    digest = hashlib.sha256(f"{checkout.head}\n{tags}".encode() + b"\x00" + shallow)
    return digest.hexdigest()


MAX_PICKAXE = 8  # keys looked for one by one before one scan of the whole history is cheaper


def never_written(root: str, keys: Sequence[str]) -> set[str]:
    """Those `keys` whose longest run no commit of HEAD's history ever added to or
    removed from a source file (git's pickaxe, `log -S`, one call per key): `_scan`
    would find nothing for them, so their history is empty. A line that carries a run
    was added by some commit, since every file starts empty; a key `_scan` could match
    is therefore found by the pickaxe. Only for a few keys (MAX_PICKAXE): past that, or
    when git fails, none are said absent."""
    checkout = git.find_checkout(Path(root)) if Path(root).is_dir() else None
    if checkout is None or checkout.head is None or len(keys) > MAX_PICKAXE:
        return set()
    absent = set()
    try:
        with checkout.session() as session:
            for key in keys:
                anchor = max(key.split(RUNS), key=len).strip(QUOTED)
                if not anchor or "\ufffd" in anchor or "\n" in anchor or "\x00" in anchor:
                    continue
                out = session.run("log", "--no-renames", "--no-textconv", "--no-ext-diff",
                                  "--no-show-signature", "--format=%H", "--max-count=1",
                                  f"-S{anchor}", "HEAD", "--", *_globs())
                if not out.strip():
                    absent.add(key)
    except (OSError, SourceError):
        return set()
    return absent
