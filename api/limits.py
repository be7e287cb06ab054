"""A cap on request body size, enforced while the body streams in."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from embedstore.api.errors import error_response


class BodySizeLimit:
    """Answers 413 as soon as a body exceeds ``max_bytes``, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> str:
        return f"request body is over the limit of {self.max_bytes:,} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await error_response(413, "too_large", self._message())(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                # An HTTPException, so FastAPI's body reader passes it on as it is.
                raise HTTPException(413, self._message())
            return message

        await self.app(scope, limited, send)
