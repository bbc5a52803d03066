"""Untrusted text at the CLI, the terminal, the hook and the store's door: bytes that
are not UTF-8, batches with bad lines, indexed messages and file names carrying terminal
control sequences, a database another process holds locked, one on read-only media, and
exceptions that would cost the hook seconds. Each test builds its hostile input here
(tests/hostile/cli.py) and asserts what a user sees, by counting: exit codes, lines,
control bytes, bytes read, templates loaded. Never by the clock."""

from __future__ import annotations

import io
import json
import os
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.models import IndexSummary, Language, Snapshot
from errdex.serve import hook, terminal
from errdex.serve.cli import EXIT_STORE
from errdex.service import NEAR_LIMIT, matcher_for_text
from errdex.store import SQLiteStore
from tests.builders import make_record
from tests.hostile import Case
from tests.hostile.cli import (
    FILE_NAME,
    MESSAGE,
    batch_lines,
    build_tree,
    cases,
    lock_holder,
    message_id,
    without_key_index,
)

HANG = 120  # seconds: a subprocess still running then is hung (a detector, not a budget)
# What must never reach a terminal raw: C0 controls but newline and tab, DEL, C1
# controls, bidi controls and separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
STYLE = re.compile("\x1b\\[(?:0|1|2|36)m")  # terminal.Style's own sequences


def errdex(
    *argv: str | bytes, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("ERRDEX_", "FORCE_"))}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "errdex", *argv], input=stdin,
                          capture_output=True, env=environ, timeout=HANG, check=False)


def raw_controls(output: bytes, color: bool = False) -> list[str]:
    """The control characters in `output` that a terminal would act on; it must also be
    valid UTF-8 (a lone surrogate can't be encoded, so it would have crashed)."""
    text = output.decode("utf-8")
    if color:
        text = STYLE.sub("", text)
    return RAW.findall(text)


