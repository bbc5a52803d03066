"""HEAD and OPTIONS for every route, and a true `Allow` header, as one ASGI middleware.

FastAPI's routes answer only the methods they declare, so `HEAD /` was a 405 (HTTP says
HEAD is GET without the body), and Starlette's 405 names the methods of the first route
whose path matched, so `OPTIONS /search` left out POST. Here a HEAD is served as the GET
with its body dropped (the headers, Content-Length among them, are the GET's), OPTIONS is
answered with the methods of every route at the path, and every 405's `Allow` lists them.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount, Route

from errdex.serve.web.limits import ASGIApp, Message, Receive, Scope, Send

READ_ONLY = frozenset({"GET", "HEAD"})  # what a mount (the static files) answers


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> list[str]:
    """The methods some route answers at the scope's path, HEAD and OPTIONS included;
    empty when no route has the path."""
    found: set[str] = set()
    probe = {**scope, "method": "OPTIONS"}
    for route in routes:
        match, _ = route.matches(probe)
        if match is Match.NONE:
            continue
        if isinstance(route, Route) and route.methods:
            found |= route.methods
        elif isinstance(route, Mount):
            found |= READ_ONLY
    if not found:
        return []
    if "GET" in found:
        found.add("HEAD")
    return sorted(found | {"OPTIONS"})


class Methods:
    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method")
        if method == "OPTIONS":
            allowed = allowed_methods(self.routes, scope)
            if allowed:
                await send({"type": "http.response.start", "status": 204,
                            "headers": [(b"allow", ", ".join(allowed).encode())]})
                await send({"type": "http.response.body", "body": b""})
                return
        head = method == "HEAD"
        if head:
            # A copy: the server keeps its own scope and must still know this was a HEAD.
            scope = {**scope, "method": "GET"}

        async def send_fixed(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 405:
                allow = ", ".join(allowed_methods(self.routes, scope)).encode()
                message["headers"] = [
                    *((k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"),
                    (b"allow", allow)]
            elif message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await send(message)

        await self.app(scope, receive, send_fixed)
