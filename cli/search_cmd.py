"""`embedstore search QUERY`."""

from __future__ import annotations

from typing import Annotated

import typer
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
from embedstore.fusion import RRF_K
from embedstore.search import SearchResult

PREVIEW_LINES = 12


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
    rrf_k: Annotated[int, typer.Option(min=0, help="RRF constant of hybrid fusion.")] = RRF_K,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search a collection; prints path:start-end, score and the code."""
    collection = open_collection(store, name)
    filters = make_filters(include, exclude, language, min_score)
    results = collection.search(query, k, mode=mode, filters=filters, nprobe=nprobe, rrf_k=rrf_k)
    if as_json:
        print_json({
            "query": query,
            "collection": collection.name,
            "mode": mode,
            "results": [_result_json(r) for r in results],
        })
        return
    if not results:
        out.print("No results.")
    for rank, r in enumerate(results, start=1):
        symbol = f"  [dim]{r.symbol}[/dim]" if r.symbol else ""
        out.print(
            f"[bold]{rank}. {r.location}[/bold]  score {r.score:.3f} ({r.found_by}){symbol}"
        )
        preview = "\n".join(r.text.splitlines()[:PREVIEW_LINES])
        out.print(Syntax(preview, r.language, line_numbers=True, start_line=r.start_line))


def _result_json(r: SearchResult) -> dict[str, object]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
        "language": r.language, "score": round(r.score, 6), "text": r.text, "symbol": r.symbol,
        "found_by": r.found_by, "dense_score": r.dense_score, "lexical_score": r.lexical_score,
    }