def one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")
    assert text.count("\n") == 1 and text.startswith("errdex: "), text
    assert "Traceback" not in text
    return text


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hostile tree, indexed (the first of `cases`)."""
    root = tmp_path_factory.mktemp("safety-cli")
    db = root / "db.sqlite"
    built = cases(root / "cases")
    index = built[0]
    done = errdex(*(a.replace("{db}", str(db)) for a in index.argv))
    assert done.returncode == 0, done.stderr
    assert not raw_controls(done.stdout + done.stderr)
    return {"root": root, "db": db, "cases": root / "cases"}


# -- every case of tests/hostile/cli.py, in order ----------------------------------------


@pytest.mark.slow
def test_every_hostile_case_ends_as_documented(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")
    built: list[Case] = cases(tmp_path / "cases")
    assert built[0].name.startswith("index")
    for case in built:
        done = errdex(*(a.replace("{db}", db) for a in case.argv), stdin=case.stdin,
                      env=case.env)
        assert done.returncode in case.exits, (case.name, done.stderr)
        assert not any(marker.exists() for marker in case.markers), case.name
        assert b"Traceback" not in done.stderr, (case.name, done.stderr)
        color = "FORCE_COLOR" in case.env
        assert not raw_controls(done.stdout, color), case.name
        assert not raw_controls(done.stderr), case.name


# -- 1. text that is not UTF-8, and the size limit ---------------------------------------

# The hostile tree's `spin` raises f"spin \u009b{speed}\x1b]0;title\x07 failed": a text
# with bytes that are no UTF-8 in the hole.
SPIN = "spin \u009b".encode() + b"\xff\xfe\xc3" + b"\x1b]0;title\x07 failed"


def test_explain_takes_argv_and_stdin_that_are_not_utf8(world: dict[str, Path]) -> None:
    db = str(world["db"])
    for argv, stdin in (((SPIN,), b""), (("-",), SPIN)):
        text = errdex("--db", db, "explain", *argv, stdin=stdin)
        assert text.returncode == 0, text.stderr
        assert text.stderr == b""
        assert not raw_controls(text.stdout)
        assert "your values: speed = \ufffd\ufffd\ufffd" in text.stdout.decode("utf-8")
        as_json = errdex("--db", db, "explain", "--json", *argv, stdin=stdin)
        assert as_json.returncode == 0, as_json.stderr
        result = json.loads(as_json.stdout)
        assert result["matches"][0]["values"] == {"speed": "\ufffd\ufffd\ufffd"}
        assert result["input"].startswith("spin \u009b\ufffd")
        assert not raw_controls(as_json.stdout)


def test_other_text_arguments_that_are_not_utf8_are_one_line(world: dict[str, Path]) -> None:
    db = str(world["db"])
    shown = errdex("--db", db, "show", b"\xff\x1b[2J")
    assert shown.returncode == 1
    assert one_line(shown.stderr) == "errdex: no error with id '\ufffd\\x1b[2J'\n"
    listed = errdex("--db", db, "list", "--repo", b"\xfe")
    assert listed.returncode == 2
    assert one_line(listed.stderr) == ("errdex: repository '\ufffd' is not indexed (indexed: "
                                       "hostile/cli)\n")


def test_explain_stops_reading_stdin_at_the_limit(world: dict[str, Path]) -> None:
    limit, chunk, total = 100_000, 1 << 16, 64 << 20
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    environ["ERRDEX_MAX_INPUT_BYTES"] = str(limit)
    proc = subprocess.Popen(
        [sys.executable, "-m", "errdex", "--db", str(world["db"]), "explain", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ,
    )  # fmt: skip
    assert proc.stdin is not None
    written = 0
    try:
        while written < total:
            proc.stdin.write(b"spin failed " * (chunk // 12))
            proc.stdin.flush()
            written += chunk
    except BrokenPipeError:  # errdex stopped reading and left
        pass
    out, err = proc.communicate(timeout=HANG)
    assert proc.returncode == 2
    assert one_line(err) == f"errdex: input too large: over {limit:,} bytes (for a whole log, " \
        "use `errdex scan`)\n"
    assert out == b""
    assert written < limit + (8 << 20)  # it read the limit, not the 64 MB offered
    # exactly the limit is still read and explained
    at_limit = errdex("--db", str(world["db"]), "explain", "-", stdin=b"x" * limit,
                      env={"ERRDEX_MAX_INPUT_BYTES": str(limit)})
    assert at_limit.returncode == 1
    assert one_line(at_limit.stderr) == "errdex: no known error matches this text\n"


# -- 2. --batch ------------------------------------------------------------------------


def test_batch_answers_every_line_and_goes_on(world: dict[str, Path]) -> None:
    done = errdex("--db", str(world["db"]), "explain", "--batch", "-", stdin=batch_lines(),
                  env={"ERRDEX_MAX_INPUT_BYTES": "5000"})
    assert done.returncode == 2
    assert one_line(done.stderr) == "errdex: 6 line(s) of - could not be read\n"
    assert not raw_controls(done.stdout)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 10  # one per line in, in order
    errors = {a["line"]: a["error"]["message"] for a in answers if "error" in a}
    assert errors == {
        2: 'each line must be an object with a string "text"',
        4: "line is nested too deeply to read",
        5: 'each line must be an object with a string "text"',
        6: 'each line must be an object with a string "text"',
        7: "line too large: over 5,000 bytes",
        8: "not JSON: Expecting value: line 1 column 1 (char 0)",
    }
    results = [a for a in answers if "error" not in a]
    assert results[0]["matches"][0]["id"] == message_id()  # line 1, before the bad ones
    assert results[1]["input"] == "bad \ufffd\ufffd utf-8 \ufffd"  # line 3: replaced
    assert results[2]["input"] == "\ufffd\ufffd lone surrogates"  # line 9
    assert results[3]["matches"][0]["id"] == message_id()  # line 10, after them


def _read_line(stream: io.BufferedReader) -> bytes:
    ready, _, _ = select.select([stream], [], [], HANG)
    assert ready, "no answer: the batch held it back"
    return stream.readline()


def test_batch_answers_each_line_before_the_next_arrives(world: dict[str, Path]) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "errdex", "--db", str(world["db"]), "explain", "--batch", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps({"text": MESSAGE}).encode() + b"\n")
        proc.stdin.flush()
        first = json.loads(_read_line(proc.stdout))  # stdin is still open
        assert first["matches"][0]["id"] == message_id()
        proc.stdin.write(b"[" * 100_000 + b"\n")
        proc.stdin.flush()
        assert json.loads(_read_line(proc.stdout)) == {
            "line": 2, "error": {"message": "line is nested too deeply to read"}}
    finally:
        proc.stdin.close()
        proc.wait(timeout=HANG)
    assert proc.returncode == 2


# -- 3. terminal escapes -----------------------------------------------------------------


def _commands(world: dict[str, Path]) -> Iterator[tuple[str, list[str]]]:
    log = world["root"] / "hostile.log"
    log.write_bytes(MESSAGE.encode() + b"\n\xff\x1b]0;t\x07\r\n" + SPIN + b"\n")
    listed = errdex("--db", str(world["db"]), "list", "--json")
    ids = [row["id"] for row in json.loads(listed.stdout)]
    assert message_id() in ids and len(ids) == 3
    for json_flag in ([], ["--json"]):
        for record in ids:
            yield "show", ["show", *json_flag, record]
        yield "list", ["list", *json_flag]
        yield "explain", ["explain", *json_flag, MESSAGE]
        yield "scan", ["scan", *json_flag, str(log)]


@pytest.mark.parametrize("color", [False, True], ids=["plain", "color"])
def test_no_command_prints_a_raw_control_character(
    world: dict[str, Path], tmp_path: Path, color: bool
) -> None:
    env = {"FORCE_COLOR": "1"} if color else {}
    index = errdex("--db", str(tmp_path / "fresh.sqlite"), "index",
                   str(build_tree(tmp_path / "tree").parent), "--repo", "o/\x1b[2Jr", env=env)
    assert index.returncode == 0
    assert b"o/\\x1b[2Jr" in index.stdout  # the summary names the repo, escaped
    seen = b""
    for name, argv in _commands(world):
        done = errdex("--db", str(world["db"]), *argv, env=env)
        assert done.returncode == 0, (name, done.stderr)
        assert not raw_controls(done.stdout, color and "--json" not in argv), (name, argv)
        assert not raw_controls(done.stderr), name
        seen += done.stdout
    # shown, not dropped: the message, the file name and the function named after it
    assert b"\\x1b]52;c;aGk=\\x07\\x1b[2J\\x9b31m\\x9d0;t\\x07\\x7f\\u202e\\u2066" in seen
    assert terminal.safe(FILE_NAME).encode() in seen
    assert b"hostilelib.ev\\x1b[2Jil\\x9b\\u202e.spin" in seen
    # JSON keeps the text exactly, with C0, C1 and bidi as escapes
    assert b'\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u009d0;t\\u0007\\u007f' in seen
    missing = errdex("--db", str(tmp_path / "n\x1b]0;o\x07\u009b\u202e.sqlite"), "list")
    assert missing.returncode == EXIT_STORE
    assert one_line(missing.stderr).startswith("errdex: no database at ")
    assert not raw_controls(missing.stderr)


def test_json_escapes_c1_and_bidi_and_reads_back_the_same() -> None:
    value = {"m\u009b": "a\u0085b\u009dc\u202ed\u2028e\x1bf\udcff", "n": [1, "\u00e9"]}
    text = terminal.json_text(value)
    assert not RAW.findall(text) and "\udcff" not in text
    assert "\u00e9" in text  # other non-ASCII text stays readable
    assert json.loads(text) == value


def test_safe_is_idempotent_and_keeps_newlines_unless_one_line() -> None:
    text = "a\x1b[31mb\nc\td\u009b\r\ud800"
    once = terminal.safe(text)
    assert once == "a\\x1b[31mb\nc\td\\x9b\\x0d\\ud800"
    assert terminal.safe(once) == once
    assert terminal.safe(text, one_line=True).count("\n") == 0


# -- 4. the hook's budget, and locks ---------------------------------------------------

MANY = 3_000  # records sharing the approximate-matching key "~error"
UNKEYED = 300  # records of punctuation and holes only: every text is their candidate


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database where a common word keys thousands of templates for approximate
    matching, and hundreds of templates have no word at all."""
    db = tmp_path_factory.mktemp("crowded") / "crowded.sqlite"
    records = [
        make_record(f"error {{}} in file at line code{i}", holes=(("x", "x"),),
                    language=Language.PYTHON, exception="ValueError", line=i + 1)
        for i in range(MANY)
    ] + [
        make_record("{} " + "-" * (i + 1) + "> {}", holes=(("a", "a"), ("b", "b")),
                    language=Language.PYTHON, line=MANY + i + 1)
        for i in range(UNKEYED)
    ]
    snapshot = Snapshot("o/r", "abc123", None, None, "/tmp", None)
    with SQLiteStore(db) as store:
        store.replace_snapshot(snapshot, IndexSummary("o/r", None, 1, (), (), len(records),
                                                      0, 0.0), records)
        assert len(store.match_candidates("anything", near=False) or []) == UNKEYED
    return db


