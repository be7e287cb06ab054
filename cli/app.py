"""The `embedstore` command: a thin shell over the library."""

from __future__ import annotations

import typer

from embedstore.cli import (
    collections_cmd,
    context_cmd,
    eval_cmd,
    index_cmd,
    mcp_cmd,
    plot_cmd,
    plt_cmd,
    search_cmd,
    serve_cmd,
    tune_cmd,
    watch_cmd,
)
from embedstore.cli.usage import OneLineUsageErrors

app = typer.Typer(
    cls=OneLineUsageErrors,
    name="embedstore",
    help="Semantic code and document search: index a folder, then search it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: Rich markup would eat the "[default: ...]" in option help, and
    # its boxes are padded to 80 columns in a pipe.
    rich_markup_mode=None,
)
app.command("index")(index_cmd.index)
app.command("search")(search_cmd.search)
app.command("context")(context_cmd.context)
app.command("list")(collections_cmd.list_collections)
app.command("info")(collections_cmd.info)
app.command("rm")(collections_cmd.rm)
app.command("eval")(eval_cmd.evaluate)
app.command("serve")(serve_cmd.serve)
app.command("plot")(plot_cmd.plot)
app.command("tune")(tune_cmd.tune)
app.command("watch")(watch_cmd.watch)
app.command("mcp")(mcp_cmd.mcp)
app.add_typer(plt_cmd.plt_app, name="plt")


def main() -> None:
    app()
