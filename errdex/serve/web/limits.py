"""Request limits and security headers, as one plain ASGI middleware.

A body past the limit is refused with 413 before any route reads it (by Content-Length
when given, else by counting the chunks as they arrive), an address past the limit with
414, and every response carries the security headers (a strict Content-Security-Policy
among them). Plain ASGI rather than Starlette's BaseHTTPMiddleware: no extra task per
request, and the body can be counted while it streams.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

MAX_BODY_BYTES = 1_000_000
MAX_QUERY_CHARS = 200_000  # pasted text, in a query string or a JSON body
MAX_URL_BYTES = 16_000

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RequestLimits:
    def __init__(self, app: ASGIApp, max_body: int, headers: dict[str, str]) -> None:
        self.app = app
        self.max_body = max_body
        self.headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > \
                MAX_URL_BYTES:
            await self._refuse(scope, send_with_headers, 414,
                               f"the address is too long: at most {MAX_URL_BYTES:,} bytes")
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._refuse(scope, send_with_headers, 413, self._too_large())
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            try:
                body = await self._read(receive)
            except _Disconnected:
                return  # the client left (or the server's body deadline cut it): no one to answer
            if body is None:
                await self._refuse(scope, send_with_headers, 413, self._too_large())
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send_with_headers)

    def _too_large(self) -> str:
        return f"the request body is too large: at most {self.max_body:,} bytes"

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body, or None once it passes the limit."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
        # Always JSON: HTML forms post well under the limit, and this runs before routing.
        body = json.dumps({"error": {"status": status, "message": message}}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]})
        await send({"type": "http.response.body", "body": body})


class _Disconnected(Exception):
    """The client went away before its body was complete."""


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