def _hooked(exc: BaseException, db: Path) -> tuple[str, hook.HookStats]:
    stats = hook.HookStats()
    out = io.StringIO()
    try:
        raise exc
    except BaseException as raised:
        hook.explain_exception(raised, raised.__traceback__, out, str(db), stats)
    return out.getvalue(), stats


def test_the_hook_loads_only_templates_the_key_index_selects(crowded: Path) -> None:
    out, stats = _hooked(RuntimeError("connection error in file"), crowded)
    assert out.strip() == f"errdex: no indexed error matches this exception ({crowded})"
    assert stats.entries <= hook.MAX_CANDIDATES  # not the 3,300 records
    out, stats = _hooked(ValueError("error 5 in file at line code77"), crowded)
    assert "errdex: o/r — error {} in file at line code77" in out
    assert "your values: x = 5" in out
    # the unkeyed templates fill only what the specific keys left
    assert stats.entries <= hook.MAX_CANDIDATES


def test_explain_loads_a_bounded_number_of_templates_to_guess_from(crowded: Path) -> None:
    """A word every template keeps for approximate matching ("~error") would have
    `explain` compile all of them for one unrelated text."""
    with SQLiteStore(crowded, create=False) as store:
        guessed = matcher_for_text(store, "connection error in file", near_limit=500)
        # the unkeyed templates (every text's exact candidates), and 500 guesses
        assert guessed is not None and len(guessed.entries) == UNKEYED + 500
        exact = matcher_for_text(store, "error 5 in file at line code77", near_limit=500)
        assert exact is not None and len(exact.entries) == UNKEYED + 1  # exact: no guesses
    assert NEAR_LIMIT < MANY + UNKEYED + 10_000


