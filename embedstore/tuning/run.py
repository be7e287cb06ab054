"""The whole `embedstore tune`: mine pairs, hold out files, train, save, score before/after."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from embedstore.encoders.device import best_device
from embedstore.encoders.precision import candidate
from embedstore.encoders.registry import canonical_spec, load_encoder, model_source
from embedstore.errors import UserInputError
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.dataset import MINED_LANGUAGES
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import POOLED, run_eval
from embedstore.ingest.sources import walk_sources
from embedstore.progress import NullProgress, Progress
from embedstore.tuning.negatives import hard_negatives
from embedstore.tuning.pairs import held_out, mine_pairs, sample_pairs, split_pairs
from embedstore.tuning.train import TrainSettings, set_pooling, train


@dataclass
class TuneReport:
    base: str
    out: str
    pairs_trained: int = 0
    trained_per_language: dict[str, int] = field(default_factory=dict)
    pairs_held_out: int = 0
    files_held_out: int = 0
    steps: int = 0
    train_seconds: float = 0.0
    total_seconds: float = 0.0
    precision: str = "fp32"
    # Held-out files, dense, strict rule: MRR@10 etc. before and after.
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)
    # MRR@10 after minus before, with its paired bootstrap 95% CI (points).
    gain: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def below_noise(self) -> bool:
        return self.gain[1] <= 0.0


def run_tune(
    repos: Sequence[Path],
    settings: TrainSettings,
    *,
    base: str | None = None,
    pooling: str | None = None,
    progress: Progress | None = None,
    per_language: int | None = None,
    scored: Sequence[Path] | None = None,
) -> TuneReport:
    """Fine-tune ``base`` on the repositories' doc -> code pairs; save to ``settings.out``.

    ``per_language`` caps each language's trained pairs (a seeded sample);
    ``scored`` are the repositories whose held-out files score it (all by default; none:
    not scored here).
    """
    from embedstore.encoders.sentence_transformer import open_model  # imports torch

    began = time.perf_counter()
    ui = progress or NullProgress()
    spec = canonical_spec(base)
    encoder = load_encoder(spec)
    report = TuneReport(spec, str(settings.out))
    ui.start("mine pairs", None)
    if per_language is None:
        pairs = mine_pairs(repos, max_tokens=encoder.max_tokens,
                           count_tokens=encoder.count_tokens)
        trained, held = split_pairs(pairs)
    else:  # a sample of the trained files' pairs; the held-out files are not mined
        trained, held = sample_pairs(repos, per_language, seed=settings.seed,
                                     max_tokens=encoder.max_tokens,
                                     count_tokens=encoder.count_tokens), []
    report.pairs_trained = len(trained)
    report.trained_per_language = dict(Counter(p.language for p in trained))
    report.pairs_held_out = len(held)
    if not trained or (per_language is None and not held):
        raise UserInputError(
            f"{len(trained) + len(held)} docstring/code pairs found, {len(held)} of them in "
            "held-out files: tune needs both; give a larger repository"
        )
    ui.start("hard negatives", None)
    negatives = hard_negatives(trained, encoder, seed=settings.seed)
    ui.finish("hard negatives")
    files = model_source(spec)  # the shipped default: the stock weights plus its adapter
    model = open_model(files.source, best_device(), files.adapter)
    if pooling is not None:
        set_pooling(model, pooling)
    report.precision = "bf16" if settings.bf16 else "fp32"
    rows = {"anchor": [p.query for p in trained], "positive": [p.positive for p in trained],
            "negative": negatives}
    report.steps, report.train_seconds = train(model, rows, settings, ui)
    model.save(str(settings.out))
    # Checkpoints only serve a killed run's --resume; a finished model does not need them.
    shutil.rmtree(settings.out / "checkpoints", ignore_errors=True)
    scored = repos if scored is None else scored
    if scored:
        report.before, report.after, report.gain = score_held_out(
            scored, spec, settings.out, report, ui
        )
    report.total_seconds = time.perf_counter() - began
    _write_card(settings.out, report, len(repos))
    return report


def default_bf16() -> bool:
    """Train in bf16 where the CPU runs it natively (it roughly halves the time)."""
    return candidate(best_device()) == "bf16"


def score_held_out(
    repos: Sequence[Path], base: str, tuned: Path, report: TuneReport, ui: Progress
) -> tuple[dict[str, float], dict[str, float], tuple[float, float, float]]:
    """Dense MRR@10 etc. on the held-out files' queries, base vs tuned, same queries."""
    with tempfile.TemporaryDirectory(prefix="embedstore-tune-") as tmp:
        copies = copy_held_out(repos, Path(tmp) / "held-out", report)
        outcome = []
        for spec in (base, str(tuned.resolve())):
            ranks_file = Path(tmp) / "ranks.jsonl"
            result = run_eval(copies, encoder=spec, modes=("dense",), index_kinds=("flat",),
                              strict=True, baseline=False, per_query=ranks_file, progress=ui)
            rows = [r for r in result.rows if len(copies) == 1 or r.repo == POOLED]
            ranks = [json.loads(line)["rank"] for line in ranks_file.read_text().splitlines()]
            outcome.append((rows[0].metrics, reciprocal_ranks(ranks, CUTOFF)))
    (before, rr_before), (after, rr_after) = outcome
    diff = paired_bootstrap_ci(rr_after, rr_before)
    return before, after, (100 * diff[0], 100 * diff[1], 100 * diff[2])


def copy_held_out(repos: Sequence[Path], dest: Path, report: TuneReport) -> list[Path]:
    """The held-out files of each repository (mined languages), copied under
    ``dest/<repo name>``."""
    copies = []
    for index, repo in enumerate(repos):
        target = dest / f"{index}-{Path(repo).name}"
        for source in walk_sources(repo):
            key = f"{Path(repo).name}/{source.rel_path}"
            if source.language in MINED_LANGUAGES and held_out(key):
                (target / source.rel_path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source.path, target / source.rel_path)
                report.files_held_out += 1
        if target.exists():
            copies.append(target)
    return copies


def _write_card(out: Path, report: TuneReport, repos: int) -> None:
    """A model card (README.md) and the machine-readable report beside the weights."""
    (out / "embedstore-tune.json").write_text(json.dumps(asdict(report), indent=2))
    diff, low, high = report.gain
    (out / "README.md").write_text(
        f"# Fine-tuned by `embedstore tune`\n\n"
        f"- base model: {report.base}\n"
        f"- data: {report.pairs_trained:,} docstring -> code pairs from {repos} "
        f"repositor{'y' if repos == 1 else 'ies'}; {report.pairs_held_out:,} pairs in "
        f"{report.files_held_out:,} held-out files never trained on\n"
        f"- training: {report.steps:,} steps, MultipleNegativesRankingLoss with one hard "
        f"negative per pair, {report.precision}, {report.train_seconds / 60:.1f} min "
        f"({report.total_seconds / 60:.1f} min in all)\n"
        f"- held-out files, dense, strict rule: MRR@10 {report.before.get('mrr@10', 0):.1f} "
        f"-> {report.after.get('mrr@10', 0):.1f} ({diff:+.1f}, 95% CI {low:+.1f} .. "
        f"{high:+.1f}); Recall@10 {report.before.get('recall@10', 0):.1f} -> "
        f"{report.after.get('recall@10', 0):.1f}\n\n"
        f"Use it: `embedstore index PATH --encoder {out.resolve()} --rebuild`.\n"
    )
