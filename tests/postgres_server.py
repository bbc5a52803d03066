"""A real, throwaway PostgreSQL server for the tests: `initdb` into a temporary directory,
`pg_ctl start` on a free local port, one fresh database per test, stopped and removed at
the end of the session.

The binaries are found on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (what
`.ci/run` installs). When none are found the tests that need the server fail, never skip:
a CI run without PostgreSQL must not pass for one that tested it. PostgreSQL refuses to
run as root, so under root the server runs as the `postgres` user (else `nobody`), its
directory handed to that user.

Import the fixtures into a test module (`from tests.postgres_server import
postgres_server_fixture, postgres_url_fixture  # noqa: F401`): they are named
`postgres_server` (the session's server) and `postgres_url` (a fresh database's URL).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

USER = "errdex"  # the server's superuser
PASSWORD = "errdex-test"  # asked on TCP (scram-sha-256), so a wrong one is a real refusal
START_SECONDS = 120


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl", path=str(Path(found).parent)):
        return Path(found).parent
    for bindir in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True,
                         key=lambda d: int(Path(d).parent.name.split(".")[0] or 0)):
        if (Path(bindir) / "initdb").exists() and (Path(bindir) / "pg_ctl").exists():
            return Path(bindir)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> tuple[list[str], str | None]:
    """The command prefix that runs the server as a user it accepts, and that user."""
    if os.geteuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"], name
    raise RuntimeError("running as root with neither a postgres nor a nobody user")


@dataclass
class Server:
    bindir: Path
    home: Path  # holds the data directory and the unix socket
    port: int
    prefix: list[str]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def pg_ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.prefix, str(self.bindir / "pg_ctl"), "-D",
                               str(self.home / "data"), *args],
                              capture_output=True, text=True, timeout=START_SECONDS)


def start_server() -> Server:
    bindir = binaries()
    if bindir is None:
        pytest.fail("PostgreSQL's initdb and pg_ctl are not on PATH nor in "
                    "/usr/lib/postgresql/*/bin: install Debian's postgresql (.ci/run does)")
    prefix, user = _run_as()
    # Under root, in /tmp: the server's user must reach the directory (TMPDIR may not be).
    home = Path(tempfile.mkdtemp(prefix="errdex-pg-", dir=None if user is None else "/tmp"))
    secret = home / "password"
    secret.write_text(PASSWORD + "\n")
    if user is not None:
        entry = pwd.getpwnam(user)
        for path in (home, secret):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    done = subprocess.run(
        [*prefix, str(bindir / "initdb"), "-D", str(home / "data"), "-U", USER,
         f"--pwfile={secret}", "--auth-local=trust", "--auth-host=scram-sha-256",
         "-E", "UTF8", "--no-locale", "--no-sync"],
        capture_output=True, text=True, timeout=START_SECONDS)
    if done.returncode != 0:
        shutil.rmtree(home, ignore_errors=True)
        pytest.fail(f"initdb failed: {done.stderr.strip()}")
    server = Server(bindir, home, free_port(), prefix)
    options = (f"-p {server.port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
    started = server.pg_ctl("-l", str(home / "server.log"), "-w", "-t", str(START_SECONDS),
                            "-o", options, "start")
    if started.returncode != 0:
        log = (home / "server.log").read_text(errors="replace")[-2000:]
        shutil.rmtree(home, ignore_errors=True)
        pytest.fail(f"pg_ctl start failed: {started.stderr.strip()} {log}")
    return server


def stop_server(server: Server) -> None:
    server.pg_ctl("-m", "immediate", "stop")
    shutil.rmtree(server.home, ignore_errors=True)


@pytest.fixture(scope="session", name="postgres_server")
def postgres_server_fixture() -> Iterator[Server]:
    server = start_server()
    try:
        yield server
    finally:
        stop_server(server)


_NAMES = itertools.count(1)


@pytest.fixture(name="postgres_url")
def postgres_url_fixture(postgres_server: Server) -> Iterator[str]:
    """The URL of a new, empty database on the session's server (dropped after)."""
    name = f"errdex_test_{os.getpid()}_{next(_NAMES)}"
    url = postgres_server.create_database(name)
    try:
        yield url
    finally:
        postgres_server.drop_database(name)