def test_the_hook_does_not_search_a_database_without_a_key_index(
    crowded: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old.sqlite"
    shutil.copy(crowded, old)
    without_key_index(old)
    out, stats = _hooked(ValueError("error 5 in file at line code77"), old)
    assert out.strip() == (f"errdex: {old} has no key index (written by an older errdex): "
                           "run `errdex index` again to explain errors here")
    assert stats.entries == 0


def test_the_hook_reads_a_bounded_tail_of_a_huge_traceback(crowded: Path) -> None:
    huge = "y " * 2_500_000  # 5 MB
    out, stats = _hooked(RuntimeError("connection error " + huge), crowded)
    assert out.strip() == f"errdex: no indexed error matches this exception ({crowded})"
    assert stats.chars <= hook.MAX_TEXT_CHARS
    # a message's start is kept: a template that opens it still matches
    out, stats = _hooked(ValueError("error 5 in file at line code77 " + huge), crowded)
    assert stats.chars <= hook.MAX_TEXT_CHARS
    assert "your values: x = 5" in out
    # the error raised last is at the end, and is still explained
    try:
        try:
            raise RuntimeError(huge)
        except RuntimeError as first:
            raise ValueError("error 6 in file at line code78") from first
    except ValueError as chained:
        out, stats = _hooked(chained, crowded)
    assert stats.chars <= hook.MAX_TEXT_CHARS
    assert "your values: x = 6" in out


@pytest.fixture
def locked(world: dict[str, Path]) -> Iterator[Path]:
    """The indexed database, held locked by a second process for the test's length."""
    holder = subprocess.Popen(lock_holder(world["db"]), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == b"locked\n"
    try:
        yield world["db"]
    finally:
        holder.stdin.close()
        holder.wait(timeout=HANG)


def test_a_locked_database_is_one_line_for_explain_and_the_hook(
    locked: Path, tmp_path: Path
) -> None:
    for wait, argv in (("2", ["explain", MESSAGE]), ("0", ["--lock-wait", "0", "list"]),
                       ("2", ["show", message_id()])):
        done = errdex("--db", str(locked), *argv)
        assert done.returncode == EXIT_STORE, argv
        assert one_line(done.stderr) == (f"errdex: database {locked} is locked by another "
                                         f"process (waited {wait} s)\n")
    script = tmp_path / "raises.py"
    script.write_text(f"raise ValueError({MESSAGE!r})\n", encoding="utf-8")
    hooked = errdex("--db", str(locked), "run", str(script))
    assert hooked.returncode == 1
    stderr = hooked.stderr.decode("utf-8")
    assert stderr.startswith("Traceback (most recent call last):")  # Python's, untouched
    assert stderr.rstrip("\n").rsplit("\n", 1)[-1] == (
        f"errdex: could not explain this error (StoreError: database {locked} is locked by "
        f"another process (waited {hook.LOCK_WAIT:g} s))")


# -- 5. read-only media ------------------------------------------------------------------


def _read_only_wrapper(directory: str) -> list[str]:
    """A command prefix under which `directory` can't be written: a read-only bind
    mount in a private mount namespace, else an unprivileged user (root ignores file
    modes, so chmod alone makes no read-only location). Skips if neither works here."""
    mount = (f"mount --bind {directory} {directory} && "
             f"mount -o remount,bind,ro {directory} && exec \"$@\"")
    probe = ["sh", "-c", f"! touch {directory}/probe 2>/dev/null"]
    for wrapper in (["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh"],
                    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]):
        if shutil.which(wrapper[0]) is None:
            continue
        done = subprocess.run(wrapper + probe, capture_output=True, timeout=HANG, cwd="/",
                              check=False)
        if done.returncode == 0:
            return wrapper
    pytest.skip("no way to make a read-only location here (no mount namespace, no setpriv)")


@pytest.mark.slow
def test_reading_commands_open_a_database_on_read_only_media(world: dict[str, Path]) -> None:
    media = tempfile.mkdtemp(prefix="errdex-ro-")  # outside pytest's 0700 tmp: nobody reads it
    writable = tempfile.mkdtemp(prefix="errdex-rw-")
    try:
        os.chmod(media, 0o755)
        os.chmod(writable, 0o777)
        db = os.path.join(media, "errdex.sqlite")
        with sqlite3.connect(world["db"]) as src, sqlite3.connect(db) as dst:
            src.backup(dst)
            assert dst.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
        dst.close()
        os.chmod(db, 0o444)
        script = os.path.join(writable, "raises.py")
        Path(script).write_text(f"raise ValueError({MESSAGE!r})\n", encoding="utf-8")
        log = os.path.join(writable, "x.log")
        Path(log).write_text(MESSAGE + "\n", encoding="utf-8")
        wrapper = _read_only_wrapper(media)
        base = [*wrapper, sys.executable, "-m", "errdex", "--db", db]

        def run(*argv: str) -> subprocess.CompletedProcess[str]:
            environ = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
            return subprocess.run([*base, *argv], capture_output=True, text=True, cwd="/",
                                  env=environ, timeout=HANG, check=False)

        assert run("explain", MESSAGE).stdout.count(f"errdex show {message_id()}") == 1
        assert "hostile widget" in run("show", message_id()).stdout
        assert run("list").stdout.count("hostile/cli") == 3
        assert "1 with a known error" in run("scan", log).stdout
        site = os.path.join(writable, "site")
        assert run("export", site).returncode == 0 and os.path.isdir(site)
        hooked = run("run", script)
        assert hooked.returncode == 1 and f"errdex show {message_id()}" in hooked.stderr
        served = subprocess.run(
            [*wrapper, sys.executable, "-c", "import sys; from errdex.serve.web.app import "
             "create_app; create_app(sys.argv[1]); print('serving')", db],
            capture_output=True, text=True, cwd="/", timeout=HANG, check=False,
        )  # fmt: skip
        assert served.stdout == "serving\n", served.stderr
        # writing there fails in one line, and nothing was ever written next to it
        index = run("index", str(world["cases"] / "tree"))
        assert index.returncode == EXIT_STORE and index.stderr.count("\n") == 1, index.stderr
        assert sorted(os.listdir(media)) == ["errdex.sqlite"]
    finally:
        shutil.rmtree(media, ignore_errors=True)
        shutil.rmtree(writable, ignore_errors=True)
