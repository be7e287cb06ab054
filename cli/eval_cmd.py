"""`embedstore eval PATH [PATH ...]`: how good is retrieval on these repositories?"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from embedstore.cli.common import (
    JsonOption,
    StoreOption,
    cli_errors,
    err,
    open_store,
    out,
    print_json,
)
from embedstore.cli.help_words import DEFAULT_ENCODER
from embedstore.cli.nonempty import refuse_empty

if TYPE_CHECKING:
    from embedstore.evaluation.runner import EvalReport, EvalRow


@cli_errors
def evaluate(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Repositories to benchmark (their documented functions); with --task "
            "documents, folders of documents (HTML, PDF).",
        ),
    ],
    task: Annotated[
        Literal["search", "completion", "documents"],
        typer.Option(
            help="search: docstring sentences find their functions; completion: the code "
            "before a cursor finds the definitions of other files its next line uses; "
            "documents: headings and first sentences find their sections.",
        ),
    ] = "search",
    encoder: Annotated[
        str | None,
        typer.Option(
            callback=refuse_empty, help=f"Encoder to evaluate {DEFAULT_ENCODER}."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for query sampling and IVF-PQ training.")] = 0,
    max_queries: Annotated[
        int, typer.Option(min=1, help="Queries sampled per repository from the mined pairs.")
    ] = 1000,
    mode: Annotated[
        list[str] | None,
        typer.Option(metavar="MODE", help="Modes to score (repeatable) [default: all three]."),
    ] = None,
    index_kind: Annotated[
        list[str] | None,
        typer.Option(
            "--index", metavar="KIND",
            help="Index kinds to score (repeatable) [default: flat, ivfpq].",
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            help="A hit must be the definition itself: start at it (decorators and comments "
            "above allowed) and hold its def line, not a class or module around it (the "
            "contains rule is shown beside it). Without: any overlap.",
        ),
    ] = False,
    baseline: Annotated[
        bool, typer.Option(help="Also score one vector per whole definition (dense, exact).")
    ] = True,
    per_query: Annotated[
        Path | None, typer.Option(help="Write each query's rank per configuration as JSONL.")
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option(help="Keep the stripped copies and their collections here for next time."),
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
    max_cases: Annotated[
        int | None,
        typer.Option(min=1, help="Completion: cursors sampled per repository [default: 200]."),
    ] = None,
    budget: Annotated[
        list[int] | None,
        typer.Option(
            min=1, metavar="TOKENS",
            help="Completion: context budget (repeatable) [default: 512, 1024, 2048, 4096].",
        ),
    ] = None,
    row: Annotated[
        list[str] | None,
        typer.Option(
            metavar="ROW", help="Completion: retriever to score (repeatable) [default: all].",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Benchmark retrieval: docstring first sentences as queries, their functions as answers.

    With --task completion: cursors in Python, TypeScript/JavaScript, Go, Rust and
    Java files as queries, the definitions of other files that their line uses as
    answers. With --task documents: the headings of HTML pages and PDF outlines, and
    the first sentences of HTML sections (removed from what is indexed), as queries,
    their sections as answers (--max-queries per query kind and folder).
    """
    _refuse_other_task_options(task, {
        "--mode": mode is not None, "--index": index_kind is not None, "--strict": strict,
        "--per-query": per_query is not None, "--reuse": reuse is not None,
        "--header-ablation": header_ablation, "--max-cases": max_cases is not None,
        "--budget": budget is not None, "--row": row is not None,
    })
    if task == "completion":
        _evaluate_completion(paths, encoder, seed, max_cases, budget, row, work, as_json)
        return
    if task == "documents":
        _evaluate_documents(paths, encoder, seed, max_queries, mode, per_query, work, as_json)
        return
    # Imported here: `embedstore --help` and `list` must not pay for it (issue 9).
    from embedstore.cli.progress import RichProgress
    from embedstore.evaluation.runner import DEFAULT_INDEX_KINDS, run_eval
    from embedstore.retrieval.search import SEARCH_MODES

    source = open_store(store).open(reuse) if reuse else None
    with RichProgress(err, enabled=not as_json) as progress:
        report = run_eval(
            paths, encoder=encoder, seed=seed, max_queries=max_queries,
            modes=tuple(mode or SEARCH_MODES), index_kinds=tuple(index_kind or DEFAULT_INDEX_KINDS),
            header_variants=(True, False) if header_ablation else (True,), strict=strict,
            baseline=baseline, per_query=per_query, work=work, progress=progress, reuse=source,
        )
    if as_json:
        print_json(asdict(report))
    else:
        print_table(report)


