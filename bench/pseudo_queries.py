"""Issue 20's pseudo-query experiment: do identifier pairs help the code adapter's training?

    python bench/pseudo_queries.py [--share 0.25]

Pseudo-queries are the words of an undocumented function's name and its parameters
(`parse_header(line, strict)` -> "parse_header parse header line strict"), paired with the
definition as the indexer embeds it (docstrings stripped, as `embedstore eval` sees code).
They replace --share of the 120 x 32 rows of bench/train_default.py's docstring pairs; the
full fine-tune is the same (lr 2e-5, bf16, seed 0, one hard negative per row). The held-out
stdlib files are scored (dense, strict) against the docstring-only fine-tune that
bench/train_default.py leaves in bench/work/default-adapter/full, paired. Prints one JSON line.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.chunking import chunk_file
from embedstore.chunking.units import group_units, own_name
from embedstore.encoders.base import Encoder
from embedstore.encoders.device import best_device
from embedstore.encoders.registry import STOCK_ENCODER, load_encoder, model_source
from embedstore.encoders.sentence_transformer import open_model
from embedstore.evaluation.dataset import strip_docstrings
from embedstore.ingest.chunk import embedding_text
from embedstore.ingest.sources import walk_sources
from embedstore.lexical import code_terms
from embedstore.progress import NullProgress
from embedstore.tuning.negatives import hard_negatives
from embedstore.tuning.pairs import Pair, held_out, mine_pairs, split_pairs
from embedstore.tuning.run import TuneReport, default_bf16, score_held_out
from embedstore.tuning.train import TrainSettings, train

BENCH = Path(__file__).resolve().parent
STEPS, BATCH = 120, 32
SIGNATURE = re.compile(r"def\s+\w+\s*\(([^)]*)\)")


def pseudo_pairs(repo: Path, encoder: Encoder) -> list[Pair]:
    """Name-and-parameter queries of the undocumented functions of the trained files."""
    found = []
    for source in walk_sources(repo):
        key = f"{repo.name}/{source.rel_path}"
        if source.language != "python" or held_out(key):
            continue
        stripped, queries = strip_docstrings(source.text, source.rel_path)
        documented = {q.def_line for q in queries}  # the docstring pairs have these
        budget = encoder.max_tokens - encoder.count_tokens([source.rel_path])[0]
        for plan in group_units(chunk_file(stripped, "python", max_tokens=budget,
                                           count_tokens=encoder.count_tokens)):
            words = code_terms(own_name(plan.symbol))
            if (plan.kind not in ("function", "method") or "," in (plan.symbol or "")
                    or len(words) < 2
                    or any(plan.start_line <= n <= plan.end_line for n in documented)):
                continue
            match = SIGNATURE.search(plan.chunks[0].text)
            params = [p for p in code_terms(match.group(1)) if p not in ("self", "cls")
                      ] if match else []
            found.append(Pair(" ".join(words + params),
                              embedding_text(source.rel_path, plan.chunks[0]), key, ()))
    return found


def main() -> None:
    share = float(sys.argv[sys.argv.index("--share") + 1]) if "--share" in sys.argv else 0.25
    began = time.perf_counter()
    stdlib = stdlib_copy(BENCH / "work" / "Lib")
    encoder = load_encoder(STOCK_ENCODER)
    trained, _ = split_pairs(mine_pairs([stdlib], max_tokens=encoder.max_tokens,
                                        count_tokens=encoder.count_tokens))
    pseudo = pseudo_pairs(stdlib, encoder)
    rng = random.Random(0)
    wanted = int(share * STEPS * BATCH)
    sample = rng.sample(pseudo, min(wanted, len(pseudo)))
    sample += rng.sample(trained, STEPS * BATCH - len(sample))
    rng.shuffle(sample)
    rows = {"anchor": [p.query for p in sample], "positive": [p.positive for p in sample],
            "negative": hard_negatives(sample, encoder, seed=0)}
    files = model_source(STOCK_ENCODER)
    model = open_model(files.source, best_device())
    out = BENCH / "work" / "pseudo"
    _, seconds = train(model, rows, TrainSettings(out=out, steps=STEPS, bf16=default_bf16()))
    model.save(str(out / "model"))
    base = BENCH / "work" / "default-adapter" / "full"
    before, after, gain = score_held_out([stdlib], str(base), out / "model",
                                         TuneReport("", ""), NullProgress())
    print(json.dumps({"share": share, "pseudo_pairs": len(pseudo),
                      "docstring_only": before["mrr@10"], "with_pseudo": after["mrr@10"],
                      "gain_ci": gain, "train_seconds": round(seconds),
                      "wall_seconds": round(time.perf_counter() - began)}))


if __name__ == "__main__":
    main()
