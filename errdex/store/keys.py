"""The on-disk key index: rare words and word pairs of each template -> record ids, kept in
the database next to the records, so a one-shot `errdex explain` (or the exception hook)
loads only the few templates a text can match instead of compiling every template.

Why keys are sound: an exact match finds every literal of the template in the text, so
every whole word of its literals is a word of the text too, and two words next to each
other in one literal are next to each other in the text. A template is keyed by its
rarest such word or pair (the exact path), plus its two rarest single words (so a text
from a nearby version, with one rare word changed, still finds it for approximate
matching), plus its Rust variant name (Debug forms) and, for a message made at run time,
its exception type. Words touching a hole are skipped: `{}ing failed` prints `loading
failed`, where `ing` is no word. Rarity is counted within the snapshot being written (one
version of one repository), so a snapshot's keys are rebuilt in the same transaction as
its records, never all keys; a key names (snapshot, record id), and a probe only follows
the keys of the snapshots being read (each repository's newest, or a chosen version).

The keys themselves (`text_keys`, `template_keys`, `record_keys`, `probe_order`) are plain
functions, shared by every backend. The rest reads and writes only the `match_keys` and
`match_index` tables (declared in `errdex.store.sqlite.SCHEMA`); the SQLite store calls
`delete_snapshot` and `index_snapshot` from `replace_snapshot`. Choosing which templates to compile
for a text, and compiling them, is the service's (`errdex.service.matcher_for_text`): this
module must not import the matcher.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from errdex.contract import template_from_dict
from errdex.languages import languages_that
from errdex.models import MatchEntry, Record, Template
from errdex.words import WORD

INDEX_VERSION = 2
ALWAYS = ""  # the key of templates with no usable word: candidates for every text
NEAR = "~"  # prefixes the rare words kept for approximate matching (read in a second step)
APPROX_WORDS = 2  # rarest single words kept per template for approximate matching
_WORD_CHAR = re.compile(r"\w")


def template_tokens(template: Template) -> tuple[list[str], list[str]]:
    """The whole words of a template's literals (lowercased) and adjacent word pairs."""
    words: list[str] = []
    pairs: list[str] = []
    last = len(template.literals) - 1
    for k, literal in enumerate(template.literals):
        found = list(WORD.finditer(literal))
        if k > 0 and found and not _has_separator(literal[: found[0].start()]):
            found = found[1:]  # glued to the hole before it
        if k < last and found and not _has_separator(literal[found[-1].end() :]):
            found = found[:-1]  # glued to the hole after it
        tokens = [m.group().lower() for m in found]
        words.extend(tokens)
        pairs.extend(f"{a} {b}" for a, b in itertools.pairwise(tokens))
    return words, pairs


def _has_separator(text: str) -> bool:
    return any(not _WORD_CHAR.match(c) for c in text)


def text_keys(text: str, near: bool = False, near_only: bool = False) -> set[str]:
    """Every key a text can hit: its words, its adjacent word pairs, and ALWAYS; with
    `near`, also its words as approximate-matching keys; with `near_only`, only those."""
    words = WORD.findall(text.lower())
    if near_only:
        return {NEAR + w for w in set(words)}
    keys = set(words)
    keys.update(f"{a} {b}" for a, b in itertools.pairwise(words))
    if near:
        keys.update(NEAR + w for w in set(words))
    keys.add(ALWAYS)
    return keys


def template_keys(
    template: Template,
    exception: str | None,
    variant: str | None,
    language: str,
    df: Counter[str],
) -> set[str]:
    words, pairs = template_tokens(template)
    keys: set[str] = set()
    candidates = set(words) | set(pairs)
    if candidates:
        keys.add(min(candidates, key=lambda k: (df[k], -len(k), k)))
        keys.update(
            NEAR + w for w in sorted(set(words), key=lambda w: (df[w], -len(w), w))[:APPROX_WORDS]
        )
    if variant:
        keys.add(variant.lower())
    literal_text = "".join(template.literals).strip()
    if exception and not literal_text and _exception_named_in_output(language):
        tail = re.split(r"[.:]+", exception.strip())[-1].lower()
        if tail:
            keys.add(tail)
    if not candidates and literal_text:
        keys.add(ALWAYS)  # only punctuation or one-letter words: can't be keyed
    return keys


def _exception_named_in_output(language: str) -> bool:
    """Whether the language prints the exception's type before its message (`KeyError:
    'x'`): then a template with no fixed text is still found by its type's name."""
    return language in languages_that("exception_named_in_output")


def delete_snapshot(conn: sqlite3.Connection, snapshot: int) -> None:
    """Drop one snapshot's keys (its records are deleted by the caller)."""
    conn.execute("DELETE FROM match_keys WHERE snapshot = ?", (snapshot,))
    conn.execute("DELETE FROM match_index WHERE snapshot = ?", (snapshot,))


