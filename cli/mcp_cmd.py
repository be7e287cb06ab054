"""`embedstore mcp`: the store as an MCP server on stdin/stdout, for coding agents."""

from __future__ import annotations

from embedstore.cli.common import StoreOption, cli_errors, open_store


@cli_errors
def mcp(store: StoreOption = None) -> None:
    """Serve the store's collections to a coding agent over MCP (stdio).

    Started by the agent from its MCP configuration (command `embedstore`,
    args `["mcp", "--store", DIR]`); tools: search, context, list_collections,
    index_status. stdout carries the protocol: nothing else is printed there.
    """
    # Imported here: the SDK is not needed by any other command.
    from embedstore.api.mcp_server import build_mcp_server

    build_mcp_server(open_store(store)).run("stdio")
