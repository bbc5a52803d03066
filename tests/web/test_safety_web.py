"""The server and the static export under hostile input: a search that cannot freeze the
server, slow clients that cannot hold it, a re-index it picks up, a static search that
cannot freeze the page, and HEAD/OPTIONS answered as HTTP says.

Every input is built here at test time. Servers are the real `errdex serve` on
127.0.0.1; outcomes are counted (responses received, connections closed, terms used,
SQLite steps, string scans), never timed: a timeout only detects a hang.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from errdex.store import SQLiteStore
from errdex.store.base import MAX_SEARCH_TERMS, SEARCH_STEP_BUDGET
from tests.web.conftest import Served, _errdex, _free_port

HANG = 60.0  # seconds: a client timeout that only a hang reaches

# Six holes between short literals: a lazy-regex matcher backtracks through every way of
# splitting a line of ", " pieces among them (O(n^6)); a literal scan reads it once.
SIX_HOLES = 'raise ValueError(f"bad {a}, {b}, {c}, {d}, {e}, {f} end")'
RETIRED = 'raise KeyError(f"gadget {a} was retired in {b}")'
SPROCKET = 'raise LookupError(f"gadget {a} has no sprocket named {b}")'


def _write_tree(root: Path, *raises: str) -> Path:
    """A package `gadgets` whose one function raises each of `raises` on its own branch."""
    package = root / "gadgets"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    body = "".join(f"    if a == {i}:\n        {line}\n" for i, line in enumerate(raises))
    (package / "core.py").write_text(f"def configure(a, b, c, d, e, f):\n{body}    return a\n")
    return root


def _index(db: Path, tree: Path) -> None:
    done = _errdex("--db", str(db), "index", str(tree), "--repo", "acme/gadgets")
    assert done.returncode == 0, done.stderr


@dataclass(frozen=True)
class Server:
    url: str
    port: int
    proc: subprocess.Popen[bytes]


@pytest.fixture()
def start_server() -> Iterator[Callable[..., Server]]:
    """Starts `errdex --db DB serve ARGS...` on a free loopback port; stops them all."""
    started: list[subprocess.Popen[bytes]] = []

    def start(db: Path, *args: str) -> Server:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "errdex", "--db", str(db), "serve", "--port", str(port),
             *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                httpx.get(url + "/api/health", timeout=1)
                return Server(url, port, proc)
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("errdex serve did not start")

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


# -- 1. a search cannot freeze the server ------------------------------------------------

def test_a_repeated_word_search_uses_each_word_once_and_the_server_stays_answering(
    served: Served,
) -> None:
    hostile = " ".join(["a"] * 7_500)  # the 15 KB GET that blocked everything 71 s
    found = httpx.get(served.url + "/api/search", params={"q": hostile}, timeout=HANG)
    assert found.status_code == 200
    assert found.json()["terms"] == ["a"]
    many = " ".join(f"w{i}" for i in range(2_000))  # 2,000 different words, 13 KB
    capped = httpx.get(served.url + "/api/search", params={"q": many}, timeout=HANG).json()
    assert capped["terms"] == [f"w{i}" for i in range(MAX_SEARCH_TERMS)]
    form = httpx.post(served.url + "/search", data={"q": hostile[:10_000]}, timeout=HANG)
    assert form.status_code == 200 and "<html" in form.text


def test_no_route_runs_store_or_matcher_work_on_the_event_loop(web_db: Path) -> None:
    # The app in a real uvicorn server on a thread of this process, so the threads that
    # opened a SQLite store can be counted: routes run in the thread pool, never on the
    # loop (before, every route was `async` and ran SQLite and the matcher on it).
    import asyncio

    import uvicorn

    from errdex.serve.web.app import create_app
    from errdex.serve.web.protocol import deadline_protocol

    app = create_app(web_db)
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            http=deadline_protocol(5, 5))
    server = uvicorn.Server(config)
    loop_thread: list[int] = []

    def run() -> None:
        loop_thread.append(threading.get_ident())
        asyncio.run(server.serve())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            if server.started:
                break
            time.sleep(0.05)
        assert server.started
        hostile = " ".join(["a"] * 7_500)
        with httpx.Client(base_url=url, timeout=HANG) as client:
            record = client.get("/api/search", params={"q": "widget width"}).json()
            record_id = record["results"][0]["id"]
            paths = ["/", "/search?q=widget", f"/errors/{record_id}", "/repos/acme/widgets",
                     "/classes/shape-mismatch", "/api/repos", "/api/repos/acme/widgets",
                     f"/api/errors/{record_id}", "/api/classes/shape-mismatch",
                     "/api/health"]
            statuses = [client.get(path).status_code for path in paths]
            statuses.append(client.get("/api/search", params={"q": hostile}).status_code)
            statuses.append(client.post("/search", data={"q": hostile}).status_code)
            statuses.append(client.post("/api/match", json={"text": hostile}).status_code)
        assert statuses == [200] * len(statuses)
        live = app.state.live
        assert live.store_threads and loop_thread[0] not in live.store_threads
    finally:
        server.should_exit = True
        thread.join(HANG)


def test_text_search_work_is_counted_and_stops_at_its_budget(web_db: Path) -> None:
    with SQLiteStore(web_db, create=False) as store:
        hostile = " ".join(["version"] * 7_500) + " " + " ".join(f"x{i}" for i in range(500))
        bounded = store.text_search(hostile)
        assert bounded.terms[0] == "version" and len(bounded.terms) == MAX_SEARCH_TERMS
        assert bounded.complete
        plain = store.text_search("invalid version")
        assert plain.rows and plain.complete
        assert plain.steps <= SEARCH_STEP_BUDGET
        stopped = store.text_search("invalid version", budget=100)
        assert not stopped.complete and stopped.rows == []
        assert stopped.steps <= 100 + 2 * 10  # counted every 10 steps, stopped past 100


# -- 2. slow clients are cut off --------------------------------------------------------

def _closed_by_server(sock: socket.socket) -> bytes | None:
    """What the server sent before closing, or None if it kept the connection open for
    the hang detector's whole timeout."""
    sock.settimeout(HANG / 4)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


