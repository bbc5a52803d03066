"""The compiled matcher (mypyc, see setup.py) gives the answers of the source it was
compiled from. Tests run on the source tree, so this is the one place the installed,
compiled package is checked: a subprocess started outside the tree imports it and matches
the same pastes against the same index as the interpreted matcher in this process.
Skipped where errdex is installed uncompiled (an editable install, ERRDEX_PURE_PYTHON),
unless ERRDEX_REQUIRE_COMPILED is set, as CI sets it: there a build that silently fell back
to plain Python fails."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex.index import index_snapshot
from errdex.match import MatchEntry, Matcher
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

FIXTURES = Path(__file__).parent / "fixtures"

_MATCH_ALL = """
import json, sys
from errdex.match import Matcher
from errdex.store import SQLiteStore
db, pastes = sys.argv[1], json.load(sys.stdin)
with SQLiteStore(db, create=False) as store:
    matcher = Matcher(store.match_entries())
import errdex.match.matcher
from errdex.match.saved import dump_matcher, load_saved
restored = load_saved(dump_matcher(matcher, "state"), "state")  # lazy entries, compiled code
out = {"compiled": not errdex.match.matcher.__file__.endswith(".py"), "results": [],
       "restored": []}
for text in pastes:
    for key, one in (("results", matcher), ("restored", restored)):
        found = one.match(text, limit=5)
        out[key].append([[m.record_id, m.score, m.exact, m.values, m.span, m.why,
                          m.site_index] for m in found])
print(json.dumps(out))
"""


def _outside_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def _installed_is_compiled(cwd: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", "import errdex.match.matcher as m; print(m.__file__)"],
        cwd=cwd, env=_outside_env(), capture_output=True, text=True, check=False,
    )
    return done.returncode == 0 and not done.stdout.strip().endswith(".py")


def _require_installed_build(cwd: Path) -> None:
    """Skips the test where errdex is installed uncompiled; fails it under
    ERRDEX_REQUIRE_COMPILED (CI), where that means the build fell back to Python."""
    if not _installed_is_compiled(cwd):
        if os.environ.get("ERRDEX_REQUIRE_COMPILED"):
            pytest.fail("errdex was installed without its compiled matcher (see pip's log)")
        pytest.skip("errdex is installed without its compiled matcher (editable install)")


def _pastes(entries: list[MatchEntry]) -> list[str]:
    """Every template filled with plausible values, as a bare message, with its
    exception type, inside a traceback and with a word dropped; plus lines from no
    template."""
    rng = random.Random(7)
    values = ["[2, 16, 8, 64]", "'weight'", "42", "F16", "/tmp/x.bin", "", "a b c"]
    out: list[str] = []
    for e in entries:
        t = e.template
        text = t.literals[0] + "".join(
            rng.choice(values) + lit for lit in t.literals[1:]
        )
        kind = (e.exception or "Error").rsplit(".", 1)[-1]
        path, line = e.sites[0] if e.sites else ("a.py", 1)
        words = text.split(" ")
        out += [
            text,
            f"{kind}: {text}",
            f'Traceback (most recent call last):\n  File "/x/{path}", line {line}, in f\n'
            f"    raise\n{kind}: {text}",
            " ".join(words[:1] + words[2:]),
        ]
    out += ["nothing to see here at all", "ERROR app: disk quota 12 exceeded", "x" * 70_000]
    return out


def test_the_compiled_matcher_answers_as_the_source_does(tmp_path: Path) -> None:
    _require_installed_build(tmp_path)
    db = str(tmp_path / "corpus.sqlite")
    with SQLiteStore(db) as store:
        for spec in (FIXTURES / "python_repo", FIXTURES / "rust_repo"):
            for snapshot in resolve(str(spec), SourceOptions()):
                index_snapshot(snapshot, store)
        entries = store.match_entries()
    assert len(entries) > 20
    pastes = _pastes(entries)
    done = subprocess.run(
        [sys.executable, "-c", _MATCH_ALL, db], input=json.dumps(pastes), cwd=tmp_path,
        env=_outside_env(), capture_output=True, text=True, check=True,
    )
    compiled: dict[str, Any] = json.loads(done.stdout)
    assert compiled["compiled"]
    matcher = Matcher(entries)
    mine = [
        [[m.record_id, m.score, m.exact, [list(v) for v in m.values], list(m.span), m.why,
          m.site_index] for m in matcher.match(text, limit=5)]
        for text in pastes
    ]
    assert sum(bool(r) for r in mine) > len(entries)  # most pastes find something
    assert compiled["results"] == mine
    assert compiled["restored"] == mine


_NEAR_BOTH_WAYS = """
import json, sys
import errdex.match.near as nearmiss
literals, messages = json.load(sys.stdin)
literals = [tuple(t) for t in literals]
out = {"native": nearmiss.NATIVE, "differ": [], "found": 0}
for slots in (1, 64, 0):  # every pair in one slot, many per slot, the usual table
    native = nearmiss.NearIndex(literals, slots=slots)
    python = nearmiss.NearIndex(literals, slots=slots, native=False)
    for message in messages:
        mine, theirs = native.nearest(message), python.nearest(message)
        out["found"] += bool(theirs[0])
        if mine != theirs:
            out["differ"].append([slots, message, repr(mine), repr(theirs)])
