"""Untrusted trees and sources: indexing never runs code from them, never crashes on them,
and says in one line what is wrong.

Every input is built here at test time (`tests/hostile/git.py`): real git repositories
in tmp_path with a hazard planted, each hazard's program leaving a marker file. Each test
first proves its hazard is live (plain git, or plain Python, does run it), then runs the
real errdex and counts the markers: none may appear, and the records must be there.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex import extract
from errdex.contract import record_to_dict
from errdex.models import Language
from errdex.serve.cli import main
from errdex.source import git
from errdex.source import resolve as source
from errdex.source.resolve import (
    MAX_TREE_DEPTH,
    NOT_REGULAR,
    NOT_UTF8,
    TOO_DEEP,
    SourceOptions,
    resolve,
)
from errdex.store import SQLiteStore
from tests.hostile import Case
from tests.hostile import git as hostile
from tests.hostile.git import (
    BAD_CONFIGS,
    CUSTOM_MESSAGE,
    FIRST_MESSAGE,
    HAZARDS,
    SECOND_MESSAGE,
    THIRD_MESSAGE,
    Hazard,
)

ERRDEX = Path(__file__).resolve().parents[1] / "errdex"
ALL_MESSAGES = {FIRST_MESSAGE, SECOND_MESSAGE, THIRD_MESSAGE}


def _errdex(*argv: str, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real `errdex` in its own process (bounded: a hang fails the test, never the
    machine). `-P`, as the installed `errdex` script: `python -m` alone would put the
    working directory first on errdex's own path."""
    return subprocess.run([sys.executable, "-P", "-m", "errdex", *argv], capture_output=True,
                          text=True, timeout=120, check=False, cwd=cwd,
                          env={**os.environ, **(env or {})})


