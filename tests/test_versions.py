"""Versions side by side, as a user drives them: a library indexed at two git tags (through
a real clone), a local checkout at two commits, an installed distribution pinned by its
version; `list`, `show`, the pages and the API choosing a version; a paste naming a
version explained by that version's records."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from errdex.errors import SourceError
from errdex.match.versions import NamedVersion, chosen_versions, named_versions
from errdex.models import Repository
from errdex.serve.cli import main
from errdex.serve.web.app import create_app

V1 = """\
def open_cache(size):
    if size <= 0:
        raise ValueError(f"cache size must be positive, got {size}")
    if size > 4096:
        raise ValueError("legacy cache mode is gone")
    return size
"""
# v2: the size check moves two lines down, the legacy message goes, a new one comes.
V2 = """\
LIMIT = 1 << 20


def open_cache(size):
    if size <= 0:
        raise ValueError(f"cache size must be positive, got {size}")
    if size > LIMIT:
        raise OverflowError(f"cache size {size} is over the limit")
    return size
"""
POSITIVE = "cache size must be positive, got {size}"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=ENV)
    return done.stdout.strip()


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def _json(*argv: str) -> object:
    code, out = run(*argv, "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """cachelib with v1.0 and v2.0 tagged, HEAD at v2.0."""
    root = tmp_path / "cachelib"
    (root / "cachelib").mkdir(parents=True)
    _git(root, "init", "-q")
    for version, text in (("v1.0", V1), ("v2.0", V2)):
        (root / "cachelib" / "__init__.py").write_text(text)
        _git(root, "add", ".")
        _git(root, "commit", "-qm", f"release {version}")
        _git(root, "tag", version)
    return root


@pytest.fixture
def two_tags(tmp_path: Path, checkout: Path) -> str:
    """A database holding acme/cachelib at v1.0 and v2.0, indexed from a clone URL."""
    bare = tmp_path / "remote" / "cachelib" / "cachelib.git"  # named cachelib/cachelib
    subprocess.run(["git", "clone", "-q", "--bare", str(checkout), str(bare)], check=True)
    db = str(tmp_path / "db.sqlite")
    code, out = run("--db", db, "index", "--cache-dir", str(tmp_path / "cache"),
                    f"file://{bare}@v1.0", f"file://{bare}@v2.0")
    assert code == 0, out
    return db


def _by_message(db: str, *extra: str) -> dict[str, dict[str, object]]:
    rows = _json("--db", db, "list", *extra)
    assert isinstance(rows, list)
    return {str(row["message"]): row for row in rows}


def test_two_tags_of_a_clone_live_side_by_side(two_tags: str) -> None:
    db = two_tags
    newest, old = _by_message(db), _by_message(db, "--version", "v1.0")
    assert set(old) == {POSITIVE, "legacy cache mode is gone"}
    assert set(newest) == {POSITIVE, "cache size {size} is over the limit",
                           "legacy cache mode is gone"}
    assert newest[POSITIVE]["id"] == old[POSITIVE]["id"]  # the id names the message
    assert (old[POSITIVE]["line"], newest[POSITIVE]["line"]) == (3, 6)
    code, out = run("--db", db, "list")
    assert code == 0 and out.splitlines()[0] == (
        "cachelib/cachelib: versions v2.0, v1.0 (listed: v2.0)")
    # gone since v1.0: kept in v2.0, marked removed
    legacy = str(newest["legacy cache mode is gone"]["id"])
    assert _json("--db", db, "show", legacy)["status"] == "removed"  # type: ignore[index]
    assert _json("--db", db, "show", legacy, "--version", "v1.0")[  # type: ignore[index]
        "status"] == "current"
    record = str(newest[POSITIVE]["id"])
    shown = _json("--db", db, "show", record, "--version", "1.0")
    assert shown["version"] == "v1.0" and shown["sites"][0]["line"] == 3  # type: ignore[index]
    code, out = run("--db", db, "show", record)
    assert code == 0 and out.splitlines()[-1] == "in versions: v1.0, v2.0 (sites changed)"
    code, out = run("--db", db, "show", legacy)
    assert out.splitlines()[-1] == "in versions: v1.0; removed in v2.0"


def test_an_unknown_version_is_one_line_and_exit_1(two_tags: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    record = str(_by_message(two_tags)[POSITIVE]["id"])
    assert run("--db", two_tags, "show", record, "--version", "v9")[0] == 1
    assert capsys.readouterr().err == (
        "errdex: cachelib/cachelib has no indexed version 'v9' (indexed: v2.0, v1.0)\n")
    new = str(_by_message(two_tags)["cache size {size} is over the limit"]["id"])
    assert run("--db", two_tags, "show", new, "--version", "v1.0")[0] == 1
    assert capsys.readouterr().err == f"errdex: no error with id {new!r} in version 'v1.0'\n"


def test_a_paste_naming_a_version_is_explained_by_that_version(two_tags: str) -> None:
    db = two_tags
    text = "ValueError: cache size must be positive, got -1"
    [newest] = _json("--db", db, "explain", text, "--limit", "1")["matches"]  # type: ignore[index]
    assert newest["record"]["version"] == "v2.0"
    assert newest["record"]["sites"][0]["line"] == 6
    pasted = f"cachelib v1.0\nTraceback (most recent call last):\n{text}"
    [old] = _json("--db", db, "explain", pasted, "--limit", "1")["matches"]  # type: ignore[index]
    assert old["record"]["version"] == "v1.0" and old["record"]["sites"][0]["line"] == 3
    assert dict(old["values"]) == {"size": "-1"}


def test_reindexing_one_version_leaves_the_other(tmp_path: Path, two_tags: str,
                                                 checkout: Path) -> None:
    db = two_tags
    before = _by_message(db)
    _git(checkout, "checkout", "-q", "v1.0")
    code, out = run("--db", db, "index", str(checkout), "--repo", "cachelib/cachelib")
    assert code == 0, out
    assert _by_message(db) == before  # v2.0 is still the newest, untouched
    assert set(_by_message(db, "--version", "v1.0")) == {POSITIVE, "legacy cache mode is gone"}
    [repo] = _repos(db)
    assert repo["versions"] == ["v2.0", "v1.0"]


def _repos(db: str) -> list[dict[str, object]]:
    client = TestClient(create_app(db))
    response = client.get("/api/repos")
    assert response.status_code == 200
    repos: list[dict[str, object]] = response.json()
    return repos


def test_a_local_checkout_at_two_commits(tmp_path: Path, checkout: Path) -> None:
    db = str(tmp_path / "local.sqlite")
    _git(checkout, "tag", "-d", "v1.0")
    _git(checkout, "tag", "-d", "v2.0")
    second = _git(checkout, "rev-parse", "HEAD")
    _git(checkout, "checkout", "-q", "HEAD~1")
    first = _git(checkout, "rev-parse", "HEAD")
    for _ in range(2):  # the first commit twice: the second time replaces it
        assert run("--db", db, "index", str(checkout))[0] == 0
    _git(checkout, "checkout", "-q", second)
    assert run("--db", db, "index", str(checkout))[0] == 0
    [repo] = _repos(db)
    assert repo["versions"] == [second, first] and repo["version"] is None
    old = _by_message(db, "--version", first[:7])
    assert old[POSITIVE]["line"] == 3 and _by_message(db)[POSITIVE]["line"] == 6


def test_pages_and_the_api_choose_the_version(two_tags: str) -> None:
    client = TestClient(create_app(two_tags))
    record = str(_by_message(two_tags)[POSITIVE]["id"])
    newest = client.get(f"/api/errors/{record}").json()
    old = client.get(f"/api/errors/{record}", params={"version": "v1.0"}).json()
    assert (newest["record"]["sites"][0]["line"], old["record"]["sites"][0]["line"]) == (6, 3)
    assert (newest["version"], old["version"]) == ("v2.0", "v1.0")  # the page's shown one
    versions = client.get(f"/api/errors/{record}/versions").json()
    assert [(v["ref"], v["status"], v["changed"]) for v in versions] == [
        ("v1.0", "current", False), ("v2.0", "current", True)]
    missing = client.get(f"/api/errors/{record}", params={"version": "v7"})
    assert missing.status_code == 404 and "no indexed version 'v7'" in missing.text
    page = client.get(f"/errors/{record}", params={"version": "v1.0"}).text
    assert "<strong>v1.0</strong> (shown)" in page
    assert f'href="/errors/{record}?version=v2.0"' in page
    assert "raised at other places than the version before" in page
    repo = client.get("/api/repos/cachelib/cachelib", params={"version": "v1.0"}).json()
    assert repo["repo"]["ref"] == "v1.0" and repo["total"] == 2
    assert [v["ref"] for v in repo["versions"]] == ["v2.0", "v1.0"]
    html = client.get("/repos/cachelib/cachelib").text
    assert 'href="/repos/cachelib/cachelib?version=v1.0"' in html
    found = client.post("/api/match", json={
        "text": "cachelib==1.0: cache size must be positive, got 0"}).json()
    assert found["matches"][0]["record"]["sites"][0]["line"] == 3


def _install(venv: Path, version: str, message: str) -> Path:
    """`mydist` VERSION installed in a fresh virtual environment, written as pip writes
    an installed distribution (its files and a dist-info listing them)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python*/site-packages")
    (site / "mydist").mkdir()
    (site / "mydist" / "__init__.py").write_text(
        f"def check(n):\n    if n < 0:\n        raise ValueError(\"{message} {{}}\".format(n))\n")
    info = site / f"mydist-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: mydist\nVersion: {version}\n")
    (info / "RECORD").write_text(f"mydist/__init__.py,,\nmydist-{version}.dist-info/METADATA,,\n"
                                 f"mydist-{version}.dist-info/RECORD,,\n")
    return venv / "bin" / "python"


