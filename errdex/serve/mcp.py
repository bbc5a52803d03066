"""`errdex mcp`: the error index as tools for coding agents, over the Model Context Protocol.

A thin layer on the official SDK (`mcp.server.mcpserver.MCPServer`) over
`errdex.service.Explainer`: each tool validates its arguments, makes one call and returns
the JSON contract the CLI prints, described by the TypedDicts below (the SDK publishes
them as each tool's output schema and checks every result against them). Only the
top-level fields of each contract are spelled out; wide nested parts (facts, snippets,
placeholders) stay open objects, and every object admits fields added later.

What it must not do: write to stdout (in stdio mode stdout is the protocol; logging goes
to stderr), let a traceback reach the client (errdex's own errors become tool errors with
a one-line message; anything else is the SDK's "Error executing tool", logged on stderr),
or change the database.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypeVar, cast

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic reads nested TypedDicts only from here on 3.11

from errdex.errors import ErrdexError, UsageError
from errdex.service import Explainer, MatcherMode

if TYPE_CHECKING:  # the SDK takes a second to import: `run` opens the database first
    from mcp.server.mcpserver import MCPServer

# A paste through an agent is a message, a traceback or a log excerpt; a whole log is
# `errdex scan`'s job. (The HTTP transport also bounds a request body at 4 MiB.)
MAX_TEXT_CHARS = 1_000_000
SERVER_NAME = "errdex"
INSTRUCTIONS = (
    "errdex indexes the errors a library's source code can raise (each one a record with "
    "its message template, the sites that raise it, and an explanation written from the "
    "code). Paste an error message, traceback or log excerpt into explain_error to find "
    "the records it contains, with the values the text filled in; use get_error for one "
    "record's whole page, search_errors for words of a message, errors_at for what a file "
    "or line can raise, and list_repositories for what is indexed."
)
_OPEN = ConfigDict(extra="allow")  # the contracts grow; a field added later passes through

T = TypeVar("T")


# -- the contracts, as output schemas ------------------------------------------------------


@with_config(_OPEN)
class Site(TypedDict):
    """One place in the code that raises the error."""

    path: str
    line: int
    end_line: int
    function: str | None
    guard: str | None
    url: str | None
    kind: str
    exception: str | None


@with_config(_OPEN)
class Explanation(TypedDict):
    """What the error means and how to fix it, written from the code."""

    summary: str
    what_it_means: str
    solutions: list[str]
    trigger: str
    prevention: list[str]
    common_situations: list[str]
    example_fix: NotRequired[dict[str, Any]]
    defensive: NotRequired[dict[str, Any]]
    source: NotRequired[str]


@with_config(_OPEN)
class Record(TypedDict):
    """One error of an indexed repository: its message template, every site that raises
    it, and its explanation (the `errdex show --json` contract)."""

    id: str
    repo: str
    commit: str | None
    version: str | None
    language: str
    kind: str
    exception: str | None
    message: str
    template: str
    placeholders: list[dict[str, Any]]
    sites: list[Site]
    explanation: Explanation | None
    related: list[dict[str, Any]]
    failure_class: dict[str, Any] | None
    status: str
    facts: NotRequired[dict[str, Any]]


@with_config(_OPEN)
class Match(TypedDict):
    """A record found in the pasted text."""

    id: str
    score: float
    exact: bool
    values: dict[str, str]
    span: list[int]
    why: str
    site_index: int | None
    record: Record


@with_config(_OPEN)
class ExplainResult(TypedDict):
    """The `errdex explain --json` shape: best match first; empty when nothing matches."""

    input: str
    matches: list[Match]


@with_config(_OPEN)
class Listing(TypedDict):
    """A record in a list: enough to pick one and ask get_error for its page."""

    id: str
    repo: str
    kind: str
    exception: str | None
    message: str
    path: str
    line: int


@with_config(_OPEN)
class SearchResult(TypedDict):
    query: str
    results: list[Listing]


@with_config(_OPEN)
class SiteHit(TypedDict):
    """A record with a site in the file asked for, and those sites."""

    id: str
    repo: str
    language: str
    kind: str
    exception: str | None
    message: str
    summary: str | None
    sites: list[Site]


@with_config(_OPEN)
class ErrorsAtResult(TypedDict):
    path: str
    line: int | None
    errors: list[SiteHit]


@with_config(_OPEN)
class Repository(TypedDict):
    repo: str
    commit_sha: str | None
    commit_date: str | None
    version: str | None
    indexed_at: str
    records: int


@with_config(_OPEN)
class RepositoriesResult(TypedDict):
    repositories: list[Repository]


# -- the server -------------------------------------------------------------------------


def _answer(call: Callable[[], T]) -> T:
    """errdex's own failures (unknown id, empty or oversized text, an unreadable
    database) as a tool error the agent reads: one line, no traceback."""
    try:
        return call()
    except ErrdexError as exc:
        from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError(" ".join(exc.message.split())) from None


def _server_class() -> type[MCPServer[Any]]:
    """The SDK's server, with arguments that fail the input schema reported in one line
    naming each field (pydantic's own report spans several, with a URL per error)."""
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.types import CallToolResult, InputRequiredResult
    from pydantic import ValidationError

    class Server(MCPServer[Any]):
        async def call_tool(
            self, name: str, arguments: dict[str, Any],
            context: Context[Any, Any] | None = None,
        ) -> CallToolResult | InputRequiredResult:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                problems = "; ".join(
                    f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: "
                    f"{error['msg']}" for error in cause.errors())
                raise ToolError(f"invalid arguments for {name}: {problems}") from cause

    return Server


def build_server(explainer: Explainer) -> MCPServer[Any]:
    """The MCP server over one explainer. Tools are coroutines on purpose: the calls take
    milliseconds, and running them on the event loop keeps the one SQLite connection on
    one thread (as the web app does)."""
    from mcp.types import ToolAnnotations

    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                idempotent_hint=True, open_world_hint=False)
    server = _server_class()(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=read_only, description=(
        "Explain an error you hit: paste the error message, the whole traceback or panic, "
        "or a log excerpt, exactly as printed. Returns the indexed errors found in it, best "
        "first, each with `values` (what the text filled into the message's placeholders), "
        "`exact` (every fixed part of the message found; false means only the nearest known "
        "error), and `record`: the sites in the library's code that raise it (path, line, "
        "url, function, guard) and `explanation` (summary, what_it_means, solutions, "
        "trigger, example_fix). No matches means no indexed repository raises this text."))
    async def explain_error(
        text: Annotated[str, Field(description="the error text as printed, unedited")],
        limit: Annotated[int, Field(ge=1, le=50, description="most matches to return")] = 5,
    ) -> ExplainResult:
        return cast(ExplainResult, _answer(lambda: explainer.explain(text, limit)))

    @server.tool(annotations=read_only, description=(
        "Get one indexed error by its id (the `id` from explain_error, search_errors or "
        "errors_at): its message template, every site that raises it (path, line, url, "
        "function, guard, snippet), its explanation and the facts read from the code "
        "(conditions, tests, history)."))
    async def get_error(
        id: Annotated[str, Field(description="the record id, e.g. 11d0cf672f02894e")],
    ) -> Record:
        return cast(Record, _answer(lambda: explainer.show(id)))

    @server.tool(annotations=read_only, description=(
        "Search the indexed error messages for words (every word must appear), best first. "
        "Use it when you know part of a message but not its exact text; for a message "
        "with real values in it, explain_error is better. Returns id, repo, exception, "
        "message template and the first site's path and line of each; get_error has "
        "the rest."))
    async def search_errors(
        query: Annotated[str, Field(description="words of the message, e.g. 'invalid shape'")],
        limit: Annotated[int, Field(ge=1, le=100, description="most results")] = 20,
    ) -> SearchResult:
        rows = _answer(lambda: explainer.search(query, limit))
        return {"query": query, "results": cast(list[Listing], rows)}

    @server.tool(annotations=read_only, description=(
        "What a line of code can raise: the indexed errors with a site at that file and "
        "line (inside the raising statement's span). Without a line, every error raised "
        "anywhere in the file. The path may be as a traceback prints it (absolute, under "
        "site-packages) or relative to the repository root; it is matched on its trailing "
        "components. Each error comes with its message, explanation summary and its "
        "sites in that file. An empty list means no indexed error is raised there."))
    async def errors_at(
        path: Annotated[str, Field(description="the file, e.g. src/pkg/parser.py")],
        line: Annotated[int | None, Field(ge=1, description="a 1-based line number")] = None,
    ) -> ErrorsAtResult:
        hits = _answer(lambda: explainer.at(path, line))
        return {"path": path, "line": line, "errors": cast(list[SiteHit], hits)}

    @server.tool(annotations=read_only, description=(
        "The repositories in the index: name (owner/name), the commit and version indexed, "
        "when, and how many errors each has. Answers come only from these."))
    async def list_repositories() -> RepositoriesResult:
        repos = _answer(explainer.repositories)
        return {"repositories": cast(list[Repository], repos)}

    return server


def run(db_path: Path, *, http: bool = False, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until stopped: on stdio, or on streamable HTTP at http://HOST:PORT/mcp.
    The database is opened first, so a missing one fails before anything is served."""
    # Before the SDK configures logging: its handlers then stay these, on stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="errdex mcp: %(levelname)s %(name)s: %(message)s")
    explainer = Explainer(db_path, mode=MatcherMode.PER_TEXT, max_text_chars=MAX_TEXT_CHARS)
    try:
        listener = _listen(host, port) if http else None
        server = build_server(explainer)
        if listener is not None:
            import anyio

            anyio.run(_serve_http, server, host, listener)
        else:
            server.run("stdio")
    finally:
        explainer.close()


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before serving: an address in use is then one line
    and exit 2, not uvicorn's log and exit 3 after a line claiming to serve."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except (OSError, OverflowError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"cannot listen on {host}:{port}: {reason}") from None


async def _serve_http(server: MCPServer[Any], host: str, listener: socket.socket) -> None:
    import uvicorn

    # The SDK's app (host given: DNS-rebinding protection on for a loopback address),
    # served by a uvicorn whose logging stays on stderr: no access log on stdout.
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning")
    port = listener.getsockname()[1]
    print(f"errdex mcp: serving on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])