@pytest.mark.slow
def test_slow_clients_are_disconnected_and_real_clients_served_meanwhile(
    web_db: Path, start_server: Callable[..., Server],
) -> None:
    server = start_server(web_db, "--header-timeout", "1", "--body-timeout", "1",
                          "--keep-alive-timeout", "1")
    address = ("127.0.0.1", server.port)
    half_headers = [socket.create_connection(address) for _ in range(50)]
    for sock in half_headers:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    half_bodies = [socket.create_connection(address) for _ in range(10)]
    for sock in half_bodies:
        sock.sendall(b"POST /api/match HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"te")
    silent = [socket.create_connection(address) for _ in range(10)]
    try:
        served_meanwhile = sum(
            httpx.get(server.url + "/api/health", timeout=HANG).status_code == 200
            for _ in range(3))
        assert served_meanwhile == 3
        header_replies = [_closed_by_server(s) for s in half_headers + silent]
        assert all(r is not None and r.startswith(b"HTTP/1.1 408 ") for r in header_replies)
        body = json.loads(header_replies[0].split(b"\r\n\r\n", 1)[1])  # type: ignore[union-attr]
        assert body["error"]["status"] == 408
        assert [_closed_by_server(s) for s in half_bodies] == [b""] * len(half_bodies)
    finally:
        for sock in half_headers + half_bodies + silent:
            sock.close()
    assert httpx.get(server.url + "/api/health", timeout=HANG).status_code == 200


@pytest.mark.slow
def test_trickled_headers_do_not_extend_the_deadline_and_idle_keep_alive_closes(
    web_db: Path, start_server: Callable[..., Server],
) -> None:
    server = start_server(web_db, "--header-timeout", "1", "--keep-alive-timeout", "1")
    request = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Pad: " + b"p" * 200
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.settimeout(0.2)
        reply = b""
        for byte in request:  # one byte every 0.2 s: 250 bytes would take 50 s
            try:
                sock.sendall(bytes([byte]))
                sent += 1
                reply = sock.recv(4096)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
            if reply:
                break
        assert reply.startswith(b"HTTP/1.1 408 ")
        assert sent < len(request)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answered = _closed_by_server(sock)  # the answer, then closed once idle
        assert answered is not None and answered.startswith(b"HTTP/1.1 200 ")


def test_serve_refuses_a_zero_timeout(web_db: Path) -> None:
    done = _errdex("--db", str(web_db), "serve", "--header-timeout", "0")
    assert done.returncode == 2 and "--header-timeout must be positive" in done.stderr


# -- 3. a re-index is served without a restart ------------------------------------------

def _exact(server: Server, text: str) -> list[tuple[str, str]]:
    """(id, status) of the exact matches of `text`: status is current, or removed for a
    record a later index no longer found (kept, marked, so an old paste still explains)."""
    response = httpx.post(server.url + "/api/match", json={"text": text}, timeout=HANG)
    assert response.status_code == 200, response.text
    return [(m["id"], m["record"]["status"]) for m in response.json()["matches"] if m["exact"]]


@pytest.mark.slow
def test_a_reindex_from_another_process_is_served_without_a_restart(
    tmp_path: Path, start_server: Callable[..., Server],
) -> None:
    db = tmp_path / "live.sqlite"
    tree = _write_tree(tmp_path / "tree", SIX_HOLES, RETIRED)
    _index(db, tree)
    server = start_server(db, "--keep-alive-timeout", "1")
    before = httpx.get(server.url + "/api/health", timeout=HANG).json()
    assert before["reloading"] is False
    assert [(s["repo"], s["records"]) for s in before["snapshots"]] == [("acme/gadgets", 2)]
    retired = _exact(server, "KeyError: 'gadget x was retired in 3'")
    assert [status for _, status in retired] == ["current"]
    assert _exact(server, "LookupError: gadget x has no sprocket named y") == []

    shutil.rmtree(tree)
    _index(db, _write_tree(tree, SIX_HOLES, SPROCKET))  # another process commits

    health = before
    for _ in range(300):  # the watcher checks every second
        health = httpx.get(server.url + "/api/health", timeout=HANG).json()
        if health["generation"] > before["generation"] and not health["reloading"]:
            break
        time.sleep(0.1)
    assert health["generation"] == before["generation"] + 1
    assert health["snapshots"][0]["indexed_at"] >= before["snapshots"][0]["indexed_at"]
    assert health["snapshots"][0]["records"] == 3  # two current, one removed
    added = _exact(server, "LookupError: gadget x has no sprocket named y")
    assert [status for _, status in added] == ["current"]
    assert _exact(server, "KeyError: 'gadget x was retired in 3'") == [(retired[0][0], "removed")]
    assert server.proc.poll() is None  # the same process all along


# -- 4. the static export's search is linear --------------------------------------------

SEARCH_JS = (Path(__file__).resolve().parents[2] / "errdex" / "serve" / "web" / "static"
             / "search.js")
NODE = shutil.which("node")
CHROMIUM = Path("/usr/bin/chromium")
HOSTILE_QUERY = ("bad " + "x, " * 400)[:720]  # fits a link's ?q=; no " end" to close it

NODE_RUN = """
const search = require(process.argv[1]);
const index = JSON.parse(process.argv[2]);
const out = {};
for (const [name, q] of Object.entries(JSON.parse(process.argv[3]))) {
  search.stats.probes = 0;
  const found = search.exactMatches(q, index);
  out[name] = {probes: search.stats.probes, found: found.map(f => [f.entry[0], f.values]),
               words: search.wordMatches(q, index, true).map(f => f.entry[0])};
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_static_search_scans_a_hostile_query_once_and_still_binds_values() -> None:
    entry = ["id6", "acme/gadgets", "ValueError", ["bad ", ", ", ", ", ", ", ", ", ", ", " end"],
             ["a", "b", "c", "d", "e", "f"], "bad {a}, {b}, {c}, {d}, {e}, {f} end"]
    other = ["id2", "acme/gadgets", "KeyError", ["gadget ", " was retired in ", ""],
             ["a", "b"], "gadget {a} was retired in {b}"]
    queries = {"hostile": HOSTILE_QUERY, "long": HOSTILE_QUERY * 100,
               "paste": "Traceback:\nValueError: bad 1, 2, 3, 4, 5, 6 end",
               "piece": "log: KeyError: 'gadget g7 was retired in 2.0' (ignored)",
               "words": "RETIRED gadget gadget gadget"}
    done = subprocess.run([str(NODE), "-e", NODE_RUN, str(SEARCH_JS),
                           json.dumps([entry, other]), json.dumps(queries)],
                          capture_output=True, text=True, timeout=HANG, check=True)
    out = json.loads(done.stdout)
    # One scan per literal per line and index entry, plus the prefilter and the two tries.
    assert out["hostile"]["found"] == [] and out["hostile"]["probes"] <= 2 * (7 + 3)
    assert out["long"]["probes"] == out["hostile"]["probes"]  # capped at MAX_QUERY chars
    assert out["paste"]["found"] == [["id6", dict(zip("abcdef", "123456", strict=True))]]
    assert out["piece"]["found"] == [["id2", {"a": "g7", "b": "2.0' (ignored)"}]]
    assert out["words"]["words"] == ["id2"]


@pytest.fixture(scope="module")
def gadget_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gadgets")
    db = root / "gadgets.sqlite"
    _index(db, _write_tree(root / "tree", SIX_HOLES, RETIRED))
    site = root / "site"
    done = _errdex("--db", str(db), "export", str(site))
    assert done.returncode == 0, done.stderr
    return site


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (.ci/run installs it)")
def test_the_exported_search_page_answers_a_hostile_link_in_chromium(gadget_site: Path) -> None:
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    from tests.web.test_browser import ARGS

    search = (gadget_site / "search.html").as_uri()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_default_timeout(HANG * 1000)  # before: over a minute frozen
            page.goto(search + "?q=" + quote(HOSTILE_QUERY))
            assert page.locator("#results-h").inner_text() == "No indexed error matches this text"
            page.goto(search + "?q=" + quote("ValueError: bad 1, 2, 3, 4, 5, 6 end"))
            assert page.locator("#results-h").inner_text() == "1 matching error"
            assert page.locator("ol.results mark.value").all_inner_texts() == list("123456")
            page.goto(search + "?q=" + quote("retired gadget"))
            assert "containing these words" in page.locator("#results-h").inner_text()
            page.goto(search + "?q=" + quote(HOSTILE_QUERY * 40))  # past MAX_QUERY
            assert "Only the first 20000 characters" in page.locator("#status").inner_text()
            assert errors == []
        finally:
            browser.close()


# -- 5. HEAD and OPTIONS ----------------------------------------------------------------

def test_head_gets_the_get_headers_without_a_body(served: Served) -> None:
    record = httpx.get(served.url + "/api/search", params={"q": "widget width"}).json()
    for path in ("/", "/api/health", "/api/repos", f"/errors/{record['results'][0]['id']}",
                 "/static/style.css", "/search?q=widget"):
        get = httpx.get(served.url + path)
        head = httpx.head(served.url + path)
        assert (head.status_code, head.content) == (200, b""), path
        assert head.headers["content-type"] == get.headers["content-type"], path
        assert int(head.headers["content-length"]) == len(get.content), path
        assert head.headers["content-security-policy"], path


def test_options_and_405_name_every_method_of_the_path(served: Served) -> None:
    def allow(response: httpx.Response) -> set[str]:
        return {m.strip() for m in response.headers["allow"].split(",")}

    expected = {"/search": {"GET", "HEAD", "OPTIONS", "POST"},
                "/api/match": {"OPTIONS", "POST"},
                "/api/health": {"GET", "HEAD", "OPTIONS"},
                "/static/style.css": {"GET", "HEAD", "OPTIONS"}}
    for path, methods in expected.items():
        options = httpx.options(served.url + path)
        assert options.status_code == 204 and allow(options) == methods, path
    refused = httpx.put(served.url + "/search")
    assert refused.status_code == 405 and allow(refused) == expected["/search"]
    api = httpx.delete(served.url + "/api/match")
    assert api.status_code == 405 and allow(api) == expected["/api/match"]
    assert api.json()["error"]["status"] == 405
    head = httpx.head(served.url + "/api/match")
    assert head.status_code == 405 and allow(head) == expected["/api/match"]
    missing = httpx.options(served.url + "/api/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["status"] == 404
