"""MCP over streamable HTTP at /mcp of `embedstore serve`, behind the REST API's key rule."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from embedstore.api.deps import get_state, require_api_key


class McpHttpEndpoint:
    """The streamable-HTTP transport as an ASGI route, behind the REST API's key rule.

    Mounted as a route, the transport skips FastAPI's dependencies, so it checks
    the key itself (a 401 in the API's error shape). ``running`` belongs in the
    app's lifespan: the SDK's session manager runs once per instance, so each
    lifespan gets a fresh one.
    """

    def __init__(self, server: MCPServer, host: str) -> None:
        self._server = server
        self._host = host  # loopback hosts get the SDK's DNS-rebinding protection
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._server.streamable_http_app(streamable_http_path="/mcp", host=self._host)
        manager = self._server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        require_api_key(request, get_state(request))
        if self._manager is None:
            raise HTTPException(503, "the MCP endpoint is not running: the server is stopping")
        await self._manager.handle_request(scope, receive, send)