def test_an_installed_distribution_at_two_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "py.sqlite")
    old = _install(tmp_path / "old", "1.0", "n must not be negative, got")
    new = _install(tmp_path / "new", "2.0", "n must be at least zero, got")
    assert run("--db", db, "index", "py:mydist==1.0", "--python", str(old))[0] == 0
    assert run("--db", db, "index", "--python", str(new), "py:mydist==2.0")[0] == 0
    assert run("--db", db, "index", "--python", str(new), "py:mydist==1.0")[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: py:mydist==1.0: the environment of {new} has mydist 2.0 installed, "
        "not 1.0 (install it there, or name another --python)\n")
    [repo] = _repos(db)
    assert (repo["repo"], repo["versions"]) == ("pypi/mydist", ["2.0", "1.0"])
    paste = (f'File "{tmp_path}/old/lib/python3/site-packages/mydist-1.0.dist-info"\n'
             "ValueError: n must not be negative, got -3")
    [match] = _json("--db", db, "explain", paste)["matches"]  # type: ignore[index]
    assert match["record"]["version"] == "1.0" and match["record"]["status"] == "current"
    [match] = _json("--db", db, "explain", "ValueError: n must not be negative, got -3")[
        "matches"]  # type: ignore[index]
    assert match["record"]["status"] == "removed"  # the newest, 2.0, no longer has it


