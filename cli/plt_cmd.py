"""`embedstore plt train` and `embedstore plt inspect`: a native PLT encoder."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedstore.cli.common import JsonOption, cli_errors, err, out, print_json
from embedstore.errors import UserInputError

if TYPE_CHECKING:
    from embedstore.chunking.types import TokenCounter

plt_app = typer.Typer(
    help="Parallel Loop Transformer encoders: distil one on your corpus, inspect its loops.",
    no_args_is_help=True,
)


@plt_app.command("train")
@cli_errors
def train(
    corpus: Annotated[Path, typer.Argument(help="Folder whose files to train on.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the trained model.")],
    teacher: Annotated[
        str, typer.Option(help="Sentence-transformers model to distil.")
    ] = "all-MiniLM-L6-v2",
    loops: Annotated[int, typer.Option(min=1, help="R: loops of the shared stack.")] = 2,
    steps: Annotated[int, typer.Option(min=1, help="Optimiser steps.")] = 2000,
    d_model: Annotated[int, typer.Option(min=8, help="Width of the student.")] = 256,
    layers: Annotated[int, typer.Option(min=1, help="Layers in the shared stack.")] = 2,
    heads: Annotated[int, typer.Option(min=1, help="Attention heads.")] = 4,
    kv_heads: Annotated[int, typer.Option(min=1, help="Key/value heads (grouped).")] = 2,
    window: Annotated[int, typer.Option(min=1, help="w: G-SWA's local window.")] = 64,
    max_tokens: Annotated[int, typer.Option(min=16, help="Longest input, in tokens.")] = 256,
    position: Annotated[str, typer.Option(help="rope, alibi, sinusoidal or learned.")] = "rope",
    pooling: Annotated[str, typer.Option(help="weighted_mean, last or mean.")] = "weighted_mean",
    loss: Annotated[str, typer.Option(help="Distillation loss: cosine or mse.")] = "cosine",
    contrastive_weight: Annotated[
        float,
        typer.Option(
            min=0, help="Weight of the docstring/code contrastive term (0: off, the default; "
            "it lowered held-out retrieval in bench/plt_loops.py)."
        ),
    ] = 0.0,
    lr: Annotated[float, typer.Option(help="Peak learning rate.")] = 1e-3,
    batch_size: Annotated[int, typer.Option(min=1, help="Chunks per step.")] = 32,
    pair_batch_size: Annotated[
        int, typer.Option(min=0, help="Docstring/code pairs per step.")
    ] = 16,
    warmup_steps: Annotated[int, typer.Option(min=0, help="Linear warm-up steps.")] = 100,
    checkpoint_every: Annotated[int, typer.Option(min=1, help="Steps between checkpoints.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed for initialisation and sampling.")] = 0,
    resume: Annotated[
        bool, typer.Option(help="Continue from the checkpoint in --out, if any.")
    ] = True,
    threads: Annotated[
        int | None,
        typer.Option(min=1, help="CPU threads for torch; 1 is often fastest on a busy machine."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Distil a teacher sentence-transformer into a small PLT on CORPUS's own chunks."""
    import torch

    from embedstore.cli.progress import TrainingProgress
    from embedstore.ingest.indexer import embedding_text
    from embedstore.tuning.plt_train import TrainConfig
    from embedstore.tuning.plt_train import train as run_training

    config = TrainConfig(
        teacher=teacher, loops=loops, d_model=d_model, n_layers=layers, n_heads=heads,
        n_kv_heads=kv_heads, window=window, max_tokens=max_tokens,
        position=position, pooling=pooling, steps=steps, batch_size=batch_size,
        pair_batch_size=pair_batch_size, lr=lr, warmup_steps=warmup_steps,
        loss=loss, contrastive_weight=contrastive_weight, checkpoint_every=checkpoint_every,
        seed=seed,
    )
    if threads is not None:
        torch.set_num_threads(threads)
    progress = TrainingProgress(err, enabled=not as_json)
    with progress:
        result = run_training(
            corpus, out_dir, config, text_of=embedding_text, resume=resume, progress=progress,
            on_step=lambda step: progress.show_loss(step.loss),
        )
    last = result.history[-10:]
    summary = {
        "folder": str(result.folder),
        "steps": len(result.history),
        "resumed_from": result.resumed_from,
        "final_loss": sum(s.loss for s in last) / len(last),
        "seconds_per_step": result.seconds_per_step,
        "encoder": f"plt:{result.folder}",
    }
    if as_json:
        print_json(summary)
        return
    resumed = f", resumed at step {result.resumed_from}" if result.resumed_from else ""
    out.print(
        f"Trained {summary['steps']:,} steps{resumed}: loss {summary['final_loss']:.4f}, "
        f"{summary['seconds_per_step']:.2f}s/step. Model in {result.folder}"
    )
    out.print(f"Index with it: embedstore index PATH --encoder plt:{result.folder}")


