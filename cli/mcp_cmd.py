"""`embedstore mcp`: the store as an MCP server on stdin/stdout, for coding agents."""

from __future__ import annotations

from embedstore.cli.common import StoreOption, cli_errors, open_store


@cli_errors
def mcp(store: StoreOption = None) -> None:
    """Serve the store's collections to a coding agent over MCP (stdio).

    Started by the agent from its MCP configuration (command: the `embedstore`
    of the virtual environment, args `["mcp", "--store", DIR]`); tools: search,
    context, context_for_code, list_collections. The query encoder and indexes
    load in the background from the start, so the first call does not wait for
    them. stdout carries the protocol: nothing else is printed there.
    """
    # Imported here: the SDK is not needed by any other command.
    from embedstore.api.collection_cache import CollectionCache
    from embedstore.api.mcp_server import build_mcp_server
    from embedstore.api.warmup import WAIT_SECONDS, Warmup

    opened = open_store(store)
    collections = CollectionCache(opened)
    warmup = Warmup(opened, collections)
    warmup.start()
    build_mcp_server(opened, collections, warmup=warmup).run("stdio")
    # An agent that closes stdin while the model still loads: the interpreter must not end
    # under the loading thread, or the native runtime aborts (SIGABRT, "terminate called
    # without an active exception").
    warmup.done.wait(WAIT_SECONDS)
