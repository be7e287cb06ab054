"""`embedstore watch PATH`: index a folder, then keep its collection in step as files change."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from embedstore.cli.common import (
    IncludeVendoredOption,
    StoreOption,
    cli_errors,
    err,
    open_store,
    out,
)
from embedstore.cli.nonempty import nonempty_path, refuse_empty
from embedstore.cli.pipe_safe import PipeSafeProgress

if TYPE_CHECKING:
    from embedstore.errors import EmbedstoreError
    from embedstore.ingest.indexer import IndexReport


@cli_errors
def watch(
    path: Annotated[Path, typer.Argument(
        metavar="PATH", parser=nonempty_path, help="Folder to index and watch.", show_default=False,
    )],
    name: Annotated[str | None, typer.Option(
        "--name", "-n", callback=refuse_empty, help="Collection name [default: folder name].",
    )] = None,
    include_vendored: IncludeVendoredOption = None,
    store: StoreOption = None,
) -> None:
    """Index a folder, then re-index what changes as you edit, until Ctrl-C.

    Only edited definitions are encoded again; each update that changed files prints
    one line, a run that found nothing changed prints nothing.
    """
    # Imported here: `embedstore --help` and `list` must not pay for them (issue 9).
    import asyncio
    import signal

    # Started in the background by a script, a process inherits SIGINT ignored, and Python
    # then leaves it so: watch runs until interrupted, so it must hear SIGINT regardless.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    from embedstore.cli.progress import RichProgress
    from embedstore.ingest.indexer import IndexOptions, index_folder
    from embedstore.ingest.watch import watch_folder

    the_store = open_store(store)
    options = IndexOptions(name=name, include_vendored=include_vendored)
    # A first run in the foreground: a wrong path or encoder fails here, with progress shown.
    with RichProgress(err) as progress:
        first = index_folder(the_store, path, options, PipeSafeProgress(progress, err.file))
    _print(first)
    err.print(f"Watching {escape(str(path))} for changes (Ctrl-C to stop).")
    options = IndexOptions(name=first.collection)
    try:
        asyncio.run(watch_folder(the_store, path, options, on_report=_print, on_error=_warn))
    except KeyboardInterrupt:
        err.print("Stopped.")


def _print(report: IndexReport) -> None:
    from embedstore.ingest.watch import describe

    if report.nothing_changed:
        return  # a touch, a save without an edit: nothing to tell, as `tail -f` is quiet
    out.print(f"{time.strftime('%H:%M:%S')} {escape(describe(report))}")


def _warn(exc: EmbedstoreError) -> None:
    err.print(f"[red]error:[/red] {escape(str(exc))} (still watching)", soft_wrap=True)
