"""`errdex mcp` as a coding agent meets it: a real `errdex mcp` process (the venv's
console script) on a database indexed here from tests/shapes.py, driven by the official
SDK's own client over stdio and over streamable HTTP. The client checks every result
against the tool's published output schema, so a contract the schemas misdescribe fails
here. Timeouts are hang detectors, not timings."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from errdex.serve.cli import EXIT_STORE
from errdex.serve.mcp import MAX_TEXT_CHARS
from tests.shapes import COMMIT, GRID, OTHER_REPO, REPO, TRACEBACK, index_shapes, line_of

ERRDEX = str(Path(sys.executable).with_name("errdex"))
HANG = 60  # seconds: far beyond any honest wait; only a hang reaches it
TOOLS = {"explain_error", "get_error", "search_errors", "errors_at", "list_repositories"}

T = TypeVar("T")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert os.path.exists(ERRDEX), "the errdex console script of this environment"
    return index_shapes(tmp_path_factory.mktemp("mcp"))


def _over_stdio(db: Path, tmp_path: Path, talk: Callable[[ClientSession], Awaitable[T]]) -> T:
    """Run `errdex --db DB mcp`, initialize a client session, talk, and stop it; the
    server's stderr must hold no traceback."""
    errlog = tmp_path / "stderr.txt"

    async def session() -> T:
        with anyio.fail_after(HANG), errlog.open("w") as err:
            params = StdioServerParameters(command=ERRDEX, args=["--db", str(db), "mcp"])
            async with stdio_client(params, errlog=err) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                await client.list_tools()  # the client learns the output schemas to check
                return await talk(client)

    result = anyio.run(session)
    assert "Traceback" not in errlog.read_text()
    return result


