"""`embedstore tune PATH [PATH ...] --out DIR`: fine-tune the encoder on your own code."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedstore.cli.common import JsonOption, cli_errors, err, out, print_json
from embedstore.cli.help_words import DEFAULT_ENCODER

if TYPE_CHECKING:
    from embedstore.tuning.run import TuneReport


@cli_errors
def tune(
    paths: Annotated[list[Path], typer.Argument(help="Repositories to learn from.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the tuned model.")],
    base: Annotated[
        str | None, typer.Option(help=f"Model to start from {DEFAULT_ENCODER}.")
    ] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Train this many steps.")] = None,
    minutes: Annotated[
        float | None, typer.Option(min=0.1, help="Stop training after this many minutes.")
    ] = None,
    epochs: Annotated[float, typer.Option(min=0.01, help="Passes over the pairs.")] = 1.0,
    batch_size: Annotated[int, typer.Option(min=2, help="Pairs per step.")] = 32,
    learning_rate: Annotated[float, typer.Option(min=0.0, help="Peak learning rate.")] = 2e-5,
    seed: Annotated[int, typer.Option(help="Seed for data order and negatives.")] = 0,
    pooling: Annotated[
        str | None, typer.Option(help="Pooling to train with [default: the base model's].")
    ] = None,
    bf16: Annotated[
        bool | None,
        typer.Option("--bf16/--fp32", help="Precision [default: bf16 where the CPU has it]."),
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue from the last checkpoint.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Fine-tune a sentence-transformers encoder on docstring -> code pairs of your code.

    A fifth of the files (by path hash) is held out and scored before and after.
    """
    # Imported here: `embedstore --help` and `list` must not pay for them (issue 9).
    from embedstore.cli.progress import RichProgress
    from embedstore.tuning.run import default_bf16, run_tune
    from embedstore.tuning.train import TrainSettings

    settings = TrainSettings(
        out=out_dir, epochs=epochs, steps=steps, minutes=minutes, batch_size=batch_size,
        learning_rate=learning_rate, seed=seed, resume=resume,
        bf16=default_bf16() if bf16 is None else bf16,
    )
    with RichProgress(err, enabled=not as_json) as progress:
        report = run_tune(paths, settings, base=base, pooling=pooling, progress=progress)
    if as_json:
        print_json({**asdict(report), "below_noise": report.below_noise})
    else:
        _print_report(report)


def _print_report(report: TuneReport) -> None:
    diff, low, high = report.gain
    out.print(
        f"[bold]{report.out}[/bold]: {report.pairs_trained:,} pairs, {report.steps:,} steps, "
        f"{report.train_seconds / 60:.1f} min training ({report.precision})"
    )
    out.print(
        f"held-out ({report.pairs_held_out:,} pairs in {report.files_held_out:,} files), dense "
        f"MRR@10: {report.before['mrr@10']:.1f} -> {report.after['mrr@10']:.1f} "
        f"({diff:+.1f}, 95% CI {low:+.1f} .. {high:+.1f})"
    )
    if report.below_noise:
        err.print("[yellow]warning:[/yellow] the held-out gain is within noise (its 95% CI "
                  "includes 0); the tuned model may not be better than the base.")
    out.print(f"use it: embedstore index PATH --encoder {report.out} --rebuild")
