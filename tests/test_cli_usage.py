"""The command line as a new user types it: options after the command, unquoted words,
a pipe into `scan` without `-`, a package name given as a path, `--version`, and exit
statuses that tell "nothing matched" from "the database is broken"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from errdex.serve.cli import EXIT_STORE
from tests.test_cli import db, repo, run  # noqa: F401  (fixtures)


def test_options_after_the_command_work_like_before_it(db: str) -> None:  # noqa: F811
    before = run("--db", db, "list", "--json")
    after = run("list", "--db", db, "--json")
    assert before[0] == after[0] == 0
    assert before[1] == after[1] and "cache size must be positive" in after[1]
    # both places at once: the one after the command is the one meant
    assert run("--db", "/nowhere/x.sqlite", "list", "--db", db)[0] == 0


def test_version_prints_the_installed_version() -> None:
    done = subprocess.run([sys.executable, "-m", "errdex", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stdout.startswith("errdex ") and done.stdout.split()[1][0].isdigit()


def test_unquoted_words_are_explained_as_one_text(db: str) -> None:  # noqa: F811
    code, out = run("explain", "--db", db, "cache", "size", "must", "be", "positive,",
                    "got", "-3")
    assert code == 0
    assert "cache size must be positive" in out and "-3" in out


def test_scan_reads_a_pipe_without_a_dash(db: str, tmp_path: Path) -> None:  # noqa: F811
    log = tmp_path / "app.log"
    log.write_text("ok\nValueError: cache size must be positive, got 0\nok\n")
    with log.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "errdex", "--db", db, "scan"],
                              stdin=stdin, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "1 with a known error" in done.stdout


def test_a_package_name_given_to_index_suggests_py(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _ = run("--db", str(tmp_path / "d.sqlite"), "index", "requests")
    assert code == 2
    assert "give py:requests" in capsys.readouterr().err
    assert not (tmp_path / "d.sqlite").exists()


def test_nothing_matched_and_a_broken_database_exit_differently(
    db: str, tmp_path: Path  # noqa: F811
) -> None:
    assert run("--db", db, "explain", "the moon is made of cheese")[0] == 1
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not sqlite at all" * 64)
    assert run("--db", str(broken), "explain", "the moon is made of cheese")[0] == EXIT_STORE
    assert run("--db", str(tmp_path / "missing.sqlite"), "list")[0] == EXIT_STORE
    done = subprocess.run([sys.executable, "-m", "errdex", "--help"],
                          capture_output=True, text=True, check=False)
    assert "3 database missing, locked or broken" in " ".join(done.stdout.split())
