"""`errdex mcp`: the error index as tools for coding agents, over the Model Context Protocol.

A thin layer on the official SDK (`mcp.server.mcpserver.MCPServer`) over
`errdex.service.Explainer`: each tool validates its arguments, makes one call and returns
the JSON contract the CLI prints, with the contract's generated JSON Schema as each
tool's output schema (`OUTPUTS`; the official client checks every result against it).

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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from errdex.contract import ExplainResult, schema_for
from errdex.errors import ErrdexError, UsageError
from errdex.models import Listing, Record, Repository
from errdex.service import Explainer, MatcherMode, SiteHit

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

T = TypeVar("T")


# -- the contracts, as output schemas ------------------------------------------------------
# Each tool's output schema is the contract's own (`errdex.contract.schema_for`), generated
# from the dataclasses the service's answers are converted from; the tools that wrap a
# list in an object say so with these envelopes.


@dataclass(frozen=True)
class SearchResult:
    """The records whose message has every word of the query, best first."""

    query: str
    results: tuple[Listing, ...]


@dataclass(frozen=True)
class ErrorsAtResult:
    """What a file (or one line of it) can raise."""

    path: str
    line: int | None
    errors: tuple[SiteHit, ...]


@dataclass(frozen=True)
class RepositoriesResult:
    """The indexed repositories."""

    repositories: tuple[Repository, ...]


OUTPUTS: dict[str, type] = {
    "explain_error": ExplainResult, "get_error": Record, "search_errors": SearchResult,
    "errors_at": ErrorsAtResult, "list_repositories": RepositoriesResult,
}


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
    ) -> dict[str, Any]:
        return _answer(lambda: explainer.explain(text, limit))

    @server.tool(annotations=read_only, description=(
        "Get one indexed error by its id (the `id` from explain_error, search_errors or "
        "errors_at): its message template, every site that raises it (path, line, url, "
        "function, guard, snippet), its explanation and the facts read from the code "
        "(conditions, tests, history)."))
    async def get_error(
        id: Annotated[str, Field(description="the record id, e.g. 11d0cf672f02894e")],
    ) -> dict[str, Any]:
        return _answer(lambda: explainer.show(id))

    @server.tool(annotations=read_only, description=(
        "Search the indexed error messages for words (every word must appear), best first. "
        "Use it when you know part of a message but not its exact text; for a message "
        "with real values in it, explain_error is better. Returns id, repo, exception, "
        "message template and the first site's path and line of each; get_error has "
        "the rest."))
    async def search_errors(
        query: Annotated[str, Field(description="words of the message, e.g. 'invalid shape'")],
        limit: Annotated[int, Field(ge=1, le=100, description="most results")] = 20,
    ) -> dict[str, Any]:
        rows = _answer(lambda: explainer.search(query, limit))
        return {"query": query, "results": rows}

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
    ) -> dict[str, Any]:
        hits = _answer(lambda: explainer.at(path, line))
        return {"path": path, "line": line, "errors": hits}

    @server.tool(annotations=read_only, description=(
        "The repositories in the index: name (owner/name), the commit and version indexed, "
        "when, and how many errors each has. Answers come only from these."))
    async def list_repositories() -> dict[str, Any]:
        return {"repositories": _answer(explainer.repositories)}

    _publish_outputs(server)
    return server


def _publish_outputs(server: MCPServer[Any]) -> None:
    """Give each tool the contract's schema of what it returns. The SDK then advertises
    it (and, with a plain `dict` as the return type, passes the result through as its
    structured content); the client validates every result against it."""
    for name, output in OUTPUTS.items():
        tool = server._tool_manager.get_tool(name)
        assert tool is not None, name
        tool.fn_metadata.output_schema = schema_for(output)


def run(db_path: str | Path, *, http: bool = False, host: str = "127.0.0.1",
        port: int = 8000) -> None:
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
