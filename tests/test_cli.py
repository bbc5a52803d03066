"""The `errdex` command as a user drives it: index a small repository, explain, show,
list, and every kind of bad input ending in one line and a non-zero exit."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from errdex.serve.cli import EXIT_STORE, main

LIBRARY = """\
class Cache:
    def __init__(self, size):
        if size <= 0:
            raise ValueError(f"cache size must be positive, got {size}")
        self.size = size

    def get(self, key):
        if not isinstance(key, str):
            raise TypeError("cache keys must be str, not %s" % type(key).__name__)
        raise KeyError(key)


def load(path):
    raise FileNotFoundError("no cache file at " + path)
"""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "cachelib"
    (root / "cachelib").mkdir(parents=True)
    (root / "cachelib" / "__init__.py").write_text(LIBRARY)
    _git(root, "init", "-q")
    _git(root, "remote", "add", "origin", "https://github.com/acme/cachelib.git")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "first")
    return root


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


@pytest.fixture
def db(tmp_path: Path, repo: Path) -> str:
    path = str(tmp_path / "db.sqlite")
    code, out = run("--db", path, "index", str(repo))
    assert code == 0, out
    return path


def test_index_prints_a_summary_with_counts(tmp_path: Path, repo: Path) -> None:
    code, out = run("--db", str(tmp_path / "x.sqlite"), "index", str(repo))
    assert code == 0
    assert "acme/cachelib" in out
    assert "records      3" in out
    assert "files read   1" in out


def test_index_again_parses_only_changed_files_unless_full(db: str, repo: Path) -> None:
    code, out = run("--db", db, "index", str(repo))
    assert code == 0 and "files read   1 (1 unchanged, not parsed again)" in out
    code, out = run("--db", db, "index", "--full", str(repo))
    assert code == 0 and "files read   1\n" in out
    assert "records      3" in out


def test_explain_binds_values_and_links_the_pinned_line(db: str, repo: Path) -> None:
    code, out = run(
        "--db", db, "explain", "--json", "ValueError: cache size must be positive, got -3"
    )
    assert code == 0
    result = json.loads(out)
    top = result["matches"][0]
    assert top["exact"] is True
    assert top["values"] == {"size": "-3"}
    site = top["record"]["sites"][0]
    assert (site["path"], site["line"], site["function"]) == (
        "cachelib/__init__.py",
        4,
        "cachelib.Cache.__init__",
    )
    commit = _git(repo, "rev-parse", "HEAD")
    assert site["url"] == (
        f"https://github.com/acme/cachelib/blob/{commit}/cachelib/__init__.py#L4"
    )
    assert top["record"]["commit"] == commit


def test_explain_reads_a_traceback_from_stdin(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    traceback_text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 3, in <module>\n'
        "    cache.get(3)\n"
        '  File "/venv/lib/python3.11/site-packages/cachelib/__init__.py", line 9, in get\n'
        '    raise TypeError("cache keys must be str, not %s" % type(key).__name__)\n'
        "TypeError: cache keys must be str, not int\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(traceback_text))
    code, out = run("--db", db, "explain", "-")
    assert code == 0
    assert "cache keys must be str" in out
    assert "cachelib/__init__.py:9" in out


def test_explain_without_a_match_exits_1(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("--db", db, "explain", "the moon is made of cheese")
    assert code == 1
    assert capsys.readouterr().err == "errdex: no known error matches this text\n"


def test_batch_answers_each_line_in_order(db: str, tmp_path: Path) -> None:
    batch = tmp_path / "errors.jsonl"
    batch.write_text(
        json.dumps({"text": "no cache file at /tmp/c"})
        + "\n"
        + "not json\n"
        + json.dumps({"text": "cache size must be positive, got 0"})
        + "\n"
    )
    code, out = run("--db", db, "explain", "--json", "--batch", str(batch))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2  # one line could not be read; the others were still answered
    assert lines[0]["matches"][0]["values"] == {"path": "/tmp/c"}
    assert lines[1] == {"line": 2, "error": {"message": lines[1]["error"]["message"]}}
    assert lines[2]["matches"][0]["values"] == {"size": "0"}


def test_show_and_list(db: str) -> None:
    code, out = run("--db", db, "list", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 3
    code, out = run("--db", db, "show", "--json", rows[0]["id"])
    record = json.loads(out)
    for key in (
        "id",
        "repo",
        "commit",
        "commit_date",
        "version",
        "language",
        "kind",
        "exception",
        "message",
        "template",
        "placeholders",
        "sites",
        "explanation",
        "related",
        "failure_class",
    ):
        assert key in record
    for section in (
        "summary",
        "what_it_means",
        "solutions",
        "example_fix",
        "defensive",
        "prevention",
        "trigger",
        "common_situations",
    ):
        assert record["explanation"][section], section
    code, out = run("--db", db, "show", rows[0]["id"])
    assert code == 0 and "What it means" in out


def test_reindex_replaces_the_snapshot_and_keeps_ids(db: str, repo: Path) -> None:
    _, out = run("--db", db, "list", "--json")
    before = {row["message"]: row for row in json.loads(out)}
    path = repo / "cachelib" / "__init__.py"
    path.write_text("# moved down\n" + LIBRARY.replace("no cache file at ", "no cache at "))
    _git(repo, "commit", "-qam", "second")
    assert run("--db", db, "index", str(repo))[0] == 0
    _, out = run("--db", db, "list", "--json")
    after = {row["message"]: row for row in json.loads(out)}
    # The renamed message is a new record; the old one is kept, marked removed, so an old
    # paste still finds its page (and the page says it is gone).
    assert "no cache at {}" not in before and len(after) == 4
    _, out = run("--db", db, "show", after["no cache file at {path}"]["id"], "--json")
    assert json.loads(out)["status"] == "removed"
    _, out = run("--db", db, "show", after["no cache at {path}"]["id"], "--json")
    assert json.loads(out)["status"] == "current"
    kept = "cache size must be positive, got {size}"
    assert after[kept]["id"] == before[kept]["id"]
    assert after[kept]["line"] == before[kept]["line"] + 1


def test_git_url_at_a_tag(tmp_path: Path, repo: Path) -> None:
    _git(repo, "tag", "v1.0")
    bare = tmp_path / "cachelib.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    db = str(tmp_path / "url.sqlite")
    code, out = run(
        "--db", db, "index", "--cache-dir", str(tmp_path / "cache"), f"file://{bare}@v1.0"
    )
    assert code == 0, out
    _, out = run("--db", db, "list", "--json")
    assert len(json.loads(out)) == 3


def test_installed_distribution_uses_site_packages_paths(tmp_path: Path) -> None:
    import packaging

    db = str(tmp_path / "py.sqlite")
    assert run("--db", db, "index", "py:packaging")[0] == 0
    _, out = run("--db", db, "explain", "--json", "Invalid version: 'x-y'")
    record = json.loads(out)["matches"][0]["record"]
    assert record["version"] == packaging.__version__
    assert record["sites"][0]["path"] == "packaging/version.py"


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["index", "/no/such/dir"], 2, "errdex: no such directory: /no/such/dir\n"),
        (
            ["index", "py:no-such-dist-xyz"],
            2,
            "errdex: no installed distribution named 'no-such-dist-xyz' in this environment\n",
        ),
        (["explain", "   "], 2, "errdex: nothing to explain: the input is empty\n"),
        (["show", "0123456789abcdef"], 1, "errdex: no error with id '0123456789abcdef'\n"),
        (["explain", "--limit", "0", "x"], 2, "errdex: --limit must be at least 1\n"),
    ],
)
def test_bad_input_gives_one_line_and_an_exit_code(
    db: str, argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run("--db", db, *argv)[0] == code
    assert capsys.readouterr().err == message


def test_unreadable_and_missing_databases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    # Not 1, which says "nothing matched": a script can tell the two apart.
    assert run("--db", str(garbage), "list")[0] == EXIT_STORE
    err = capsys.readouterr().err
    assert err.startswith("errdex: cannot open database") and err.count("\n") == 1
    assert run("--db", str(tmp_path / "none.sqlite"), "explain", "x")[0] == EXIT_STORE
    assert "run `errdex index` first" in capsys.readouterr().err
    assert not (tmp_path / "none.sqlite").exists()


def test_a_bad_source_writes_nothing(tmp_path: Path, repo: Path) -> None:
    db = tmp_path / "db.sqlite"
    code, _ = run("--db", str(db), "index", str(repo), "/no/such/dir")
    assert code == 2
    assert not db.exists()


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "--db", str(tmp_path / "d.sqlite"), "show", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == EXIT_STORE
    missing = tmp_path / "d.sqlite"
    assert done.stderr == f"errdex: no database at {missing}: run `errdex index` first\n"


def test_a_corrupted_database_is_one_line_not_a_traceback(db: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE records SET match_data = 'not json'")
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "--db", db, "explain", "cache size must be positive"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 70
    assert done.stderr.startswith("errdex: internal error (JSONDecodeError")
    assert done.stderr.count("\n") == 1
