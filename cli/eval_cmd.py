"""`embedstore eval PATH`: how good is retrieval on this repository?"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from embedstore.cli.common import (
    JsonOption,
    StoreOption,
    cli_errors,
    err,
    open_store,
    out,
    print_json,
)
from embedstore.cli.progress import RichProgress
from embedstore.evaluation.runner import DEFAULT_INDEX_KINDS, EvalReport, run_eval
from embedstore.search import SEARCH_MODES


@cli_errors
def evaluate(
    path: Annotated[Path, typer.Argument(help="Repository to benchmark (its Python functions).")],
    encoder: Annotated[
        str | None, typer.Option(help="Encoder to evaluate [default: all-MiniLM-L6-v2].")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for query sampling and IVF-PQ training.")] = 0,
    max_queries: Annotated[
        int, typer.Option(min=1, help="Queries sampled from the mined pairs.")
    ] = 1000,
    mode: Annotated[
        list[str] | None, typer.Option(help="Modes to score (repeatable) [default: all three].")
    ] = None,
    index_kind: Annotated[
        list[str] | None,
        typer.Option("--index", help="Index kinds to score (repeatable) [default: flat, ivfpq]."),
    ] = None,
    reuse: Annotated[
        str | None,
        typer.Option(help="Collection of this repo (same encoder) whose vectors to reuse."),
    ] = None,
    store: StoreOption = None,
    header_ablation: Annotated[
        bool,
        typer.Option(help="Also encode without the path/context header and compare (2x time)."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Benchmark retrieval: docstring first sentences as queries, their functions as answers."""
    source = open_store(store).open(reuse) if reuse else None
    with RichProgress(err, enabled=not as_json) as progress:
        report = run_eval(
            path, encoder=encoder, seed=seed, max_queries=max_queries,
            modes=tuple(mode or SEARCH_MODES), index_kinds=tuple(index_kind or DEFAULT_INDEX_KINDS),
            header_variants=(True, False) if header_ablation else (True,), progress=progress,
            reuse=source,
        )
    if as_json:
        print_json(asdict(report))
    else:
        print_table(report)


def print_table(report: EvalReport) -> None:
    table = Table(
        "mode", "index", "header", *report.rows[0].metrics, "ms/query",
        title=f"{report.repo}: {report.queries:,} queries over {report.chunks:,} chunks "
        f"({report.encoder}, seed {report.seed})",
    )
    for row in report.rows:
        table.add_row(
            row.mode, row.index_kind, "yes" if row.header else "no",
            *(f"{v:.1f}" for v in row.metrics.values()), f"{row.ms_per_query:.1f}",
        )
    out.print(table)