def record_keys(
    records: Iterable[tuple[str, Template, str | None, str | None, str]],
) -> list[tuple[str, str]]:
    """(key, record id) for every (id, template, exception, variant, language) of one
    snapshot: rarity is counted among these templates only."""
    parsed = list(records)
    df: Counter[str] = Counter()
    for _, template, _, _, _ in parsed:
        words, pairs = template_tokens(template)
        df.update(set(words) | set(pairs))
    return [
        (key, record_id)
        for record_id, template, exception, variant, language in parsed
        for key in template_keys(template, exception, variant, language, df)
    ]


def index_snapshot(conn: sqlite3.Connection, snapshot: int) -> int:
    """Key every record of one snapshot (already written); returns the keys written."""
    rows = conn.execute(
        "SELECT id, exception, language, match_data FROM records WHERE snapshot = ?",
        (snapshot,),
    ).fetchall()
    parsed = []
    for row in rows:
        data = json.loads(row[3])
        parsed.append((row[0], template_from_dict(data), row[1], data.get("variant"), row[2]))
    keyed = record_keys(parsed)
    conn.executemany("INSERT OR IGNORE INTO match_keys (key, snapshot, rid) VALUES (?, ?, ?)",
                     [(key, snapshot, rid) for key, rid in keyed])
    conn.execute("INSERT OR REPLACE INTO match_index (snapshot, version) VALUES (?, ?)",
                 (snapshot, INDEX_VERSION))
    return len(keyed)


def is_complete(conn: sqlite3.Connection) -> bool:
    """Every snapshot has keys of this version."""
    row = conn.execute(
        "SELECT count(*) FROM snapshots s LEFT JOIN match_index m ON m.snapshot = s.id "
        "WHERE m.version IS NULL OR m.version != ?",
        (INDEX_VERSION,),
    ).fetchone()
    return bool(row[0] == 0)


def candidate_entries(
    conn: sqlite3.Connection, text: str, snapshots: Sequence[int], near: bool = False,
    limit: int | None = None, near_only: bool = False,
) -> list[MatchEntry] | None:
    """The entries of `snapshots` whose keys the text hits (with `near`, also the records that share
    a rare word, for approximate matching; with `near_only`, only those), at most
    `limit` of them, or None when the index is missing or stale (the caller then
    compiles every template)."""
    if not is_complete(conn):
        return None
    keys: Iterable[str] = text_keys(text, near, near_only)
    if limit is not None:
        keys = probe_order(keys)
    # The keys go in as one JSON array, probed by json_each: a megabyte of text has a
    # million keys, and a temp table of them costs seconds to fill; this, a fraction.
    rows = conn.execute(
        "SELECT r.id, r.repo, r.exception, r.language, r.match_data, s.version "
        "FROM records r JOIN snapshots s ON s.id = r.snapshot WHERE (r.snapshot, r.id) IN "
        # CROSS JOIN fixes the order: the keys in the array's order, each probing the
        # index (never a scan); the limit is on key hits, so the probe stops early too.
        "(SELECT k.snapshot, k.rid FROM json_each(?) q CROSS JOIN match_keys k "
        "ON k.key = q.value WHERE k.snapshot IN (SELECT value FROM json_each(?)) LIMIT ?) "
        "ORDER BY r.repo, r.path, r.line",
        (json.dumps(list(keys), ensure_ascii=False), json.dumps(list(snapshots)),
         -1 if limit is None else limit),
    ).fetchall()
    return entries_from_rows(rows)


def probe_order(keys: Iterable[str]) -> list[str]:
    """Words and pairs, then approximate-matching keys, then ALWAYS: probed in this
    order, the keys that single out a template fill a limit first, and the templates no
    word keys only what is left. (A partition, not a sort: a text may have millions.)"""
    exact: list[str] = []
    near: list[str] = []
    always: list[str] = []
    for key in keys:
        (always if key == ALWAYS else near if key.startswith(NEAR) else exact).append(key)
    return exact + near + always


def match_data(record: Record, data: dict[str, Any]) -> dict[str, Any]:
    """What the matcher reads of a record (`entries_from_rows` makes it a MatchEntry
    again), from the record and its JSON (`data`), as every backend stores it."""
    first = record.sites[0]
    return {
        "template": data["template"], "message": data["message"],
        "placeholders": data["placeholders"],
        "sites": [[s.path, s.line] for s in record.sites],
        "variant": first.variant, "variant_fields": list(first.variant_fields),
        "kind": record.kind.value,
    }


def entries_from_rows(rows: Iterable[Sequence[object]]) -> list[MatchEntry]:
    """(id, repo, exception, language, match_data, version) rows -> MatchEntry."""
    out = []
    for record_id, repo, exception, language, match_data, version in rows:
        data = json.loads(str(match_data))
        out.append(
            MatchEntry(
                record_id=str(record_id),
                repo=str(repo),
                exception=None if exception is None else str(exception),
                template=template_from_dict(data),
                sites=tuple((path, line) for path, line in data["sites"]),
                variant=data["variant"],
                variant_fields=tuple(data["variant_fields"]),
                language=str(language),
                version=None if version is None else str(version),
                kind=str(data.get("kind", "")),  # stored before kinds were kept: none
            )
        )
    return out
