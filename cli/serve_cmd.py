"""`embedstore serve`: the REST API and search page under uvicorn."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from embedstore.cli.common import StoreOption, cli_errors, err
from embedstore.errors import UserInputError


@cli_errors
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind; beyond loopback needs a key.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    api_key: Annotated[
        list[str] | None,
        # No envvar here: ServerSettings reads EMBEDSTORE_API_KEYS itself, split at
        # commas, where Click would take "k1,k2" for one key.
        typer.Option("--api-key", metavar="KEY", help="Bearer key (repeatable) [default: "
                     "$EMBEDSTORE_API_KEYS, comma-separated]."),
    ] = None,
    allow_root: Annotated[
        list[Path] | None,
        typer.Option(metavar="DIR", help="Folder the index endpoint may read (repeatable)."),
    ] = None,
    no_batching: Annotated[
        bool, typer.Option("--no-batching", help="Encode each request alone (for comparison).")
    ] = False,
    watch: Annotated[
        list[Path] | None,
        typer.Option(metavar="DIR",
                     help="Folder to index now and re-index as it changes (repeatable)."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Serve the REST API (OpenAPI at /docs) and the search page at /."""
    import uvicorn

    from embedstore.api.app import create_app
    from embedstore.api.settings import ServerSettings

    overrides: dict[str, object] = {"host": host, "port": port}
    if api_key:
        overrides["api_keys"] = api_key
    if allow_root:
        overrides["allowed_roots"] = allow_root
    if watch:
        overrides["watch"] = watch
    if store is not None:
        overrides["store"] = store
    settings = ServerSettings.model_validate(overrides)
    app = create_app(settings, batching=not no_batching)
    listening = _listen(host, port)
    err.print(f"embedstore serving {settings.store} on http://{host}:{port} (docs at /docs, "
              "MCP at /mcp)")
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    server.run(sockets=[listening])


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port before anything is printed: a port in use is then one
    line and exit 1, where uvicorn would say "serving" first, log its error, and exit 3."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        listening = socket.socket(family, kind, proto)
    except OSError as exc:  # an unknown host name
        raise UserInputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        listening.bind(address)
    except OSError as exc:
        listening.close()
        raise UserInputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return listening
