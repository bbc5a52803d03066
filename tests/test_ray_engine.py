"""`errdex index --engine ray` on a real local Ray cluster (two CPUs, one for the module):
21 real sources (standard-library packages and installed distributions) store exactly
the records the in-process engine stores; a source that can't be read is said, tried
again and reported, and the others are stored; another process reaches the same cluster
with --address; without Ray, one line says how to install it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.engines.on_ray import RETRIES
from tests.index_lists import (
    STDLIB,
    cargo_lock,
    cargo_registry,
    npm_lock,
    npm_package,
    real_sources,
    run,
    stored,
)

if os.environ.get("ERRDEX_REQUIRE_RAY"):  # .ci/run installs errdex[ray]: no skipping there
    import ray
else:
    ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local cluster of two CPUs this process is connected to (so `index --engine ray`
    run in it uses this cluster), and its address for other processes."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()


def test_ray_stores_what_the_local_engine_stores_and_reports_a_bad_source(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = real_sources()
    assert len(sources) >= 20
    good = tmp_path / "good.txt"
    good.write_text("\n".join(sources) + "\n")
    local_db, ray_db = str(tmp_path / "local.sqlite"), str(tmp_path / "ray.sqlite")
    assert run("--db", local_db, "index", "--from", str(good))[0] == 0
    capsys.readouterr()
    # The same list with a distribution that is not installed, early in the list.
    with_bad = tmp_path / "with-bad.txt"
    with_bad.write_text("\n".join([*sources[:3], "py:no-such-distribution-here", *sources[3:]]))
    code, out = run("--db", ray_db, "index", "--from", str(with_bad), "--engine", "ray")
    err = capsys.readouterr().err
    assert code == 2
    why = "no installed distribution named 'no-such-distribution-here' in this environment"
    lines = [line for line in err.splitlines() if "no-such-distribution-here" in line]
    assert lines == [
        *(f"errdex: py:no-such-distribution-here: attempt {n} of {RETRIES + 1} failed: {why}; "
          "trying again" for n in range(1, RETRIES + 1)),
        f"errdex: py:no-such-distribution-here: failed after {RETRIES + 1} attempts: {why}",
        f"errdex: 1 of {len(sources) + 1} sources could not be indexed: "
        "py:no-such-distribution-here",
    ]
    assert f"ray: {len(sources) + 1}/{len(sources) + 1} sources done ({len(sources)} stored, " \
           "1 failed), 0 building" in err
    local, on_ray = stored(local_db), stored(ray_db)
    assert len(local) == len(sources)
    assert sorted(on_ray) == sorted(local)
    for key, (records, vocabulary) in local.items():
        assert on_ray[key][0] == records, key
        assert on_ray[key][1] == vocabulary, key
    assert sum(len(records) for records, _ in local.values()) > 300
    assert out.count("  records ") == len(sources)  # a summary printed for each one stored


def test_versions_of_one_repository_and_crates_on_ray(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Crates of a lock file are built on the cluster too; a repository listed twice
    (here one directory at two names of the same tree) is built once at a time, the
    second against what the first stored, as the local engine does."""
    home = tmp_path / "cargo"
    cargo_registry(home, {"tinybuf": "0.3.1", "ringlet": "1.2.0"})
    monkeypatch.setenv("CARGO_HOME", str(home))
    lock = tmp_path / "Cargo.lock"
    cargo_lock(lock, {"tinybuf": "0.3.1", "ringlet": "1.2.0", "gonecrate": "2.0.0"})
    listing = tmp_path / "twice.txt"
    listing.write_text(f"{STDLIB / 'json'}\n{STDLIB / 'json'}/\n")
    dbs = {engine: str(tmp_path / f"{engine}.sqlite") for engine in ("local", "ray")}
    for engine, db in dbs.items():
        code, _ = run("--db", db, "index", "--from", str(listing), "--cargo-lock", str(lock),
                      "--engine", engine)
        assert code == 0
        assert "errdex: skipped gonecrate 2.0.0: not in the cargo registry sources" in (
            capsys.readouterr().err)
    local = stored(dbs["local"])
    assert sorted(local) == [("crates/ringlet", "1.2.0"), ("crates/tinybuf", "0.3.1"),
                             ("local/json", "")]
    assert stored(dbs["ray"]) == local


def test_npm_packages_and_a_package_lock_on_ray(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """An `npm:` name is found from the directory the command runs in, not from where a
    worker runs; a lock's packages are built on the cluster as the local engine builds
    them."""
    project = tmp_path / "app"
    modules = project / "node_modules"
    npm_package(modules, "tinyqueue", "2.1.0")
    npm_package(modules / "tinyqueue" / "node_modules", "ringlet", "1.0.0")
    npm_package(modules, "@acme/shape", "0.4.2", typed=True)
    lock = npm_lock(project, {
        "node_modules/tinyqueue": {"version": "2.1.0"},
        "node_modules/tinyqueue/node_modules/ringlet": {"version": "1.0.0"},
        "node_modules/gone": {"version": "3.0.0"},
    })
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    dbs = {engine: str(tmp_path / f"{engine}.sqlite") for engine in ("local", "ray")}
    for engine, db in dbs.items():
        code, _ = run("--db", db, "index", "npm:@acme/shape", "--package-lock", str(lock),
                      "--engine", engine)
        assert code == 0
        assert "errdex: skipped gone@3.0.0: not installed in node_modules" in (
            capsys.readouterr().err)
    local = stored(dbs["local"])
    assert sorted(local) == [("@acme/shape", "0.4.2"), ("npm/ringlet", "1.0.0"),
                             ("npm/tinyqueue", "2.1.0")]
    assert stored(dbs["ray"]) == local


def test_another_process_uses_the_cluster_at_address(cluster: str, tmp_path: Path) -> None:
    db = str(tmp_path / "address.sqlite")
    done = subprocess.run(
        [sys.executable, "-m", "errdex.serve.cli", "--db", db, "index", "--engine", "ray",
         "--address", cluster, str(STDLIB / "json"), "py:idna"],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert {repo for repo, _ in stored(db)} == {"local/json", "kjd/idna"}
    assert "ray: 2/2 sources done (2 stored, 0 failed), 0 building" in done.stderr


def test_an_address_no_cluster_listens_at_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errdex.serve.cli", "--db", str(tmp_path / "x.sqlite"),
         "index", "--engine", "ray", "--address", "127.0.0.1:9", str(STDLIB / "json")],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2
    [line] = [line for line in done.stderr.splitlines() if line.startswith("errdex:")]
    assert line == "errdex: cannot reach a Ray cluster at 127.0.0.1:9: Connection refused"


def test_without_ray_installed_engine_ray_says_how_to_install_it(tmp_path: Path) -> None:
    # A process in which `import ray` fails, as it does where errdex[ray] isn't installed.
    code = ("import sys; sys.modules['ray'] = None\n"
            "from errdex.serve.cli import main\n"
            f"sys.exit(main(['--db', {str(tmp_path / 'x.sqlite')!r}, 'index', '--engine', "
            f"'ray', {str(STDLIB / 'json')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stderr) == (
        2, "errdex: --engine ray needs Ray: pip install 'errdex[ray]'\n")
    assert not (tmp_path / "x.sqlite").exists()