def _inprocess(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The same CLI entry point, in this process (no interpreter start-up per call)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("errdex: ") and "Traceback" not in err and "internal" not in err
    return lines[0]


def _records(db: Path) -> dict[str, dict[str, Any]]:
    with SQLiteStore(db, create=False) as store:
        return {row.message: record_to_dict(store.record(row.id)) for row in store.records()}


def _commit(db: Path) -> str:
    with SQLiteStore(db, create=False) as store:
        (repo,) = store.repos()
    return str(repo.commit_sha)


def _first_commits(repo: Path) -> list[str]:
    return hostile.git(repo, "rev-list", "--reverse", "HEAD").decode().split()[:3]


def _prove_live(hazard: Hazard, repo: Path, marker: Path) -> None:
    """Plain git, in that repository, does run the planted program."""
    if hazard.trigger is None:
        return
    # ls-remote, say, fails after running sshCommand: the marker is what counts.
    with contextlib.suppress(subprocess.CalledProcessError):
        hostile.git(repo, *hazard.trigger, stdin=hazard.trigger_stdin, tty=hazard.trigger_tty)
    assert marker.exists(), f"the planted {hazard.name} did not run under plain git"
    marker.unlink()


def _assert_indexed_with_history(db: Path, shas: list[str] | None) -> None:
    records = _records(db)
    assert set(records) >= ALL_MESSAGES
    if shas is not None:  # the history pass ran on the checkout
        history = records[FIRST_MESSAGE]["facts"]["history"]
        assert (history["introduced_commit"], history["introduced_tag"]) == (shas[0], "v1")
        assert records[THIRD_MESSAGE]["facts"]["history"]["introduced_commit"] == shas[2]


# -- 1. a checkout's .git never makes git run anything ------------------------------------


@pytest.mark.parametrize("hazard", HAZARDS, ids=[h.name for h in HAZARDS])
def test_a_planted_git_hazard_never_runs(
    hazard: Hazard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    hostile.library_repo(repo)
    marker = tmp_path / "markers" / hazard.name
    hazard.plant(repo, hostile.marker_script(tmp_path / "hazard.sh", marker))
    marker.unlink(missing_ok=True)
    _prove_live(hazard, repo, marker)
    shas = _first_commits(repo)  # planting may have rewritten or added commits
    db = tmp_path / "db.sqlite"
    code, _, err = _inprocess(capsys, "--db", str(db), "index", str(repo))
    assert (code, err) == (0, "")
    assert not marker.exists()
    assert _commit(db) == hostile.git(repo, "rev-parse", "HEAD").decode().strip()
    _assert_indexed_with_history(db, shas)


def test_every_hazard_at_once_in_a_checkout_and_in_a_cloned_source(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    markers = hostile.everything_checkout(repo, tmp_path / "markers")
    shas = _first_commits(repo)
    env = {"ERRDEX_CACHE_DIR": str(tmp_path / "cache")}
    local = _errdex("--db", str(tmp_path / "local.sqlite"), "index", str(repo), env=env)
    cloned = _errdex("--db", str(tmp_path / "url.sqlite"), "index", f"file://{repo}", env=env)
    assert (local.returncode, local.stderr, cloned.returncode, cloned.stderr) == (0, "", 0, "")
    assert [m.name for m in markers if m.exists()] == []
    # Planting signed the third commit and added two; the history is still read.
    records = _records(tmp_path / "local.sqlite")
    assert set(records) >= ALL_MESSAGES
    assert records[FIRST_MESSAGE]["facts"]["history"]["introduced_tag"] == "v1"
    assert records[THIRD_MESSAGE]["facts"]["history"]["introduced_commit"] == shas[2]
    # A shallow clone: its one commit introduced everything.
    _assert_indexed_with_history(tmp_path / "url.sqlite", None)
    tip = _commit(tmp_path / "url.sqlite")
    assert _records(tmp_path / "url.sqlite")[FIRST_MESSAGE]["facts"]["history"][
        "introduced_commit"] == tip


def test_git_is_run_by_one_module_only() -> None:
    """`grep -rn '"git"' errdex` finds errdex/source/git.py alone, and nothing else starts it."""
    for path in sorted(ERRDEX.rglob("*.py")):
        text = path.read_text()
        if path.name == "git.py":
            continue
        assert '"git"' not in text and "'git'" not in text, path
        if "subprocess" in text:  # resolve.py asks a --python interpreter; nothing else
            assert path.relative_to(ERRDEX).as_posix() == "source/resolve.py", path
            assert not re.search(r"subprocess\.\w+\(\s*\[\s*[\"']git", text)


# -- 2. --python runs isolated ------------------------------------------------------------


@pytest.mark.parametrize(
    "source", [
        pytest.param(("py:packaging",), id="dist"),
        pytest.param(("py:stdlib", "--max-file-bytes", "1"), id="stdlib",
                     marks=pytest.mark.slow),
    ],
)
def test_python_is_asked_isolated(source: tuple[str, ...], tmp_path: Path) -> None:
    cwd_marker, tmp_marker = tmp_path / "cwd-json", tmp_path / "tmp-json"
    cwd = hostile.planted_json(tmp_path / "cwd", cwd_marker)
    temp = hostile.planted_json(tmp_path / "tmp", tmp_marker)
    # Live: a plain `python -c "import json"` there imports the planted module.
    subprocess.run([sys.executable, "-c", "import json"], cwd=cwd, check=True, timeout=60)
    assert cwd_marker.exists()
    cwd_marker.unlink()
    done = _errdex("--db", str(tmp_path / "db.sqlite"), "index", source[0], *source[1:],
                   "--python", sys.executable, env={"TMPDIR": str(temp)}, cwd=cwd)
    assert (done.returncode, done.stderr) == (0, "")
    assert not cwd_marker.exists() and not tmp_marker.exists()
    assert "files read" in done.stdout


# -- 3. what already held, held as tests --------------------------------------------------


@pytest.mark.parametrize("as_checkout", [False, True], ids=["directory", "checkout"])
def test_code_in_the_tree_never_runs(
    as_checkout: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    markers = hostile.executable_tree(tree, tmp_path / "markers")
    if as_checkout:
        hostile.git(tree, "init", "--quiet")
        hostile.git(tree, "add", "-A")
        hostile.git(tree, "commit", "--quiet", "-m", "files")
        hook = tmp_path / "markers" / "hook"
        hostile._plant_hooks(tree, hostile.marker_script(tmp_path / "hook.sh", hook))
        markers.append(hook)
    code, _, err = _inprocess(capsys, "--db", str(tmp_path / "db.sqlite"), "index", str(tree))
    assert (code, err) == (0, "")
    assert [m.name for m in markers if m.exists()] == []
    records = _records(tmp_path / "db.sqlite")
    assert FIRST_MESSAGE in records
    assert "the setup.py file was imported" in records  # read as text, never run


INJECTIONS = ("ref-upload-pack", "ref-upload-pack-no-slash", "ref-dash", "url-ext", "url-dash",
              "url-ssh-dash-host", "url-scp-dash-host")


def test_refs_and_urls_never_pass_for_options(tmp_path: Path) -> None:
    cases: dict[str, Case] = {c.name: c for c in hostile.injection_cases(tmp_path / "cases")}
    db = str(tmp_path / "db.sqlite")
    for name in INJECTIONS:
        case = cases[name]
        done = _errdex(*(a.replace("{db}", db) for a in case.argv), env=case.env)
        assert done.returncode == 2, (name, done.stderr)
        _one_line_error(done.stderr)
        assert [m for m in case.markers if m.exists()] == [], name
    assert "not a branch, tag or commit name: '-b'" in _errdex(
        *(a.replace("{db}", db) for a in cases["ref-dash"].argv), env=cases["ref-dash"].env
    ).stderr


# -- 4. URL@<short sha> -----------------------------------------------------------------


def test_a_short_sha_checks_out_the_commit_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    shas = hostile.library_repo(repo)
    url = f"file://{repo}"
    for number, (ref, wanted) in enumerate([
        (shas[0][:9], shas[0]), (shas[1][:7].upper(), shas[1]), (shas[1], shas[1]),
    ]):
        db = tmp_path / f"db{number}.sqlite"
        code, _, err = _inprocess(capsys, "--db", str(db), "index", f"{url}@{ref}")
        assert (code, err) == (0, "")
        assert _commit(db) == wanted  # never the default branch's tip
        messages = [FIRST_MESSAGE, SECOND_MESSAGE, THIRD_MESSAGE][: shas.index(wanted) + 1]
        assert set(_records(db)) == set(messages)


def test_a_url_the_user_names_is_fetched_with_their_own_git_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's credentials and URL rewrites apply to the URLs they name, as in their
    shell (only a tree errdex reads has its config ignored): here an `insteadOf` in the
    user's ~/.gitconfig turns an unreachable address into the local repository."""
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    shas = hostile.library_repo(repo)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[url "file://{repo}"]\n\tinsteadOf = https://git.example.invalid/lib\n')
    monkeypatch.setenv("HOME", str(home))
    db = tmp_path / "db.sqlite"
    code, _, err = _inprocess(capsys, "--db", str(db), "index",
                              f"https://git.example.invalid/lib@{shas[0][:9]}")
    assert (code, err) == (0, "")
    assert _commit(db) == shas[0]
    assert set(_records(db)) == {FIRST_MESSAGE}


def test_a_short_sha_that_names_no_commit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    hostile.library_repo(repo)
    blob = hostile.git(repo, "rev-parse", "HEAD:lib/core.py").decode().strip()
    db = tmp_path / "db.sqlite"
    for ref in ("0" * 9, blob[:10]):  # nothing, and an object that is no commit
        code, _, err = _inprocess(capsys, "--db", str(db), "index", f"file://{repo}@{ref}")
        assert code == 2
        assert f"no branch, tag or commit '{ref}' in file://{repo}" in _one_line_error(err)
    assert not db.exists() or _records(db) == {}


def test_digits_that_name_two_commits_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two commits sharing 7 digits take ~16k commits to find; sharing 4 takes ~300, so
    the test lowers the minimum length (a constant) and lets git find the pair."""
    repo = tmp_path / "repo"
    shas = hostile.many_commits(repo, 1_000)
    by_prefix: dict[str, list[str]] = {}
    for sha in shas:
        by_prefix.setdefault(sha[:4], []).append(sha)
    prefix, pair = next((p, found) for p, found in by_prefix.items() if len(found) == 2)
    assert git.commits_named(git.own(repo), prefix) == sorted(pair)
    assert git.commits_named(git.own(repo), shas[5][:12]) == [shas[5]]
    monkeypatch.setattr(source, "COMMIT_PREFIX", re.compile(r"[0-9a-fA-F]{4,64}"))
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = _inprocess(capsys, "--db", str(tmp_path / "db.sqlite"), "index",
                              f"file://{repo}@{prefix}")
    assert code == 2
    assert f"'{prefix}' is ambiguous in file://{repo}: it names 2 commits" in (
        _one_line_error(err))


# -- 5. git's own cause -------------------------------------------------------------------


def test_git_failures_keep_their_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    refused = f"http://127.0.0.1:{hostile.closed_port()}/x.git"
    db = str(tmp_path / "db.sqlite")
    for spec in (refused, f"{refused}@v1", f"{refused}@abcdef1234"):
        code, _, err = _inprocess(capsys, "--db", db, "index", spec)
        line = _one_line_error(err)
        assert code == 2
        assert f"git clone of {refused} failed: unable to access" in line
        assert "connect" in line.lower()  # git's own words for a refused connection
    repo = tmp_path / "repo"
    hostile.library_repo(repo)
    code, _, err = _inprocess(capsys, "--db", db, "index", f"file://{repo}@nope")
    assert code == 2
    assert _one_line_error(err) == (f"errdex: no branch or tag 'nope' in file://{repo} "
                                    "(Remote branch nope not found in upstream origin)")
    code, _, err = _inprocess(capsys, "--db", db, "index", f"file://{tmp_path}/none")
    assert code == 2
    assert "does not appear to be a git repository" in _one_line_error(err)


def test_gits_cause_is_its_first_error_line_printable_and_short() -> None:
    stderr = (b"Cloning into 'x'...\nremote: \x1b[2Jcleared\nfatal: bad \x1b]0;title\x07 thing\n"
              b"error: later\nPlease make sure you have the correct access rights\n")
    assert git.cause(stderr) == "bad ?]0;title? thing"
    assert git.cause(b"only advice\n") == "only advice"
    assert git.cause(b"") == "no error message"
    assert len(git.cause(b"fatal: " + b"x" * 10_000)) == git.MAX_CAUSE_CHARS


# -- 6. names that are not UTF-8 ------------------------------------------------------------


@pytest.mark.parametrize("build", [hostile.non_utf8_tree, hostile.non_utf8_checkout],
                         ids=["directory", "checkout"])
def test_names_that_are_not_utf8_are_skipped_and_counted(
    build: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build(tmp_path / "tree")
    (snapshot,) = resolve(str(root), SourceOptions())
    assert [f.path for f in snapshot.files] == ["lib/core.py"]
    assert dict(snapshot.skipped) == {NOT_UTF8: 2}
    db = tmp_path / "db.sqlite"
    code, out, err = _inprocess(capsys, "--db", str(db), "index", str(root))
    assert (code, err) == (0, "")
    assert f"{NOT_UTF8} 2" in out
    assert set(_records(db)) == {FIRST_MESSAGE}


def test_a_fifo_or_socket_named_like_source_is_skipped_not_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = hostile.special_files_tree(tmp_path / "tree")
    (snapshot,) = resolve(str(root), SourceOptions())
    assert dict(snapshot.skipped) == {NOT_REGULAR: 3}
    db = tmp_path / "db.sqlite"  # in a process of its own: a read of a FIFO never returns
    done = subprocess.run([sys.executable, "-P", "-m", "errdex", "--db", str(db), "index",
                           str(root)], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert set(_records(db)) == {FIRST_MESSAGE}


def test_a_tree_deeper_than_the_stack_is_walked_and_counted(tmp_path: Path) -> None:
    root = hostile.deep_tree(tmp_path / "tree", 1_200)  # os.walk would hit RecursionError
    try:
        (snapshot,) = resolve(str(root), SourceOptions())
        db = tmp_path / "db.sqlite"  # the whole index: the test-file reader walks it too
        done = subprocess.run([sys.executable, "-P", "-m", "errdex", "--db", str(db), "index",
                               str(root)], capture_output=True, text=True, timeout=120,
                              check=False)
        assert (done.returncode, done.stderr) == (0, "")
        assert set(_records(db)) == {FIRST_MESSAGE}
    finally:
        hostile.remove_deep_tree(root)
    assert not root.exists()
    assert [f.path for f in snapshot.files] == ["lib/core.py"]
    assert dict(snapshot.skipped) == {TOO_DEEP: 1}
    shallow = hostile.deep_tree(tmp_path / "shallow", MAX_TREE_DEPTH - 1)
    (snapshot,) = resolve(str(shallow), SourceOptions())
    assert len(snapshot.files) == 2 and snapshot.skipped == ()


# -- 7. errdex.toml ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "content", "words"), BAD_CONFIGS,
                         ids=[name for name, _, _ in BAD_CONFIGS])
def test_a_broken_errdex_toml_is_one_config_error(
    name: str, content: bytes, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = hostile.config_tree(tmp_path / "tree", content)
    db = tmp_path / "db.sqlite"
    code, _, err = _inprocess(capsys, "--db", str(db), "index", str(root))
    assert code == 2
    line = _one_line_error(err)
    assert line.startswith(f"errdex: {root.resolve() / 'errdex.toml'}: ")
    assert words in line
    assert not db.exists() or _records(db) == {}  # nothing half-written


def test_a_broken_errdex_toml_in_its_own_process(tmp_path: Path) -> None:
    """The deepest shape, in a real process: no RecursionError traceback, exit 2."""
    _, content, words = next(c for c in BAD_CONFIGS if c[0] == "nested")
    root = hostile.config_tree(tmp_path / "tree", content)
    done = _errdex("--db", str(tmp_path / "db.sqlite"), "index", str(root))
    assert done.returncode == 2
    assert words in _one_line_error(done.stderr)


def test_an_errdex_toml_that_links_out_of_the_tree_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    linked = hostile.linked_config_tree(tmp_path / "tree", tmp_path / "outside")
    # Live: the same file, inside a tree, adds the rule that finds CUSTOM_MESSAGE.
    inside = hostile.write(tmp_path / "inside", {
        "lib/core.py": (linked / "lib" / "core.py").read_text(),
        "errdex.toml": (tmp_path / "outside" / "errdex.toml").read_text(),
    })
    code, _, _ = _inprocess(capsys, "--db", str(tmp_path / "in.sqlite"), "index", str(inside))
    assert code == 0 and CUSTOM_MESSAGE in _records(tmp_path / "in.sqlite")
    code, _, err = _inprocess(capsys, "--db", str(tmp_path / "db.sqlite"), "index", str(linked))
    assert (code, err) == (0, "")
    assert set(_records(tmp_path / "db.sqlite")) == {FIRST_MESSAGE}
    assert len(extract.load_rules(Language.PYTHON, str(linked))) == len(
        extract.load_rules(Language.PYTHON))


def test_an_errdex_toml_that_is_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    root = hostile.fifo_config_tree(tmp_path / "tree")
    done = _errdex("--db", str(tmp_path / "db.sqlite"), "index", str(root))
    assert (done.returncode, done.stderr) == (0, "")
    assert set(_records(tmp_path / "db.sqlite")) == {FIRST_MESSAGE}


# -- 8. the cases, as the benchmark sees them ---------------------------------------------------


def test_cases_are_self_contained(tmp_path: Path) -> None:
    cases = hostile.cases(tmp_path)
    names = [case.name for case in cases]
    assert len(names) == len(set(names))
    for case in cases:
        assert "{db}" in case.argv and case.argv[case.argv.index("{db}") - 1] == "--db"
        assert all(tmp_path in marker.parents for marker in case.markers), case.name
        assert not any(marker.exists() for marker in case.markers), case.name
    hazards = {case.name for case in cases if case.markers}
    assert {f"git-{h.name}" for h in HAZARDS} <= hazards
    assert {"python-dist-isolated", "python-stdlib-isolated", *INJECTIONS} <= hazards
    assert sum(name.startswith("config-") for name in names) >= len(BAD_CONFIGS) + 2