# The tasks each task's own option applies to.
_OPTION_TASKS = {
    "--mode": ("search", "documents"), "--index": ("search",), "--strict": ("search",),
    "--per-query": ("search", "documents"), "--reuse": ("search",),
    "--header-ablation": ("search",), "--max-cases": ("completion",),
    "--budget": ("completion",), "--row": ("completion",),
}


def _refuse_other_task_options(task: str, given: dict[str, bool]) -> None:
    """An option of another task would be ignored without a word: a usage error instead."""
    for option, present in given.items():
        tasks = _OPTION_TASKS[option]
        if present and task not in tasks:
            raise typer.BadParameter(
                f"it applies to --task {' or '.join(tasks)}", param_hint=f"'{option}'"
            )


def _evaluate_completion(
    paths: list[Path], encoder: str | None, seed: int, max_cases: int | None,
    budgets: list[int] | None, rows: list[str] | None, work: Path | None, as_json: bool,
) -> None:
    from embedstore.cli.progress import RichProgress
    from embedstore.evaluation.completion import (
        DEFAULT_BUDGETS,
        DEFAULT_MAX_CASES,
        ROWS,
        check_rows,
        markdown_report,
        run_completion,
    )

    try:
        check_rows(rows or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--row'") from None
    with RichProgress(err, enabled=not as_json) as progress:
        report = run_completion(
            paths, encoder=encoder, seed=seed,
            max_cases=DEFAULT_MAX_CASES if max_cases is None else max_cases,
            budgets=tuple(budgets or DEFAULT_BUDGETS), rows=tuple(rows or ROWS), work=work,
            progress=progress,
        )
    if as_json:
        print_json(asdict(report))
    else:
        # Plain text: the table is markdown, and its CIs' brackets are no Rich markup.
        out.print(markdown_report(report), markup=False, end="")


def _evaluate_documents(
    paths: list[Path], encoder: str | None, seed: int, max_queries: int,
    modes: list[str] | None, per_query: Path | None, work: Path | None, as_json: bool,
) -> None:
    from embedstore.cli.progress import RichProgress
    from embedstore.evaluation.documents import check_modes, markdown_report, run_documents
    from embedstore.retrieval.search import SEARCH_MODES

    try:
        check_modes(modes or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--mode'") from None
    with RichProgress(err, enabled=not as_json) as progress:
        report = run_documents(
            paths, encoder=encoder, seed=seed, max_queries=max_queries,
            modes=tuple(modes or SEARCH_MODES), per_query=per_query, work=work,
            progress=progress,
        )
    if as_json:
        print_json(asdict(report))
    else:
        out.print(markdown_report(report), markup=False, end="")


def print_table(report: EvalReport) -> None:
    from rich.table import Table

    pooled = len(report.repos) > 1
    shown = [r for r in report.rows if r.repo == "pooled"] if pooled else report.rows
    rule = "tight: the hit is the definition itself" if report.strict else "any overlap"
    contains = ("mrr@10 contains",) if report.strict else ()
    table = Table(
        "mode", "index", "header", *shown[0].metrics, *contains, "split", "whole",
        "Δ vs hybrid [95% CI]", "ms/q",
        title=(
            f"{'pooled over ' + str(len(report.repos)) + ' repos' if pooled else report.repos[0]}:"
            f" {report.queries:,} queries ({report.split_queries:,} on split functions) over "
            f"{report.units:,} definitions / {report.chunks:,} chunks; {report.encoder}, "
            f"seed {report.seed}, {rule}"
        ),
    )
    for row in shown:
        table.add_row(
            row.mode, row.index_kind, "yes" if row.header else "no",
            *(f"{v:.1f}" for v in row.metrics.values()),
            *((_pct(row.contains_mrr),) if report.strict else ()), _pct(row.split_mrr),
            _pct(row.whole_mrr), _interval(row), f"{row.ms_per_query:.1f}",
        )
    out.print(table)
    if pooled:
        out.print("MRR@10 per repository (flat index):")
        for repo in dict.fromkeys(r.repo for r in report.rows if r.repo != "pooled"):
            cells = [
                f"{r.mode} {r.metrics['mrr@10']:.1f}"
                for r in report.rows if r.repo == repo and r.index_kind == "flat" and r.header
            ]
            out.print(f"  {repo}: " + ", ".join(cells))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _interval(row: EvalRow) -> str:
    if row.vs_default is None:
        return "-"
    diff, low, high = row.vs_default
    return f"{diff:+.1f} [{low:+.1f}, {high:+.1f}]"