def test_the_installed_packaging_is_indexed_at_its_version() -> None:
    import packaging

    from errdex.source.resolve import SourceOptions, resolve

    [snapshot] = resolve(f"py:packaging=={packaging.__version__}", SourceOptions())
    assert snapshot.version == packaging.__version__ and snapshot.repo.endswith("packaging")
    with pytest.raises(SourceError, match=r"has packaging .* installed, not 0\.0\.1"):
        resolve("py:packaging==0.0.1", SourceOptions())


@pytest.mark.parametrize(("text", "named"), [
    ("/venv/lib/python3.11/site-packages/packaging-24.0.dist-info/RECORD",
     [NamedVersion("packaging", "24.0")]),
    ('  File "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/'
     'runtime/mod.rs", line 12', [NamedVersion("tokio", "1.38.0")]),
    ("C:\\Users\\me\\typing_extensions-4.12.2\\src\\x.py", [
        NamedVersion("typing-extensions", "4.12.2")]),
    ("pip install Foo.Bar==2.0rc1 then candle v0.9.1 broke",
     [NamedVersion("foo-bar", "2.0rc1"), NamedVersion(None, "v0.9.1")]),
    ("/opt/eggs/numpy-1.26.4-py3.11.egg/numpy/core.py", [NamedVersion("numpy", "1.26.4")]),
    ("\t/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.1/command.go:1085 +0x1d",
     [NamedVersion("cobra", "v1.8.1")]),
    ("    at push (/app/node_modules/.pnpm/tinyqueue@2.1.0/node_modules/tinyqueue/"
     "index.js:3:11)", [NamedVersion("tinyqueue", "2.1.0")]),
    ("at /w/node_modules/.pnpm/@acme+shape@0.4.2_react@18.2.0/node_modules/@acme/shape/a.js:1",
     [NamedVersion("shape", "0.4.2")]),
    ("/w/node_modules/.pnpm/left-pad@1.3.0(typescript@5.4.5)/node_modules/left-pad/i.js",
     [NamedVersion("left-pad", "1.3.0")]),
    ("    at push (/app/node_modules/tinyqueue/index.js:3:11)", []),  # npm's: no version
    ('File "/usr/lib/python3.11/site-packages/packaging/version.py", line 3', []),
    ("ValueError: shape [2, 3] vs v2 of the model (dev-9 build)", []),
])
def test_the_versions_a_paste_names(text: str, named: list[NamedVersion]) -> None:
    assert named_versions(text) == named


