"""errdex on a real PostgreSQL server: the CLI through a `postgresql://` URL (or
ERRDEX_DB), server errors as one line and exit 3, two processes indexing different
repositories at once while a reader reads, two writers of one snapshot taking turns, a
dropped connection, and `serve` with several worker processes over one database.

A write is held mid-transaction without any timing: a trigger the test installs makes
the writer's first inserted record wait for an advisory lock the test holds, and the test
waits (until a generous deadline, asserting nothing about time) until PostgreSQL reports
the writer waiting on that lock.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from errdex.errors import StoreError
from errdex.models import Record
from errdex.serve.cli import EXIT_STORE
from errdex.store import is_url, open_store, store_name
from errdex.store.postgres import PostgresStore
from tests.postgres_server import (  # noqa: F401
    PASSWORD,
    Server,
    free_port,
    postgres_server_fixture,
    postgres_url_fixture,
)

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent
HOLD = 4242  # the advisory lock a held writer waits for
WAIT = 120  # seconds: a deadline for something that must happen, never a measurement


def errdex(db: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "errdex", "--db", db, *args],
                          capture_output=True, text=True, timeout=WAIT, cwd=ROOT)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _ids(db: str, repo: str) -> set[str]:
    return {row["id"] for row in json.loads(errdex(db, "list", "--repo", repo, "--json").stdout)}


def _messages(db: str, repo: str) -> set[str]:
    listed = json.loads(errdex(db, "list", "--repo", repo, "--json").stdout)
    return {row["message"] for row in listed}


def test_index_list_show_and_explain_through_the_cli(postgres_url: str) -> None:
    done = errdex(postgres_url, "index", str(FIXTURES / "rust_repo"), "--repo", "o/rust")
    assert "records" in done.stdout
    listed = json.loads(errdex(postgres_url, "list", "--json").stdout)
    assert len(listed) > 20 and {row["repo"] for row in listed} == {"o/rust"}
    assert "empty model name" in {row["message"] for row in listed}
    first = listed[0]
    shown = json.loads(errdex(postgres_url, "show", first["id"], "--json").stdout)
    assert (shown["id"], shown["message"]) == (first["id"], first["message"])
    explained = json.loads(errdex(postgres_url, "explain", "--json",
                                  "Error: empty model name").stdout)
    assert explained["matches"][0]["record"]["message"] == "empty model name"
    # the same records as the same tree indexed into SQLite
    sqlite_db = str(Path(postgres_url.rsplit("/", 1)[1] + ".sqlite").absolute())
    try:
        errdex(sqlite_db, "index", str(FIXTURES / "rust_repo"), "--repo", "o/rust")
        assert json.loads(errdex(sqlite_db, "list", "--json").stdout) == listed
        found = errdex(sqlite_db, "explain", "--json", "Error: empty model name").stdout
        assert json.loads(found)["matches"] == explained["matches"]
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(sqlite_db + suffix).unlink(missing_ok=True)


def test_server_problems_are_one_line_and_exit_3(postgres_server: Server) -> None:
    port = postgres_server.port
    empty = postgres_server.create_database("errdex_never_indexed")
    try:
        cases = {
            postgres_server.url("no_such_db"): 'database "no_such_db" does not exist',
            f"postgresql://errdex:secret@127.0.0.1:{port}/postgres": "password authentication "
                                                                     'failed for user "errdex"',
            empty: "no errdex database at",
        }
        for url, said in cases.items():
            done = errdex(url, "list", check=False)
            assert done.returncode == EXIT_STORE, done.stderr
            assert said in done.stderr and "Traceback" not in done.stderr
            assert len(done.stderr.strip().splitlines()) == 1
            assert "secret" not in done.stderr and PASSWORD not in done.stderr  # never shown
            assert ":***@" in done.stderr
    finally:
        postgres_server.drop_database("errdex_never_indexed")
    with pytest.raises(StoreError, match=r"^cannot open database postgresql://errdex@127\.0\."
                       r"0\.1:1/x: connection failed: .*refused"):
        PostgresStore("postgresql://errdex@127.0.0.1:1/x")


def test_urls_choose_postgresql_and_hide_passwords(tmp_path: Path) -> None:
    assert is_url("postgresql://h/db") and is_url("postgres://h/db")
    assert not is_url(str(tmp_path / "db.sqlite")) and not is_url(tmp_path)
    assert store_name("postgresql://me:pw@h:5/db") == "postgresql://me:***@h:5/db"
    with open_store(tmp_path / "db.sqlite") as store:
        assert type(store).__name__ == "SQLiteStore"


def _hold_writes_of(url: str, repo: str) -> psycopg.Connection[tuple[object, ...]]:
    """Make a write of `repo`'s records wait, mid-transaction, until the returned
    connection (which holds the lock) is closed."""
    holder = psycopg.connect(url, autocommit=True)
    holder.execute(f"""CREATE FUNCTION errdex_test_hold() RETURNS trigger AS $$ BEGIN
        IF NEW.repo = '{repo}' THEN
            PERFORM pg_advisory_lock_shared({HOLD}); PERFORM pg_advisory_unlock_shared({HOLD});
        END IF; RETURN NEW; END $$ LANGUAGE plpgsql""")
    holder.execute("CREATE TRIGGER errdex_test_hold BEFORE INSERT ON records FOR EACH ROW "
                   "EXECUTE FUNCTION errdex_test_hold()")
    holder.execute("SELECT pg_advisory_lock(%s)", (HOLD,))
    return holder


def _wait_until_held(holder: psycopg.Connection[tuple[object, ...]],
                     writer: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        row = holder.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                             "AND objid = %s AND NOT granted", (HOLD,)).fetchone()
        if row and row[0]:
            return
        assert writer.poll() is None, writer.communicate()
        time.sleep(0.05)
    pytest.fail("the writer never reached its held insert")


def test_two_writers_of_different_repositories_and_a_reader_in_between(
    postgres_url: str, tmp_path: Path
) -> None:
    tree = tmp_path / "rust_repo"
    shutil.copytree(FIXTURES / "rust_repo", tree)
    errdex(postgres_url, "index", str(tree), "--repo", "o/rust")
    before = _ids(postgres_url, "o/rust")
    old_messages = _messages(postgres_url, "o/rust")
    lib = tree / "src" / "lib.rs"
    lib.write_text(lib.read_text() + '\npub fn fresh() -> Result<()> {\n'
                   '    crate::bail!("a brand new failure appeared")\n}\n')
    holder = _hold_writes_of(postgres_url, "o/rust")
    env = dict(os.environ)
    a = subprocess.Popen([sys.executable, "-m", "errdex", "--db", postgres_url, "index",
                          str(tree), "--repo", "o/rust"], cwd=ROOT, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_until_held(holder, a)
        # Writer A is mid-transaction (its old records deleted, new ones going in). A
        # second process writes another repository meanwhile: it is not held up by A.
        errdex(postgres_url, "index", str(FIXTURES / "python_repo"), "--repo", "o/py")
        assert a.poll() is None
        # Readers see A's repository as it was, whole, and B's new one.
        assert _ids(postgres_url, "o/rust") == before
        assert "a brand new failure appeared" not in _messages(postgres_url, "o/rust")
        with open_store(postgres_url, create=False) as reader:
            assert {r.repo for r in reader.repos()} == {"o/rust", "o/py"}
            assert {r.id for r in reader.records("o/rust")} == before
            assert reader.search_text("brand new failure") == []
    finally:
        holder.close()  # releases the lock: A goes on
        _, err = a.communicate(timeout=WAIT)
    assert a.returncode == 0, err
    after = _messages(postgres_url, "o/rust")
    assert after == old_messages | {"a brand new failure appeared"}
    assert _messages(postgres_url, "o/py")  # B's records were kept


def test_concurrent_writers_in_process_each_see_their_own_snapshot(postgres_url: str) -> None:
    """Two stores (two connections) writing two repositories, interleaved: each write is
    its own transaction and neither disturbs the other's records or versions."""
    from tests.test_store_contract import _library, _write

    with PostgresStore(postgres_url) as one, PostgresStore(postgres_url) as two:
        start = one.data_version()
        _write(one, "o/a", _library())
        _write(two, "o/b", _library()[:2])
        _write(one, "o/a", _library()[:1], version="2.0")
        assert two.data_version() > start  # a commit on another connection is seen
        assert [r.repo for r in two.repos()] == ["o/a", "o/b"]
        assert [(s.repo, s.ref, s.records) for s in one.snapshots()] == [
            ("o/a", "2.0", 1), ("o/a", "1.0", 4), ("o/b", "1.0", 2)]
        assert len(two.records("o/a", "1.0")) == 4


