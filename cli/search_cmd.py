"""`embedstore search QUERY`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from embedstore.cli.common import (
    NameOption,
    StoreOption,
    cli_errors,
    err,
    open_collection,
    out,
    print_json,
)
from embedstore.cli.formats import print_jsonl, print_vimgrep, result_json
from embedstore.cli.search_args import (
    ExcludeOption,
    IncludeOption,
    JsonAliasOption,
    LanguageOption,
    MinScoreOption,
    ModeOption,
    NprobeOption,
    SearchFormat,
    make_filters,
    output_format,
)

if TYPE_CHECKING:
    from embedstore.search import SearchResult


@cli_errors
def search(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="What you are looking for, in words or code.")
    ],
    name: NameOption = None,
    k: Annotated[
        int, typer.Option("-k", "--top", metavar="K", help="Number of results (1-1000).")
    ] = 10,
    mode: ModeOption = "hybrid",
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    language: LanguageOption = None,
    min_score: MinScoreOption = None,
    nprobe: NprobeOption = None,
    store: StoreOption = None,
    fmt: Annotated[
        SearchFormat,
        typer.Option(
            "--format", "-f",
            help="text: each hit's location, score and code; json: one document; jsonl: one "
            "hit per line; vimgrep: path:line:1:text per hit, for an editor's quickfix list "
            "(paths from the current folder).",
        ),
    ] = "text",
    as_json: JsonAliasOption = False,
) -> None:
    """Search a collection; prints each definition's path:start-end, score and head.

    The score is what ranked a hit, by --mode. dense: the cosine similarity of
    the query's and the definition's embeddings (-1..1). lexical: its BM25
    (above 0, comparable only within one query). hybrid: 0.8 x cosine + 0.2 x
    BM25 / the query's best BM25 (-0.8..1), where a side that did not return a
    hit counts it at that side's lowest returned score, or at 0 when the side
    returned fewer than the max(k, 100) candidates it was asked for.
    """
    output = output_format(fmt, as_json)
    collection = open_collection(store, name)
    results: list[SearchResult] = []
    if collection.stats().chunks == 0:
        # Said before the model loads. A program still gets a well-formed (empty)
        # answer on stdout, the reason on stderr.
        note = (f"Collection {collection.name!r} has 0 chunks: nothing to search. Index a "
                f"folder into it: embedstore index PATH --name {collection.name}")
        if output == "text":
            out.print(note, markup=False)
            return
        err.print(note, markup=False)
    else:
        filters = make_filters(collection, mode, include, exclude, language, min_score)
        results = collection.search(query, k, mode=mode, filters=filters, nprobe=nprobe)
    if output == "json":
        print_json({
            "query": query, "collection": collection.name, "mode": mode,
            "source_root": collection.manifest.source_root,
            "results": [result_json(r) for r in results],
        })
    elif output == "jsonl":
        print_jsonl(results)
    elif output == "vimgrep":
        print_vimgrep(results, collection.manifest.source_root)
    elif not results:
        out.print("No results.")
    else:
        for rank, r in enumerate(results, start=1):
            _print_hit(rank, r)


def _print_hit(rank: int, r: SearchResult) -> None:
    # Imported here: app.py loads this module for every command, `list` included.
    from rich.syntax import Syntax

    from embedstore.preview import matched_lines, preview

    # Escaped: paths and names may hold brackets (`pages/[id].tsx`).
    symbol = f"  [dim]{escape(r.symbol)}[/dim]" if r.symbol else ""
    out.print(
        f"[bold]{rank}. {escape(r.location)}[/bold]  score {r.score:.3f} ({r.found_by}){symbol}"
    )
    shown = preview(r)
    marked = set(matched_lines(r))
    for i, (first, last) in enumerate(shown.spans):
        if i:
            out.print("[dim]…[/dim]")
        # The whole definition is highlighted and a range of it shown, so a span
        # that starts inside a string or block is still coloured right.
        out.print(Syntax(
            r.text, r.language, line_numbers=True, start_line=r.start_line,
            line_range=(first - r.start_line + 1, last - r.start_line + 1),
            highlight_lines=marked,
        ))
    if shown.hidden:
        out.print(f"[dim]… {shown.hidden} more lines[/dim]")
