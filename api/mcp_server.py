"""embedstore as an MCP server for coding agents: search, context, code at a cursor, status.

``build_mcp_server`` makes the server (the official SDK's ``MCPServer``) over a
store; ``embedstore mcp`` speaks it over stdio, and ``embedstore serve`` at
``/mcp`` over streamable HTTP through ``mcp_http.McpHttpEndpoint``, behind the
same API keys as the REST routes. The tools are in ``mcp_tools``, their replies
in ``mcp_replies``. Nothing here imports the REST schemas, nor so torch: a stdio
server whose store has the ONNX export starts without it.

Every tool only reads the store, and says so in its annotations. The library's
errors, refused arguments and unknown arguments come back as tool errors of one
line, never as a crash of the server.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import ValidationError

from embedstore.api.collection_cache import CollectionCache
from embedstore.api.errors import describe_invalid
from embedstore.api.mcp_stdio import answered_before_end
from embedstore.api.mcp_tools import Tools
from embedstore.api.settings import MAX_QUERY_CHARS
from embedstore.api.warmup import Warmup
from embedstore.errors import EmbedstoreError
from embedstore.store.store import Store

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = """\
embedstore is a semantic index of code repositories. Each collection is one indexed folder,
searched by meaning and by identifiers; every hit is a definition (function, method, class,
or a section of a document) at abs_path:start-end.
- search: locate code; each hit's signature and matched lines, within max_tokens.
- context: a prompt-ready set of the most relevant definitions within a token budget.
- context_for_code: what the code at a cursor (a file and line) needs from other files.
- list_collections: which repositories are indexed, and whether files changed since.
Paths are absolute; line numbers are 1-based and inclusive."""

# Every tool reads the store and changes nothing: calling one again gives the same answer
# while the store is unchanged, and it reaches nothing outside the store.
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def build_mcp_server(
    store: Store, collections: CollectionCache | None = None, *,
    max_query_chars: int = MAX_QUERY_CHARS, warmup: Warmup | None = None,
) -> MCPServer:
    """The MCP server over ``store``; ``collections`` shares open collections with the REST API,
    whose query limit ``max_query_chars`` the tools apply too. A call waits for ``warmup``'s
    encoders, when given, rather than loading them a second time."""
    tools = Tools(store, collections or CollectionCache(store), max_query_chars, warmup)
    # WARNING: the SDK configures the root logger at this level when nothing else has.
    server = _CheckedArguments("embedstore", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in (tools.search, tools.context, tools.context_for_code, tools.list_collections):
        server.add_tool(
            _tool_errors(tool), description=inspect.cleandoc(tool.__doc__ or ""),
            annotations=READ_ONLY, structured_output=True,
        )
        # The schema says what call_tool enforces: no argument but those listed.
        server.tool_schema(tool.__name__)["additionalProperties"] = False
    return server


class _CheckedArguments(MCPServer):
    """Arguments refused by their schema answer one line naming each field, as the REST API
    does (the SDK gives pydantic's multi-line report with a link per error), and an argument
    the tool does not take is refused (the SDK drops it: a misspelt ``colection`` would
    quietly search every collection)."""

    async def run_stdio_async(self) -> None:
        # As the SDK's, but stdin's end waits for the answers to what it carried (mcp_stdio).
        async with stdio_server() as (read_stream, write_stream):
            reading, writing = answered_before_end(read_stream, write_stream)
            await self._lowlevel_server.run(
                reading, writing, self._lowlevel_server.create_initialization_options()
            )

    def tool_schema(self, name: str) -> dict[str, Any]:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            raise KeyError(name)
        return tool.parameters

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._tool_manager.get_tool(name) is not None:
            _refuse_unknown(name, arguments, list(self.tool_schema(name)["properties"]))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            message, _ = describe_invalid(exc.__cause__.errors())
            raise ToolError(f"invalid arguments for {name}: {message}") from exc.__cause__


def _refuse_unknown(tool: str, arguments: dict[str, Any], known: list[str]) -> None:
    unknown = [name for name in arguments if name not in known]
    if not unknown:
        return
    guesses = [f" (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(
        name, known, n=1)) else "" for name in unknown]
    named = ", ".join(f"{name!r}{guess}" for name, guess in zip(unknown, guesses, strict=True))
    raise ToolError(f"{tool} takes no argument {named}; it takes {', '.join(known)}")


def _tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """The library's errors as tool errors: the model reads the message and can correct itself."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (EmbedstoreError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    return wrapper
