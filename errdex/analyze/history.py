"""Git history of messages: the commit (date, first tag containing it) that introduced a
message and the last commit that changed a line carrying it, and for messages that are
gone, the commit that removed them.

Bounded in cost: ONE `git log -p -U0` pass over the snapshot's source files, every added
and removed line scanned once by an Aho-Corasick automaton of the messages' longest
literal runs, and one `git name-rev` call for the tags; a time budget stops the pass on
huge histories (what was seen until then is kept). Only `git` is run, read-only, and
through `errdex.source.git`: the checkout's config, hooks, textconv and diff drivers are never
used (the tree is untrusted).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import ahocorasick_rs

from errdex.errors import SourceError
from errdex.models import History
from errdex.source import git

BUDGET_SECONDS = 60.0
_GLOBS = ("*.rs", "*.py")


@dataclass
class _Seen:
    introduced: tuple[str, str] | None = None  # (commit, date)
    changed: tuple[str, str] | None = None
    added_at: int = -1  # sequence number of the last commit that added a line with it
    removed_at: int = -1
    removed: tuple[str, str] | None = None


def _scan(session: git.Git, keys: Sequence[str], budget: float) -> dict[str, _Seen]:
    keys = list(dict.fromkeys(keys))
    automaton = ahocorasick_rs.AhoCorasick(keys)
    seen: dict[str, _Seen] = {}
    deadline = time.monotonic() + budget
    # No textconv, external diff or signature check even if asked for: raw diffs only.
    with session.popen("log", "--reverse", "--no-renames", "--no-color", "--no-textconv",
                       "--no-ext-diff", "--no-show-signature", "-p", "-U0",
                       "--format=%x00%H %cI", "HEAD", "--", *_GLOBS) as proc:
        assert proc.stdout is not None
        commit: tuple[str, str] = ("", "")
        number = 0
        for count, raw in enumerate(proc.stdout):
            first = raw[:1]
            if first == b"\x00":
                sha, _, date = raw[1:].decode("ascii", "replace").strip().partition(" ")
                commit, number = (sha, date), number + 1
                if count % 64 == 0 and time.monotonic() > deadline:
                    proc.kill()
                    break
                continue
            if first not in (b"+", b"-") or raw[:4] in (b"+++ ", b"--- "):
                continue
            line = raw[1:].decode("utf-8", "replace")
            for index, _, _ in automaton.find_matches_as_indexes(line, overlapping=True):
                key = keys[index]
                state = seen.setdefault(key, _Seen())
                op = first.decode()
                if op == "+" and state.introduced is None:
                    state.introduced = commit
                state.changed = commit
                if op == "+":
                    state.added_at = number
                else:
                    state.removed_at, state.removed = number, commit
    return seen


def _tags(session: git.Git, commits: Sequence[str]) -> dict[str, str]:
    """commit -> the tag nearest above it (the first release that contains it)."""
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
    return out


def message_history(
    root: str, keys: Mapping[str, Sequence[str]], budget: float = BUDGET_SECONDS
) -> dict[str, History]:
    """For each id, its message's history. `keys` maps a literal run of a message to the
    ids that carry it; ids whose literal was removed and not added back get
    `removed_commit`. Empty when `root` is not the top of a git checkout with a commit."""
    checkout = git.find_checkout(Path(root)) if keys and Path(root).is_dir() else None
    if checkout is None or checkout.head is None:
        return {}
    try:
        with checkout.session() as session:
            seen = _scan(session, list(keys), budget)
            tags = _tags(session, [s.introduced[0] for s in seen.values() if s.introduced])
    except (OSError, SourceError):
        return {}
    out: dict[str, History] = {}
    for key, ids in keys.items():
        state = seen.get(key)
        if state is None or state.introduced is None:
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
        )
        for record_id in ids:
            out[record_id] = history
    return out