def test_a_named_version_is_chosen_only_where_indexed() -> None:
    rows = [Repository(repo=r, ref=ref, commit_sha=None, commit_date=None,
                       version=ref.lstrip("v") or None, indexed_at="2026-12-01", records=1,
                       versions=())
            for r, ref in (("pypa/packaging", "24.2"), ("pypa/packaging", "24.0"),
                           ("tokio-rs/tokio", "1.38.0"), ("tokio-rs/tokio", "1.40.0"),
                           ("acme/solo", "0.9.1"))]
    text = "packaging-24.0.dist-info\nregistry/src/x/tokio-1.39.0/src/a.rs\nv0.9.1"
    # tokio 1.39.0 is not indexed; acme/solo has one version: nothing to choose there
    assert chosen_versions(text, rows) == {"pypa/packaging": "24.0"}
    assert chosen_versions("v1.40.0", rows) == {"tokio-rs/tokio": "1.40.0"}


def test_a_hostile_paste_is_read_in_bounded_time() -> None:
    text = ("/tokio-1.0" + "a" * 5000 + "!") * 20 + " a-a-a-a-a-1" * 20000 + " v1." * 50000
    assert named_versions(text) == []


def test_index_deps_indexes_every_installed_distribution_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "deps.sqlite")
    python = _install(tmp_path / "env", "1.0", "n must not be negative, got")
    [site] = (tmp_path / "env").glob("lib/python*/site-packages")
    broken = site / "broken-0.1.dist-info"  # an editable install: no files listed
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    assert run("--db", db, "index", "--deps", "--python", str(python))[0] == 0
    err = capsys.readouterr().err
    assert "skipped py:broken==0.1: distribution 'broken' lists no files" in err
    [repo] = _repos(db)
    assert (repo["repo"], repo["versions"]) == ("pypi/mydist", ["1.0"])
    [match] = _json("--db", db, "explain", "ValueError: n must not be negative, got -3")[
        "matches"]  # type: ignore[index]
    assert match["record"]["repo"] == "pypi/mydist"
    # Again: what is indexed at its version is not read again.
    assert run("--db", db, "index", "--deps", "--python", str(python))[0] == 0
    assert "skipped py:mydist==1.0: already indexed" in capsys.readouterr().err
    assert run("--db", db, "index")[0] == 2
    assert capsys.readouterr().err == (
        "errdex: give a source to index (a directory, a git URL, py:DIST, npm:PKG), --from "
        "LIST, --deps, --cargo-lock or --package-lock\n")
