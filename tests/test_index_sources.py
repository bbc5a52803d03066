"""`errdex index --from LIST` and `--cargo-lock Cargo.lock` with the in-process engine, as a
user drives them: real standard-library packages listed in a file, a fake cargo registry
of crates of our own and a lock file that pins them; bad lists and lock files get one line
and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.index_lists import STDLIB, cargo_lock, cargo_registry, run, stored


def test_from_list_indexes_every_listed_source_skipping_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "sources.txt"
    listing.write_text(f"# the standard library's json and html\n\n{STDLIB / 'json'}\n"
                       f"   {STDLIB / 'html'}  \n# {STDLIB / 'http'} is left out\n")
    db = str(tmp_path / "list.sqlite")
    code, out = run("--db", db, "index", "--from", str(listing))
    assert code == 0, capsys.readouterr().err
    assert {repo for repo, _ in stored(db)} == {"local/json", "local/html"}
    assert "local/json" in out and "local/html" in out
    # The listed sources and those named on the command line are indexed together.
    db2 = str(tmp_path / "both.sqlite")
    assert run("--db", db2, "index", str(STDLIB / "http"), "--from", str(listing))[0] == 0
    assert {repo for repo, _ in stored(db2)} == {"local/json", "local/html", "local/http"}
    [match] = json.loads(run("--db", db2, "explain", "--json", "--limit", "1",
                             "Expecting value: line 1 column 1 (char 0)")[1])["matches"]
    assert match["record"]["repo"] == "local/json"


def test_a_list_that_cannot_be_read_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "x.sqlite")
    missing = tmp_path / "nowhere.txt"
    assert run("--db", db, "index", "--from", str(missing))[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: cannot read {missing}: No such file or directory\n")
    assert run("--db", db, "index", "--from", str(tmp_path))[0] == 2  # a directory
    assert capsys.readouterr().err == f"errdex: cannot read {tmp_path}: Is a directory\n"
    binary = tmp_path / "list.bin"
    binary.write_bytes(b"\xff\xfe\x00json\n")
    assert run("--db", db, "index", "--from", str(binary))[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: {binary} is not UTF-8 text: not a list of sources\n")
    bare = tmp_path / "bare.txt"
    bare.write_text("packaging\n")  # a bare name that is no directory: py:packaging meant
    assert run("--db", db, "index", "--from", str(bare))[0] == 2
    assert capsys.readouterr().err == (
        "errdex: no directory 'packaging'; for the installed package, give py:packaging\n")
    assert not Path(db).exists() or stored(db) == {}


def test_cargo_lock_indexes_each_pinned_crate_from_the_registry_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "cargo"
    cargo_registry(home, {"tinybuf": "0.3.1", "ringlet": "1.2.0"})
    monkeypatch.setenv("CARGO_HOME", str(home))
    lock = tmp_path / "Cargo.lock"
    cargo_lock(lock, {"tinybuf": "0.3.1", "ringlet": "1.2.0", "gonecrate": "2.0.0"},
               members=("myapp",))
    db = str(tmp_path / "crates.sqlite")
    code, _ = run("--db", db, "index", "--cargo-lock", str(lock))
    assert code == 0
    err = capsys.readouterr().err
    assert "errdex: skipped gonecrate 2.0.0: not in the cargo registry sources" in err
    assert "errdex: skipped myapp 0.1.0: not from a registry" in err
    assert sorted(stored(db)) == [("crates/ringlet", "1.2.0"), ("crates/tinybuf", "0.3.1")]
    paste = "ringlet buffer of 9000 bytes is over the ringlet limit"
    [match] = json.loads(run("--db", db, "explain", "--json", "--limit", "1", paste)[1])[
        "matches"]
    assert (match["record"]["repo"], match["record"]["version"]) == ("crates/ringlet", "1.2.0")
    assert match["exact"]
    # Again: both are indexed at their pinned versions, so nothing is read again.
    assert run("--db", db, "index", "--cargo-lock", str(lock))[0] == 0
    err = capsys.readouterr().err
    assert "skipped tinybuf 0.3.1: already indexed" in err
    assert "skipped ringlet 1.2.0: already indexed" in err


def test_a_lock_file_that_is_not_one_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "x.sqlite")
    bad = tmp_path / "Cargo.lock"
    bad.write_text("[[package]\nname = ")
    assert run("--db", db, "index", "--cargo-lock", str(bad))[0] == 2
    assert capsys.readouterr().err.startswith(f"errdex: {bad} is not a Cargo.lock (not TOML:")
    bad.write_text('[[package]]\nname = "../../etc"\nversion = "1.0"\n')
    assert run("--db", db, "index", "--cargo-lock", str(bad))[0] == 2
    assert capsys.readouterr().err == (f"errdex: {bad} is not a Cargo.lock (a package without "
                                       "a plain name and version)\n")
    assert run("--db", db, "index", "--cargo-lock", str(tmp_path / "none.lock"))[0] == 2
    assert "No such file or directory" in capsys.readouterr().err
