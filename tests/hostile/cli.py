"""Hostile inputs for the CLI's own surface: text that is not UTF-8, too large or not
JSON, indexed messages and file names that carry terminal control sequences, a database
another process holds locked, a database on read-only media, and exceptions that would
cost the hook seconds.

`cases(tmp)` builds everything under `tmp`. ORDER MATTERS: the first case indexes the
hostile tree into "{db}" and every later case reads that database (the lock and
read-only cases copy or lock it themselves, through small driver scripts run with
`errdex run`, because a case is one errdex command line).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from errdex.models import Template, record_id
from tests.hostile import Case

REPO = "hostile/cli"
# Every kind of control character a terminal acts on, raw: OSC 52 (writes the
# clipboard) ended by BEL, CSI clear-screen, a C1 CSI (U+009B) and a C1 OSC (U+009D),
# DEL, a right-to-left override and a bidi isolate. (No CR: Python source can't hold
# one in a string; the log and batch cases carry it.)
CONTROLS = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u009d0;t\x07\x7f\u202e\u2066"
MESSAGE = f"hostile widget {CONTROLS} jammed"
FILE_NAME = "ev\x1b[2Jil\u009b\u202e.py"  # reaches `list`, `show`, sites and function names
MARKER_NAME = "ran-at-import"


def build_tree(root: Path) -> Path:
    """A small Python library whose messages and file (hence function) names carry raw
    control characters in its source (the extractor keeps a literal's text as written,
    so only raw characters reach a record), and whose module-level code would leave a
    marker if anything ran it."""
    package = root / "hostilelib"
    package.mkdir(parents=True, exist_ok=True)
    marker = root / MARKER_NAME
    (package / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').close()  # only if errdex ran the code\n\n\n"
        "def jam(n):\n"
        "    if n > 3:\n"
        f'        raise ValueError("{MESSAGE}")\n'
        f'    raise RuntimeError("widget error \x1b[31m in file \u009b")\n',
        encoding="utf-8",
    )
    (package / FILE_NAME).write_text(
        "def spin(speed):\n"
        '    raise KeyError(f"spin \u009b{speed}\x1b]0;title\x07 failed")\n',
        encoding="utf-8",
    )
    return package


def message_id() -> str:
    """The id `index --repo hostile/cli` gives MESSAGE's record (for `show`)."""
    return record_id(REPO, Template.literal(MESSAGE))


# The driver scripts below are run with `errdex run`; each reads the message to raise
# or explain from message.txt next to it (written by `cases`). The hook's cases hand
# their exception to `explain_exception`, which is what the installed hook runs after
# Python's traceback, so that stderr holds only errdex's own line (a benchmark counts a
# traceback on stderr as a crash); tests/test_safety_cli.py drives the real excepthook.
_PREAMBLE = """\
import os, sys
import errdex.hook

MESSAGE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "message.txt"),
               encoding="utf-8").read()


def explain(exc, db):
    errdex.hook.explain_exception(exc, exc.__traceback__, sys.stderr, db)
    sys.exit(1)
"""

LOCKER = _PREAMBLE + """\
import sqlite3, subprocess

db, mode = sys.argv[1], sys.argv[2]
holder = sqlite3.connect(db, isolation_level=None)
holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # in WAL mode, what keeps readers out
holder.execute("BEGIN EXCLUSIVE")
holder.execute("INSERT OR REPLACE INTO llm_cache VALUES ('errdex-test-lock', '')")
if mode == "explain":  # a second process reading the database this one locks
    done = subprocess.run([sys.executable, "-m", "errdex", "--db", db, "--lock-wait", "0",
                           "explain", MESSAGE])
    sys.exit(done.returncode)
# else the hook, in this process, reading the database this process's other
# connection locks
try:
    raise ValueError(MESSAGE)
except ValueError as exc:
    explain(exc, db)
"""

READ_ONLY = """\
import os, shutil, sqlite3, subprocess, sys, tempfile

db, args = sys.argv[1], sys.argv[2:]
ro = tempfile.mkdtemp(prefix="errdex-ro-")
os.chmod(ro, 0o755)
copy = os.path.join(ro, "errdex.sqlite")
with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
    src.backup(dst)
    dst.execute("PRAGMA journal_mode=WAL")
os.chmod(copy, 0o444)
errdex = [sys.executable, "-m", "errdex", "--db", copy, *args]
mount = f"mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && exec \\"$@\\""
wrappers = [  # a read-only mount in a private namespace, else a user who can't write
    ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh"],
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
]
probe = ["sh", "-c", f"! touch {ro}/probe 2>/dev/null"]  # 0: ran, and can't write there
code = 3  # no way to make a read-only location here
for wrapper in wrappers:
    if shutil.which(wrapper[0]) and subprocess.run(wrapper + probe, cwd="/").returncode == 0:
        code = subprocess.run(wrapper + errdex, cwd="/").returncode
        break
shutil.rmtree(ro, ignore_errors=True)
sys.exit(code)
"""

HOOK = _PREAMBLE + """\
db, kind = sys.argv[1], sys.argv[2]
try:
    if kind == "unrelated":
        raise RuntimeError("connection error in file " + "x" * 10)
    if kind == "huge":  # 50 MB
        raise ValueError("hostile widget " + "y " * 25_000_000)
    raise ValueError(MESSAGE)
except Exception as exc:
    explain(exc, db)
"""


