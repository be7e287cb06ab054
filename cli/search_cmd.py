"""`embedstore search QUERY`."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import RenderableType
from rich.syntax import Syntax

from embedstore.cli.common import (
    ExcludeOption,
    IncludeOption,
    JsonOption,
    LanguageOption,
    MinScoreOption,
    ModeOption,
    NameOption,
    NprobeOption,
    StoreOption,
    cli_errors,
    make_filters,
    open_collection,
    out,
    print_json,
)
from embedstore.preview import matched_lines, preview
from embedstore.search import SearchResult


@cli_errors
def search(
    query: Annotated[str, typer.Argument(help="What you are looking for, in words or code.")],
    name: NameOption = None,
    k: Annotated[int, typer.Option("-k", "--top", help="Number of results (1-1000).")] = 10,
    mode: ModeOption = "hybrid",
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    language: LanguageOption = None,
    min_score: MinScoreOption = None,
    nprobe: NprobeOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search a collection; prints each definition's path:start-end, score and head."""
    collection = open_collection(store, name)
    filters = make_filters(include, exclude, language, min_score)
    results = collection.search(query, k, mode=mode, filters=filters, nprobe=nprobe)
    if as_json:
        print_json({
            "query": query,
            "collection": collection.name,
            "mode": mode,
            "results": [_result_json(r) for r in results],
        })
        return
    if not results:
        _print("No results.")
    for rank, r in enumerate(results, start=1):
        _print_hit(rank, r)


def _print(renderable: RenderableType) -> None:
    # A pipe or file gets whole lines: no wrapping or padding at the 80 columns
    # Rich assumes when stdout is not a terminal.
    out.print(renderable, soft_wrap=not out.is_terminal)


def _print_hit(rank: int, r: SearchResult) -> None:
    symbol = f"  [dim]{r.symbol}[/dim]" if r.symbol else ""
    _print(f"[bold]{rank}. {r.location}[/bold]  score {r.score:.3f} ({r.found_by}){symbol}")
    shown = preview(r)
    marked = set(matched_lines(r))
    for i, (first, last) in enumerate(shown.spans):
        if i:
            _print("[dim]…[/dim]")
        # The whole definition is highlighted and a range of it shown, so a span
        # that starts inside a string or block is still coloured right.
        _print(Syntax(
            r.text, r.language, line_numbers=True, start_line=r.start_line,
            line_range=(first - r.start_line + 1, last - r.start_line + 1),
            highlight_lines=marked,
        ))
    if shown.hidden:
        _print(f"[dim]… {shown.hidden} more lines[/dim]")


def _result_json(r: SearchResult) -> dict[str, object]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
        "match_start_line": r.match_start_line, "match_end_line": r.match_end_line,
        "kind": r.kind, "symbol": r.symbol, "language": r.language,
        "score": round(r.score, 6), "text": r.text, "found_by": r.found_by,
        "dense_score": r.dense_score, "lexical_score": r.lexical_score,
    }
