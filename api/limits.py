"""Limits on what one request may ask: a body's size, enforced while it streams in, and a
query's length."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from embedstore.api.errors import error_response

# After an oversized body the server reads (and drops) up to this many more
# bytes before it answers: a client still sending would otherwise see its
# connection reset instead of the 413. Past it, the connection is closed.
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024


class BodySizeLimit:
    """Answers 413 to a body over ``max_bytes``, declared (Content-Length) or streamed (chunked).

    The body is read here, up to the limit, and handed on whole: FastAPI
    reads all of a JSON body before parsing it anyway.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            # A client that waits for "100 Continue" has sent nothing yet: answer at once.
            waiting = headers.get(b"expect", b"").lower() == b"100-continue"
            await self._refuse(receive, scope, send, more=not waiting)
            return
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await self._refuse(receive, scope, send, more)
                return
        await self.app(scope, _replay(bytes(body), receive), send)

    async def _refuse(self, receive: Receive, scope: Scope, send: Send, more: bool = True) -> None:
        drained = 0
        while more and drained < DRAIN_LIMIT_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            drained += len(message.get("body", b""))
            more = message.get("more_body", False)
        reason = f"request body is over the limit of {self.max_bytes:,} bytes"
        await error_response(413, "too_large", reason)(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body in one message, then whatever the server says next (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def check_query_length(query: str, max_chars: int) -> None:
    """The REST API's and the MCP tools' one limit on a query (ValueError: a 422, a tool error)."""
    if len(query) > max_chars:
        raise ValueError(f"a query has {len(query):,} characters; the limit is {max_chars:,}")
