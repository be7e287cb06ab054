"""`embedstore context QUERY --max-tokens N`: a prompt-ready RAG context."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from embedstore.cli.common import NameOption, StoreOption, cli_errors, open_collection, print_json
from embedstore.cli.search_args import (
    ContextFormat,
    ExcludeOption,
    IncludeOption,
    JsonAliasOption,
    LanguageOption,
    ModeOption,
    make_filters,
    output_format,
)


@cli_errors
def context(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="The question or task the context is for.")
    ],
    max_tokens: Annotated[
        int,
        typer.Option("--max-tokens", min=1, metavar="N", help="Token budget (encoder tokenizer)."),
    ] = 2000,
    name: NameOption = None,
    mode: ModeOption = "hybrid",
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    language: LanguageOption = None,
    store: StoreOption = None,
    fmt: Annotated[
        ContextFormat,
        typer.Option(
            "--format", "-f",
            help="text: the context itself, ready for a prompt; json: it with each block's "
            "path and line ranges.",
        ),
    ] = "text",
    as_json: JsonAliasOption = False,
) -> None:
    """Print the best definitions packed into a token budget, each under a path:lines header."""
    output = output_format(fmt, as_json)
    collection = open_collection(store, name)
    filters = make_filters(collection, mode, include, exclude, language, None)
    packed = collection.context(query, max_tokens, mode=mode, filters=filters)
    if output == "json":
        print_json({
            "query": query, "collection": collection.name, "tokens": packed.tokens,
            "max_tokens": packed.max_tokens, "text": packed.text,
            "blocks": [
                {"path": b.path, "start_line": b.start_line, "end_line": b.end_line,
                 "ranges": b.ranges}
                for b in packed.blocks
            ],
        })
        return
    sys.stdout.write(packed.text + "\n")
