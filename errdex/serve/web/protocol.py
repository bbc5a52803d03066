"""uvicorn's h11 protocol with deadlines for slow clients.

uvicorn closes an idle keep-alive connection (`timeout_keep_alive`), but a connection
that has sent nothing, or half a request's headers, or half its body, is kept forever:
a few hundred such clients hold their sockets until the process runs out of file
descriptors and real clients are locked out. This subclass gives each phase of a request
one deadline, set when the phase starts and not extended by trickled bytes: the headers
must be complete within `header_timeout` seconds of the connection (or of the request's
first byte after a keep-alive pause), the body within `body_timeout` seconds of the
headers. A client past its headers deadline gets a 408 and the connection is closed; one
past its body deadline is disconnected (the app sees `http.disconnect`).

It reads h11's own connection state after uvicorn has handled each event, rather than
copying uvicorn's event loop, so it follows uvicorn's behaviour everywhere else.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from errdex import settings

HEADER_TIMEOUT_SECONDS = settings.default_int("header_timeout")
BODY_TIMEOUT_SECONDS = settings.default_int("body_timeout")
KEEP_ALIVE_SECONDS = settings.default_int("keep_alive_timeout")


def _timeout_response() -> bytes:
    body = json.dumps({"error": {"status": 408, "message":
                                 "the request's headers took too long to arrive"}}).encode()
    head = ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode()
    return head + body


TIMEOUT_RESPONSE = _timeout_response()


class DeadlineH11Protocol(H11Protocol):
    """H11Protocol plus a deadline per request phase (headers, then body)."""

    header_timeout: float = HEADER_TIMEOUT_SECONDS
    body_timeout: float = BODY_TIMEOUT_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm(None)
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the deadline of the phase the client is in, or none."""
        if self.transport.is_closing():
            self._arm(None)
            return
        state = self.conn.their_state
        if state is h11.IDLE and self.timeout_keep_alive_task is None:
            self._arm("headers")  # a new connection, or bytes of a next request
        elif state is h11.SEND_BODY:
            self._arm("body")
        else:
            self._arm(None)  # request read (the app's turn), or idle under keep-alive

    def _arm(self, phase: str | None) -> None:
        if phase == self._phase:
            return  # the phase's deadline runs from its start: trickling does not extend it
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = phase
        if phase is not None:
            seconds = self.header_timeout if phase == "headers" else self.body_timeout
            self._deadline = self.loop.call_later(seconds, self._expire, phase)

    def _expire(self, phase: str) -> None:
        self._deadline = None
        if self._phase != phase or self.transport.is_closing():
            return
        self._phase = None
        self.logger.info("closing a connection whose request %s did not arrive in time",
                         phase)
        if phase == "headers":
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def deadline_protocol(header_timeout: float, body_timeout: float
                      ) -> type[DeadlineH11Protocol]:
    """The protocol class for uvicorn's `http=`, with these deadlines (uvicorn builds
    one per connection from its config, which has no field for them)."""
    return type("DeadlineH11Protocol", (DeadlineH11Protocol,),
                {"header_timeout": header_timeout, "body_timeout": body_timeout})
