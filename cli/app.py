"""The `embedstore` command: a thin shell over the library."""

from __future__ import annotations

from typing import Annotated

import typer

from embedstore import __version__
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
from embedstore.cli.console import ColorMode, use_color
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
    # -h as well: what rg, grep and most tools take.
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        print(f"embedstore {__version__}")
        raise typer.Exit


@app.callback()
def _global_options(
    color: Annotated[ColorMode, typer.Option(
        "--color", metavar="WHEN",
        help="Colour: auto (on a terminal, unless NO_COLOR is set), always (pipes too, for "
             "less -R) or never (no escape codes at all).",
    )] = "auto",
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version, help="Print the version and exit.",
    )] = False,
) -> None:
    # Set for each run, not at import: a test runner swaps the streams in between.
    use_color(color)


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