def batch_lines() -> bytes:
    """A batch where most lines are bad in a different way, around two good ones."""
    return b"\n".join([
        json.dumps({"text": MESSAGE}).encode(),
        b'{"msg": "x"}',
        b'{"text": "bad \xff\xfe utf-8 \xc3"}',
        b"[" * 4_000,  # deeper than the JSON parser recurses, shorter than the limit
        b'{"text": 5}',
        b'"just a string"',
        b'{"text": "' + b"9" * 10_000 + b'"}',
        b"not json at all \x1b[2J",
        b'{"text": "\\udcff\\ud800 lone surrogates"}',
        json.dumps({"text": "x\r" + MESSAGE}, ensure_ascii=False).encode(),
    ]) + b"\n"


def cases(tmp: Path) -> list[Case]:
    tmp.mkdir(parents=True, exist_ok=True)
    tree = build_tree(tmp / "tree")
    marker = tmp / "tree" / MARKER_NAME
    scripts = tmp / "scripts"
    scripts.mkdir(exist_ok=True)
    for name, text in (("locker.py", LOCKER), ("readonly.py", READ_ONLY), ("hook.py", HOOK)):
        (scripts / name).write_text(text, encoding="utf-8")
    (scripts / "message.txt").write_text(MESSAGE, encoding="utf-8")
    log = tmp / "hostile.log"
    log.write_bytes(b"\n".join([
        MESSAGE.encode(),
        b"\xff\xfe\x1b]0;t\x07 not utf-8",
        b"widget error \x1b[31m7 in file",
    ]) + b"\n")
    run = ("--db", "{db}", "run")
    markers = (marker,)
    return [
        Case("index-hostile-tree", ("--db", "{db}", "index", str(tree.parent), "--repo", REPO),
             markers=markers),
        Case("explain-argv-not-utf8",
             ("--db", "{db}", "explain", "hostile widget \udcff\udcfe jammed at \udcc3"),
             markers=markers, exits=(0, 1)),
        Case("explain-argv-not-utf8-json",
             ("--db", "{db}", "explain", "--json", "\udcff" + MESSAGE),
             markers=markers, exits=(0, 1)),
        Case("explain-stdin-not-utf8", ("--db", "{db}", "explain", "-"),
             stdin=b"hostile widget \xff\xfe\x80 jammed at \xc3", markers=markers,
             exits=(0, 1)),
        Case("explain-stdin-over-limit", ("--db", "{db}", "explain", "-"),
             stdin=b"hostile widget jammed " * 100_000, markers=markers, exits=(2,),
             env={"ERRDEX_MAX_INPUT_BYTES": "100000"}),
        Case("explain-batch-bad-lines", ("--db", "{db}", "explain", "--batch", "-"),
             stdin=batch_lines(), markers=markers, exits=(2,),
             env={"ERRDEX_MAX_INPUT_BYTES": "5000"}),
        Case("show-escapes", ("--db", "{db}", "show", message_id()), markers=markers),
        Case("show-escapes-json", ("--db", "{db}", "show", "--json", message_id()),
             markers=markers),
        Case("list-escapes", ("--db", "{db}", "list"), markers=markers),
        Case("list-escapes-color", ("--db", "{db}", "list"), markers=markers,
             env={"FORCE_COLOR": "1"}),
        Case("explain-escapes", ("--db", "{db}", "explain", MESSAGE),
             markers=markers),
        Case("scan-escapes", ("--db", "{db}", "scan", str(log)), markers=markers),
        Case("scan-escapes-json", ("--db", "{db}", "scan", "--json", str(log)),
             markers=markers),
        Case("error-line-escapes", ("--db", str(tmp / "no\x1b]0;t\x07ne\u009b.sqlite"), "list"),
             markers=markers, exits=(3,)),
        Case("hook-explains-escapes", (*run, str(scripts / "hook.py"), "{db}", "message"),
             markers=markers, exits=(1,)),
        Case("hook-unrelated-error", (*run, str(scripts / "hook.py"), "{db}", "unrelated"),
             markers=markers, exits=(1,)),
        Case("hook-huge-message", (*run, str(scripts / "hook.py"), "{db}", "huge"),
             markers=markers, exits=(1,)),
        Case("hook-locked-db", (*run, str(scripts / "locker.py"), "{db}", "hook"),
             markers=markers, exits=(1,)),
        Case("explain-locked-db", (*run, str(scripts / "locker.py"), "{db}", "explain"),
             markers=markers, exits=(3,)),
        Case("list-read-only-media",
             (*run, str(scripts / "readonly.py"), "{db}", "list"), markers=markers),
        Case("explain-read-only-media",
             (*run, str(scripts / "readonly.py"), "{db}", "explain", MESSAGE),
             markers=markers, exits=(0, 1)),
    ]


def lock_holder(db: Path) -> list[str]:
    """A second process holding `db` locked until its stdin closes: it prints "locked"
    once the lock is held."""
    code = (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "c.execute(\"INSERT OR REPLACE INTO llm_cache VALUES ('errdex-test-lock', '')\")\n"
        "print('locked', flush=True)\n"
        "sys.stdin.read()\n"
    )
    return [sys.executable, "-c", code]


def without_key_index(db: Path) -> None:
    """Make `db` look written by an errdex from before the key index."""
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM match_index")