# Arrays that are no index: refused with an error, never read out of bounds.
table = nearmiss._nearc.token_table({"shape": 3, "mismatch": 5})
bad = [
    (b"", bytes(8), b"", b"", b"", b"", b"", b"", b""),  # no token table
    (table[:40], bytes(8), b"", b"", b"", b"", b"", b"", b""),  # a cut one
    (table, bytes(3), b"", b"", b"", b"", b"", b"", b""),  # a partial number
    (table, bytes(4), b"", b"", b"", b"", b"", b"", b""),  # fewer slots than said
]
out["refused"] = 0
for arrays in bad:
    try:
        nearmiss._nearc.Lookup(*arrays, 1, 500, 500, 3, 25, 3, 0.5)
    except ValueError:
        out["refused"] += 1
print(json.dumps(out))
"""


def _near_cases() -> tuple[list[list[str]], list[str]]:
    """Templates of a small vocabulary (so pairs and words are shared by many, and
    candidates tie), and messages from them with words changed, dropped, added, and
    text a tokenizer can trip on."""
    rng = random.Random(11)
    vocab = ("shape mismatch tensor dtype device cuda cpu index out of bounds for the a an "
             "expected got and to in is not be must have same rank dim dims layout "
             "contiguous strided weights file model safetensors open failed missing key "
             "value query cache batch size len2 x9 _tmp 2d f16").split()
    literals: list[list[str]] = []
    for _ in range(600):
        words = rng.choices(vocab, k=rng.randint(2, 12))
        cut = rng.randint(0, len(words))
        literals.append([" ".join(words[:cut]) + " ", " " + " ".join(words[cut:])])
    odd = ["İstanbul", "KELVIN", "é", "日本語", "\x00", "__init__", "9lives", "x", "A_B"]
    messages = ["", "a", "the the the", "x" * 3000, " ".join(vocab)]
    for parts in literals:
        words = " [2, 3] ".join(parts).split()
        for _ in range(3):
            edited = list(words)
            k = rng.randrange(len(edited))
            change = rng.randrange(4)
            if change == 0:
                edited[k] = rng.choice(vocab)
            elif change == 1:
                del edited[k]
            elif change == 2:
                edited.insert(k, rng.choice(odd + vocab))
            else:
                edited[k] = edited[k].upper() + rng.choice(odd)
            messages.append(" ".join(edited))
    return literals, messages


def test_the_nearest_record_lookup_in_c_answers_as_the_python_one(tmp_path: Path) -> None:
    """errdex/match/_nearc.c, built beside the compiled matcher, gives NearIndex.nearest's
    answers (templates, scores to the last bit, word counts, order, postings read) on
    thousands of near misses, however crowded the pair table."""
    _require_installed_build(tmp_path)
    literals, messages = _near_cases()
    done = subprocess.run(
        [sys.executable, "-c", _NEAR_BOTH_WAYS], input=json.dumps([literals, messages]),
        cwd=tmp_path, env=_outside_env(), capture_output=True, text=True, check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["native"]
    assert result["differ"] == []
    assert result["refused"] == 4
    assert result["found"] > len(messages)  # most of them are near misses of something


def test_hand_written_inits_take_exactly_the_dataclass_fields() -> None:
    """The hot data classes write their own __init__ (mypyc compiles it; the one
    @dataclass writes runs as Python): each must take every field, in order, with the
    field's default, and set it, or a field added later would be silently left unset."""
    import dataclasses
    import inspect

    from errdex.match import compiled, found, paste, rust_debug

    classes = [found.MatchStats, compiled.Compiled, found.Found, paste.Line, paste.Group,
               paste.Doc, paste.DebugHit, paste.Paste, rust_debug.DebugValue]
    for cls in classes:
        fields = dataclasses.fields(cls)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert [p.name for p in params] == [f.name for f in fields], cls
        for p, f in zip(params, fields, strict=True):
            expected = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
            assert p.default == expected, (cls, f.name)
        source = inspect.getsource(cls.__init__)
        for f in fields:
            assert f"self.{f.name} = {f.name}\n" in source, (cls, f.name)