def test_a_read_after_the_server_dropped_the_connection_connects_again(
    postgres_url: str,
) -> None:
    """A server restart or a terminated backend costs a long-lived reader (a `serve`
    worker thread) nothing: the read is tried once more on a new connection."""
    from tests.test_store_contract import _library, _write

    with PostgresStore(postgres_url) as store, psycopg.connect(postgres_url,
                                                               autocommit=True) as admin:
        _write(store, "o/a", _library())
        pid = store._conn.info.backend_pid
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        _until(lambda: admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                     (pid,)).fetchone() == (0,), "the backend gone")
        assert len(store.records()) == 4
        assert store._conn.info.backend_pid != pid
        _write(store, "o/b", _library()[:1])  # and writes go on
        assert [r.repo for r in store.repos()] == ["o/a", "o/b"]


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        at = todo.pop()
        for task in Path(f"/proc/{at}/task").glob("*"):
            children = (task / "children").read_text().split()
            todo.extend(int(c) for c in children)
            found.update(int(c) for c in children)
    return found


def _get(port: int, path: str, body: dict[str, object] | None = None) -> dict[str, object]:
    """One request on a new connection (the kernel hands each to some worker)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method="POST" if body is not None else "GET",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        data: dict[str, object] = json.loads(response.read())
        return data


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except OSError:  # not listening yet
            pass
        time.sleep(0.1)
    pytest.fail(f"never: {what}")


def test_serve_with_several_worker_processes(postgres_url: str) -> None:
    errdex(postgres_url, "index", str(FIXTURES / "rust_repo"), "--repo", "o/rust")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "errdex", "--db", postgres_url, "serve", "--port", str(port),
         "--workers", "2"], cwd=ROOT, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    watcher = psycopg.connect(postgres_url, autocommit=True)

    def worker_pids() -> set[int]:
        rows = watcher.execute("SELECT DISTINCT application_name FROM pg_stat_activity "
                               "WHERE datname = current_database() "
                               "AND application_name LIKE 'errdex %'").fetchall()
        return {int(str(name).split()[1]) for (name,) in rows} & _descendants(server.pid)

    try:
        _until(lambda: _get(port, "/api/health")["status"] == "ok", "serving")
        _until(lambda: len(worker_pids()) == 2, "two worker processes reading the database")
        for _ in range(6):
            found = _get(port, "/api/match", {"text": "Error: empty model name", "limit": 1})
            [match] = found["matches"]  # type: ignore[misc]
            assert match["record"]["message"] == "empty model name"
            searched = _get(port, "/api/search?q=model+name")
            assert searched["mode"] in ("match", "text")
            page = _get(port, f"/api/errors/{match['id']}")
            assert page["record"]["id"] == match["id"]  # type: ignore[index]
        # A re-index while serving: every worker reloads (its own watcher) and serves it.
        errdex(postgres_url, "index", str(FIXTURES / "python_repo"), "--repo", "o/py")

        # Each worker says who it is; wait until both have answered with the new repository
        # (the kernel may hand any run of connections to one of them).
        workers = worker_pids()
        serving: set[int] = set()

        def everyone_serves_it() -> bool:
            health = _get(port, "/api/health")
            if "o/py" in {s["repo"] for s in health["snapshots"]}:  # type: ignore[attr-defined]
                serving.add(int(health["process"]))  # type: ignore[call-overload]
            return serving >= workers

        _until(everyone_serves_it, "every worker serving the new repository")
        for _ in range(6):
            found = _get(port, "/api/match", {"text": "TypeError: None in items", "limit": 1})
            assert found["matches"][0]["record"]["repo"] == "o/py"  # type: ignore[index]
    finally:
        watcher.close()
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()


def test_serve_refuses_an_unreachable_database_before_starting_workers() -> None:
    done = subprocess.run([sys.executable, "-m", "errdex", "--db",
                           "postgresql://errdex@127.0.0.1:1/x", "serve", "--workers", "2",
                           "--port", str(free_port())],
                          capture_output=True, text=True, timeout=WAIT, cwd=ROOT)
    assert done.returncode == EXIT_STORE and "Traceback" not in done.stderr
    assert done.stderr.startswith("errdex: cannot open database postgresql://")


def test_without_psycopg_a_url_says_what_to_install() -> None:
    """`pip install errdex` leaves psycopg out (the `postgres` extra brings it): a URL
    then fails in one line that says how to get it, and SQLite is untouched."""
    code = ("import sys; sys.modules['psycopg'] = None; from errdex.serve.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "--db", "postgresql://h/db", "list"],
                          capture_output=True, text=True, timeout=WAIT, cwd=ROOT)
    assert done.returncode == EXIT_STORE
    assert done.stderr.strip() == ("errdex: a PostgreSQL database needs psycopg (psycopg is "
                                   "not installed): pip install 'errdex[postgres]'")


def test_errdex_db_names_the_url_for_every_command(postgres_url: str, tmp_path: Path) -> None:
    """ERRDEX_DB=postgresql://... instead of --db: index, analyze, export and the
    exception hook (`errdex run`) all read and write the server's database."""
    env = {**os.environ, "ERRDEX_DB": postgres_url}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "errdex", *args], capture_output=True,
                              text=True, timeout=WAIT, cwd=ROOT, env=env)

    assert run("index", str(FIXTURES / "python_repo"), "--repo", "o/py").returncode == 0
    analyzed = run("analyze")
    assert analyzed.returncode == 0 and "pages written:" in analyzed.stdout
    exported = run("export", str(tmp_path / "site"))
    assert exported.returncode == 0 and (tmp_path / "site" / "index.html").exists()
    script = tmp_path / "boom.py"
    script.write_text('raise TypeError("None in items")\n')
    hooked = run("run", str(script))
    assert hooked.returncode == 1
    assert "errdex: o/py — None in items" in hooked.stderr
    assert "at pkg/checks.py:26" in hooked.stderr


