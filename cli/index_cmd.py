"""`embedstore index PATH`."""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from embedstore.cli.common import (
    IncludeVendoredOption,
    JsonOption,
    StoreOption,
    cli_errors,
    err,
    open_store,
    out,
    print_json,
)
from embedstore.cli.help_words import DEFAULT_ENCODER
from embedstore.cli.nonempty import nonempty_path, refuse_empty
from embedstore.cli.pipe_safe import PipeSafeProgress

if TYPE_CHECKING:
    from embedstore.ingest.indexer import IndexReport


@cli_errors
def index(
    path: Annotated[Path, typer.Argument(
        metavar="PATH", parser=nonempty_path, help="Folder (or file) to index.",
        show_default=False,
    )],
    name: Annotated[str | None, typer.Option(
        "--name", "-n", callback=refuse_empty, help="Collection name [default: folder name].",
    )] = None,
    encoder: Annotated[
        str | None,
        typer.Option(callback=refuse_empty,
                     help=f"ST model name or folder, or plt:DIR {DEFAULT_ENCODER}."),
    ] = None,
    pooling: Annotated[
        str | None,
        typer.Option(help="mean, cls, max, last or weighted_mean [default: the model's own]."),
    ] = None,
    index_kind: Annotated[
        str | None,
        typer.Option("--index", help="auto, flat or ivfpq [default: auto, exact below 50,000]."),
    ] = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Re-encode everything, e.g. with another encoder.")
    ] = False,
    batch_size: Annotated[int, typer.Option(
        min=1, max=4096,
        help="Texts per encoding batch at the longest length; shorter texts fill the same "
             "token budget (16 measured fastest on CPU).",
    )] = 16,
    precision: Annotated[
        str | None,
        typer.Option(help="auto, fp32, bf16 or fp16. auto takes the machine's fast path "
                     "(bf16 on CPUs with native bf16, fp16 on CUDA) when it matches fp32 "
                     "(mean cosine >= 0.999 on a probe) and, on a CPU, encodes the probe "
                     "a tenth faster; fp32 forces the exact path "
                     "[default: $EMBEDSTORE_PRECISION, else auto]."),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", metavar="ADDRESS|local",
                     help="Encode on a Ray cluster: HOST:PORT of its head (ray start --head), or "
                     "local to start one on this machine's CPUs; one model per actor, one actor "
                     "per GPU (else per CPU). Needs the ray extra [default: encode here]."),
    ] = None,
    include_vendored: IncludeVendoredOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Index a folder into a collection; re-running it updates only what changed."""
    began = time.perf_counter()
    # Imported here: `embedstore --help` and `list` must not pay for it (issue 9).
    from embedstore.cli.progress import RichProgress
    from embedstore.ingest.indexer import IndexOptions, index_folder

    options = IndexOptions(
        name=name, encoder=encoder, pooling=pooling, index_kind=index_kind,
        rebuild=rebuild, batch_size=batch_size, precision=precision, ray=ray,
        include_vendored=include_vendored,
    )
    with RichProgress(err, enabled=not as_json) as progress:
        report = index_folder(
            open_store(store), path, options, PipeSafeProgress(progress, err.file)
        )
    total = time.perf_counter() - began
    # The stages' seconds and "other" (imports, bookkeeping between stages) make the total.
    seconds = {**report.seconds, "other": max(total - sum(report.seconds.values()), 0.0)}
    if as_json:
        print_json({**asdict(report), "seconds": {k: round(v, 3) for k, v in seconds.items()},
                    "total_seconds": round(total, 3)})
    else:
        _print_report(report, seconds)


def _print_report(r: IndexReport, seconds: dict[str, float]) -> None:
    from embedstore.ingest.sources import describe_skips

    out.print(f"[bold]{escape(r.collection)}[/bold]: {r.files_scanned:,} files scanned, "
              f"{describe_skips(r.skipped)}")
    for line in r.left_out():
        out.print(escape(line))
    if r.nothing_changed and not r.units_added:
        out.print("Nothing changed: no file was re-chunked or re-encoded.")
    else:
        out.print(
            f"files: {r.files_new:,} new, {r.files_changed:,} changed, "
            f"{r.files_deleted:,} deleted, {r.files_unchanged:,} unchanged; "
            f"definitions: +{r.units_added:,} -{r.units_removed:,}; "
            f"chunks: {r.chunks_encoded:,} encoded, {r.chunks_reused:,} reused"
        )
    shown = _tenths(list(seconds.values()))
    timing = ", ".join(f"{stage} {secs:.1f}s" for stage, secs in zip(seconds, shown, strict=True))
    where = f"in a {r.index_kind} index" if r.index_kind else "(nothing to index)"
    out.print(f"{r.units_total:,} definitions ({r.chunks_total:,} chunks) {where} "
              f"({timing}; total {sum(shown):.1f}s)")


def _tenths(seconds: list[float]) -> list[float]:
    """Each to 0.1 s such that they add up to their rounded total, as the line claims: the
    running sums are rounded, not the parts (each is still within 0.1 s of its own)."""
    shown, before, running = [], 0, 0.0
    for secs in seconds:
        running += secs
        now = round(running * 10)
        shown.append((now - before) / 10)
        before = now
    return shown