def _call(db: Path, tmp_path: Path, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    async def talk(client: ClientSession) -> CallToolResult:
        return await client.call_tool(tool, arguments)

    return _over_stdio(db, tmp_path, talk)


def _ok(result: CallToolResult) -> dict[str, Any]:
    """The structured result, which the text a user sees must say too."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    [content] = result.content
    assert isinstance(content, TextContent)
    assert json.loads(content.text) == result.structured_content
    return result.structured_content


def _error_line(result: CallToolResult) -> str:
    assert result.is_error
    [content] = result.content
    assert isinstance(content, TextContent)
    assert "\n" not in content.text.strip()
    assert "Traceback" not in content.text
    return content.text


def _id_of(db: Path, message_start: str) -> str:
    from errdex.store import SQLiteStore

    with SQLiteStore(db, create=False) as store:
        ids = [r.id for r in store.records() if r.message.startswith(message_start)]
    assert len(ids) == 1
    return ids[0]


# -- tools over stdio ---------------------------------------------------------------------


def test_lists_the_five_tools_each_with_input_and_output_schemas(
    db: Path, tmp_path: Path
) -> None:
    async def talk(client: ClientSession) -> Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in _over_stdio(db, tmp_path, talk)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
    assert tools["explain_error"].input_schema["required"] == ["text"]
    assert tools["get_error"].input_schema["required"] == ["id"]
    assert tools["errors_at"].input_schema["required"] == ["path"]
    assert set(tools["explain_error"].output_schema["properties"]) == {"input", "matches"}
    # The record's contract is spelled out to its top-level fields, sites included.
    record = tools["get_error"].output_schema
    assert {"id", "repo", "message", "sites", "explanation"} <= set(record["required"])
    site = record["$defs"]["Site"]["properties"]
    assert {"path", "line", "url", "function"} <= set(site)
    assert {"summary", "solutions"} <= set(record["$defs"]["Explanation"]["properties"])


def test_explain_error_finds_the_pasted_record_with_its_values(db: Path, tmp_path: Path) -> None:
    result = _ok(_call(db, tmp_path, "explain_error", {"text": TRACEBACK}))
    assert result["input"] == TRACEBACK
    best = result["matches"][0]
    assert best["exact"] is True
    assert best["values"] == {"rows": "-3"}
    record = best["record"]
    assert record["id"] == _id_of(db, "grid needs at least one row")
    assert record["repo"] == REPO
    assert record["message"] == "grid needs at least one row, got {rows}"
    [site] = record["sites"]
    assert (site["path"], site["line"]) == ("shapes/grid.py", line_of(GRID, "at least one row"))
    assert site["function"] == "shapes.grid.Grid.__init__"
    assert site["url"] == f"https://github.com/{REPO}/blob/{COMMIT}/shapes/grid.py#L4"
    assert "rows" in record["explanation"]["summary"]
    assert record["explanation"]["solutions"]


def test_explain_error_of_text_nothing_raises_finds_no_exact_match(
    db: Path, tmp_path: Path
) -> None:
    result = _ok(_call(db, tmp_path, "explain_error",
                       {"text": "the coffee machine is out of beans"}))
    assert not [m for m in result["matches"] if m["exact"]]


def test_get_error_returns_the_record_by_id(db: Path, tmp_path: Path) -> None:
    record_id = _id_of(db, "unknown save mode")
    record = _ok(_call(db, tmp_path, "get_error", {"id": record_id}))
    assert record["id"] == record_id
    assert record["message"] == "unknown save mode %r for %s"
    assert record["exception"] == "ValueError"
    assert record["sites"][0]["path"] == "shapes/storage.py"
    # Fields the schema leaves open pass through whole.
    assert "code" in record["sites"][0]["snippet"]
    assert "facts" in record


def test_search_errors_finds_messages_by_their_words(db: Path, tmp_path: Path) -> None:
    result = _ok(_call(db, tmp_path, "search_errors", {"query": "out of range"}))
    assert result["query"] == "out of range"
    [row] = result["results"]
    assert row["id"] == _id_of(db, "row {row} out of range")
    assert (row["path"], row["line"]) == ("shapes/grid.py", line_of(GRID, "out of range"))
    none = _ok(_call(db, tmp_path, "search_errors", {"query": "zebra"}))
    assert none["results"] == []


def test_errors_at_a_site_line_returns_its_record_and_other_lines_none(
    db: Path, tmp_path: Path
) -> None:
    line = line_of(GRID, "out of range")
    wide = line_of(GRID, "the limit is")  # inside a raise spanning four lines

    async def talk(client: ClientSession) -> list[dict[str, Any]]:
        asks = [{"path": "shapes/grid.py", "line": line},
                {"path": "/home/me/venv/lib/python3.11/site-packages/shapes/grid.py",
                 "line": wide},
                {"path": "shapes/grid.py", "line": 1},
                {"path": "shapes/grid.py"}]
        return [_ok(await client.call_tool("errors_at", ask)) for ask in asks]

    at_line, in_span, no_site, whole_file = _over_stdio(db, tmp_path, talk)
    assert (at_line["path"], at_line["line"]) == ("shapes/grid.py", line)
    [hit] = at_line["errors"]
    assert hit["id"] == _id_of(db, "row {row} out of range")
    assert hit["exception"] == "IndexError"
    assert [(s["path"], s["line"]) for s in hit["sites"]] == [("shapes/grid.py", line)]
    assert [h["message"] for h in in_span["errors"]] == [
        "grid too wide: {cols} columns, the limit is {arg1}"]
    assert no_site["errors"] == []
    assert len(whole_file["errors"]) == 3


def test_list_repositories_names_the_indexed_repositories(db: Path, tmp_path: Path) -> None:
    result = _ok(_call(db, tmp_path, "list_repositories", {}))
    repos = {r["repo"]: r for r in result["repositories"]}
    assert set(repos) == {REPO, OTHER_REPO}
    assert repos[REPO]["records"] == 4
    assert repos[REPO]["commit_sha"] == COMMIT


def test_failures_are_one_line_tool_errors(db: Path, tmp_path: Path) -> None:
    async def talk(client: ClientSession) -> list[CallToolResult]:
        return [
            await client.call_tool("get_error", {"id": "0000000000000000"}),
            await client.call_tool("explain_error", {"text": "  \n "}),
            await client.call_tool("explain_error", {"text": "x" * (MAX_TEXT_CHARS + 1)}),
            await client.call_tool("search_errors", {"query": ""}),
            await client.call_tool("errors_at", {"path": " "}),
            await client.call_tool("explain_error", {"text": "x", "limit": 0}),
            await client.call_tool("errors_at", {"line": "three"}),
            # and the server still answers after them
            await client.call_tool("list_repositories", {}),
        ]

    (unknown, empty, large, no_query, no_path, bad_limit, bad_args,
     after) = _over_stdio(db, tmp_path, talk)
    assert "no error with id '0000000000000000'" in _error_line(unknown)
    assert "nothing to explain" in _error_line(empty)
    assert "input too large" in _error_line(large)
    assert "nothing to search for" in _error_line(no_query)
    assert "file path" in _error_line(no_path)
    # Arguments the input schema refuses: one line too, naming each field.
    assert _error_line(bad_limit).startswith("invalid arguments for explain_error: limit: ")
    assert "path: Field required" in _error_line(bad_args)
    assert "line: Input should be a valid integer" in _error_line(bad_args)
    assert len(_ok(after)["repositories"]) == 2


def test_a_missing_database_is_one_line_and_exit_3_before_serving(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    for extra in ([], ["--http", "--port", "1"]):
        done = subprocess.run([ERRDEX, "--db", str(missing), "mcp", *extra],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=HANG)
        assert done.returncode == EXIT_STORE
        assert done.stdout == ""
        assert done.stderr.splitlines() == [
            f"errdex: no database at {missing}: run `errdex index` first"]
    assert not missing.exists()


def test_stdout_carries_protocol_messages_only(db: Path) -> None:
    """Raw JSON-RPC over the pipes: every line the server writes is a protocol message,
    the answer to a failing call included."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_error", "arguments": {"id": "nope"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "explain_error", "arguments": {"text": TRACEBACK}}},
    ]
    proc = subprocess.Popen([ERRDEX, "--db", str(db), "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(HANG, proc.kill)
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        answers: dict[int, dict[str, Any]] = {}
        lines = []
        while len(answers) < 3:
            line = proc.stdout.readline()
            assert line, "the server closed stdout before answering"
            lines.append(line)
            message = json.loads(line)
            assert message["jsonrpc"] == "2.0"
            if "id" in message:
                answers[message["id"]] = message
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(timeout=HANG) == 0
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in rest.splitlines())
    assert answers[2]["result"]["isError"] is True
    values = answers[3]["result"]["structuredContent"]["matches"][0]["values"]
    assert values == {"rows": "-3"}


# -- streamable HTTP ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        assert proc.poll() is None, "errdex mcp --http exited before listening"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port}")


def test_http_mode_serves_the_tools_over_streamable_http(db: Path, tmp_path: Path) -> None:
    port = _free_port()
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            [ERRDEX, "--db", str(db), "mcp", "--http", "--host", "127.0.0.1",
             "--port", str(port)], stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
    try:
        _wait_for_port(proc, port)

        async def session() -> tuple[set[str], dict[str, Any]]:
            with anyio.fail_after(HANG):
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (
                        read, write), ClientSession(read, write) as client:
                    await client.initialize()
                    names = {tool.name for tool in (await client.list_tools()).tools}
                    result = await client.call_tool("explain_error", {"text": TRACEBACK})
                    return names, _ok(result)

        names, result = anyio.run(session)
    finally:
        proc.terminate()
        proc.wait(timeout=HANG)
    assert names == TOOLS
    assert result["matches"][0]["values"] == {"rows": "-3"}
    assert result["matches"][0]["record"]["repo"] == REPO
    assert out.read_text() == ""  # logging goes to stderr, in HTTP mode too
    assert "Traceback" not in err.read_text()


def test_http_on_a_port_in_use_is_one_line_and_exit_2(db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([ERRDEX, "--db", str(db), "mcp", "--http", "--port", str(port)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=HANG)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"errdex: cannot listen on 127.0.0.1:{port}: ")
