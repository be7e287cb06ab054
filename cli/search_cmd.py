"""`embedstore search QUERY`."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.syntax import Syntax

from embedstore.cli.common import JsonOption, StoreOption, cli_errors, open_store, out, print_json
from embedstore.errors import UserInputError
from embedstore.search import SearchResult

PREVIEW_LINES = 12


@cli_errors
def search(
    query: Annotated[str, typer.Argument(help="What you are looking for, in words or code.")],
    name: Annotated[
        str | None,
        typer.Option("--name", "-n", help="Collection [default: the only one in the store]."),
    ] = None,
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=1000, help="Number of results.")] = 10,
    nprobe: Annotated[
        int | None, typer.Option(min=1, help="IVF lists to visit (IVF-PQ indexes only).")
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search a collection; prints path:start-end, score and the code."""
    if not query.strip():
        raise UserInputError("the query is empty: say what you are looking for")
    the_store = open_store(store)
    collection = the_store.open(name or _only_collection(the_store.names()))
    results = collection.search(query, k, nprobe=nprobe)
    if as_json:
        print_json({
            "query": query,
            "collection": collection.name,
            "results": [_result_json(r) for r in results],
        })
        return
    if not results:
        out.print("No results.")
    for rank, r in enumerate(results, start=1):
        symbol = f"  [dim]{r.symbol}[/dim]" if r.symbol else ""
        out.print(f"[bold]{rank}. {r.location}[/bold]  score {r.score:.3f}{symbol}")
        preview = "\n".join(r.text.splitlines()[:PREVIEW_LINES])
        out.print(Syntax(preview, _lexer(r.language), line_numbers=True, start_line=r.start_line))


def _only_collection(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    if not names:
        raise UserInputError("the store has no collection yet: run `embedstore index PATH` first")
    raise UserInputError(f"several collections exist ({', '.join(names)}): choose one with --name")


def _result_json(r: SearchResult) -> dict[str, object]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
        "language": r.language, "score": round(r.score, 6), "text": r.text, "symbol": r.symbol,
    }


def _lexer(language: str) -> str:
    return {"cpp": "cpp", "tsx": "tsx", "text": "text"}.get(language, language)