@plt_app.command("inspect")
@cli_errors
def inspect(
    folder: Annotated[Path, typer.Argument(help="A PLT folder (from `plt train`).")],
    text: Annotated[
        Path | None, typer.Option("--text", help="File whose chunks to run [default: samples].")
    ] = None,
    seq_len: Annotated[
        int | None,
        typer.Option(min=1, help="Sequence length for the cache sizes [default: max tokens]."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Per loop: offset cost, step size, gate, effective rank; and KV-cache bytes."""
    from embedstore.encoders.plt.diagnostics import SAMPLE_TEXTS, diagnose
    from embedstore.encoders.plt.embedder import token_counter
    from embedstore.encoders.plt.folder import load_folder

    embedder, tokenizer = load_folder(folder)
    count_tokens = token_counter(tokenizer)
    texts = _chunks_of(text, embedder.config.max_seq_len, count_tokens) if text else SAMPLE_TEXTS
    report = diagnose(embedder, tokenizer, texts, seq_len=seq_len)
    if as_json:
        print_json({"config": embedder.config.to_dict(), **asdict(report)})
        return
    c = embedder.config
    out.print(
        f"[bold]{folder}[/bold]: R={c.loops} loops over {c.n_layers} layers, d={c.d_model}, "
        f"window {c.window}, {c.position} positions, {c.pooling} pooling, "
        f"{sum(p.numel() for p in embedder.parameters()):,} parameters"
    )
    from rich.table import Table

    table = Table(
        "loop", "offset cost Ω", "step ‖h^r - h^(r-1)‖", "mean gate", "effective rank",
        title=f"{report.texts} texts, {report.tokens:,} tokens",
    )
    for loop in report.loops:
        table.add_row(
            str(loop.loop), _fmt(loop.offset_cost), _fmt(loop.step_size), _fmt(loop.gate_mean),
            f"{loop.effective_rank:.1f}",
        )
    out.print(table)
    out.print(
        f"KV cache at {report.seq_len:,} tokens: {report.kv_cache_bytes:,} bytes shared "
        f"(loop 1 + {c.loops - 1} windows of {c.window + 1}) vs "
        f"{report.sequential_kv_bytes:,} for {c.loops} sequential loops"
    )


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _chunks_of(path: Path, max_tokens: int, count_tokens: TokenCounter) -> list[str]:
    """The file cut as indexing cuts it, so the statistics are of realistic inputs."""
    from embedstore.chunking import chunk_body, chunk_file
    from embedstore.languages import detect_language

    if not path.is_file():
        raise UserInputError(f"--text {path} is not a file")
    text = path.read_text(encoding="utf-8", errors="replace")
    language = detect_language(path)
    chunks = chunk_file(text, language, max_tokens=max_tokens, count_tokens=count_tokens)
    if not chunks:
        raise UserInputError(f"--text {path} has no text to run")
    return [chunk_body(chunk) for chunk in chunks]