def test_two_writers_of_the_same_snapshot_take_turns(postgres_url: str) -> None:
    """A second writer of the same (repository, ref) waits for the first to commit, and
    one that may not wait that long fails in one line; the last to commit wins."""
    import threading

    from tests.builders import make_record
    from tests.test_store_contract import _write

    first = [make_record("first writer's message")]
    second = [make_record("second writer's message")]
    with PostgresStore(postgres_url) as setup:
        _write(setup, "o/r", [make_record("before both")])
    holder = _hold_writes_of(postgres_url, "o/r")
    errors: list[BaseException] = []

    def write(records: list[Record]) -> None:
        try:
            with PostgresStore(postgres_url) as store:
                _write(store, "o/r", records)
        except BaseException as exc:
            errors.append(exc)

    def waiting() -> int:
        row = holder.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                             "AND NOT granted").fetchone()
        return int(row[0]) if row else 0  # type: ignore[call-overload]

    a = threading.Thread(target=write, args=(first,))
    a.start()
    try:
        _until(lambda: waiting() == 1, "the first writer held mid-transaction")
        with PostgresStore(postgres_url, timeout=0.2) as hasty, pytest.raises(
                StoreError, match=r"^database postgresql://errdex:\*\*\*@.* is locked by "
                r"another writer \(waited 0\.2 s\)$"):
            _write(hasty, "o/r", second)
        b = threading.Thread(target=write, args=(second,))
        b.start()
        _until(lambda: waiting() == 2, "the second writer waiting for the first")
    finally:
        holder.close()
    a.join(WAIT)
    b.join(WAIT)
    assert errors == []
    with PostgresStore(postgres_url, create=False) as reader:
        assert [r.message for r in reader.records()] == ["second writer's message"]
