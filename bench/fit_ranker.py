"""Fits code-at-cursor's candidate ranker (retrieval/candidate_ranker.py) on the tuning sets.

    python bench/fit_ranker.py [--stdlib] FOLDER [FOLDER ...]

Each FOLDER holds repositories (the Rust standard library of bench/fetch_rust_std.py, the
JDK modules of bench/fetch_java.py, ../shared/eval/fetch_repos.py's train-multi); --stdlib
adds this Python's standard-library packages, as bench/completion.py --set stdlib reads
them. Never give it a validation set. Each repository is indexed with the test suite's
hashing encoder (as bench/completion.py --fast does) into bench/work/ranker-fit/, and each
of its cursors (200, seed 0) gives code_context.ranked_candidates' list, one feature row a
candidate. The target is the candidate whose own block holds the next line's definition:
its signature, or the body that packing shows for all but classes (an enum's member). A
class whose outline lists the definition among its members is no target, since a class
ranked past the first few shows few of its members (counting it as one fitted an order
that moved Rust's standard library by -0.3 at 2,048 tokens, against +2.5 for this one). A
conditional logit (a softmax over each cursor's candidates) fits one weight a feature;
"score" starts at 1, the others at 0. Cursors with no such candidate teach nothing and are
left out.

Prints, for each group of repositories (a folder's repositories of one language) left out
of the fit, how often the target is among the first 10 / 30 / 60 candidates before and
after, then the weights fitted on every group, to paste into candidate_ranker.WEIGHTS.
Writes both to bench/results/ranker_fit.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from completion import STDLIB_PACKAGES, hashing_encoder, main_language
from stdlib_corpus import stdlib_copy

from embedstore.evaluation.completion import CompletionCase, build_cases
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.candidate_ranker import FEATURES, Candidate, census, features
from embedstore.retrieval.code_context import ranked_candidates
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
L2 = 1e-2
TOP = (10, 30, 60)

Cursor = tuple[np.ndarray, np.ndarray]  # features (n, F), target flags (n,)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, help="folders of repositories")
    parser.add_argument("--stdlib", action="store_true", help="the Python standard library")
    args = parser.parse_args()
    encoder = hashing_encoder()
    groups: dict[str, list[Path]] = {}
    if args.stdlib:
        corpus = stdlib_copy(HERE / "work" / "Lib")
        groups["stdlib python"] = [corpus / n for n in STDLIB_PACKAGES if (corpus / n).is_dir()]
    for folder in args.folders:
        for repo in sorted(p for p in folder.iterdir() if p.is_dir()):
            groups.setdefault(f"{folder.name} {main_language(repo)}", []).append(repo)
    cursors = {name: [c for repo in repos for c in _cursors(repo, encoder)]
               for name, repos in groups.items()}
    left_out = {}
    for name, held in cursors.items():
        weights = fit([c for other, found in cursors.items() if other != name for c in found])
        left_out[name] = {"cursors": len(held), **top(held, weights)}
        print(name, left_out[name], flush=True)
    weights = fit([c for found in cursors.values() for c in found])
    fitted = {name: round(float(w), 3) for name, w in zip(FEATURES, weights, strict=True)}
    print(json.dumps(fitted, indent=1))
    out = HERE / "results" / "ranker_fit.json"
    out.write_text(json.dumps({"left_out": left_out, "weights": fitted}, indent=1) + "\n")


def _cursors(repo: Path, encoder: str) -> list[Cursor]:
    store = Store(HERE / "work" / "ranker-fit" / repo.name / "store")
    index_folder(store, repo, IndexOptions(name="code", encoder=encoder))
    collection = store.open("code")
    found = []
    for case in build_cases(repo, 0, 200):
        ranked = ranked_candidates(collection, case.code, path=case.path)
        targets = np.array([_holds(c, case) for c in ranked], dtype=np.float64)
        if ranked:
            found.append((features(ranked, case.code, census(collection.conn, ranked), case.path),
                          targets))
    collection.close()
    print(f"{repo.name}: {len(found)} cursors", flush=True)
    return found


def _holds(cand: Candidate, case: CompletionCase) -> bool:
    """Whether the candidate's own block holds the target: its signature, or the body that
    packing shows of any kind but a class (a TypeScript enum's members, a Go `const` block's)."""
    row = cand.row
    last = row.signature_end_line if row.kind == "class" else row.end_line
    return row.path == case.target_path and row.start_line <= case.target_line <= last


def fit(cursors: list[Cursor]) -> np.ndarray:
    """Weights (F,) that maximise the mean log-probability of each cursor's targets."""
    found = [(torch.tensor(x), torch.tensor(y) > 0) for x, y in cursors if y.any()]
    w = torch.zeros(len(FEATURES), dtype=torch.float64)
    w[FEATURES.index("score")] = 1.0
    w.requires_grad_(True)
    others = torch.tensor([name != "score" for name in FEATURES])
    solver = torch.optim.LBFGS([w], max_iter=200, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        solver.zero_grad()
        total = sum(torch.logsumexp(x @ w, 0) - torch.logsumexp((x @ w)[y], 0)
                    for x, y in found)
        value = total / len(found) + L2 * (w[others] ** 2).sum()
        value.backward()
        return value

    solver.step(loss)  # type: ignore[arg-type]
    return w.detach().numpy()


def top(cursors: list[Cursor], weights: np.ndarray) -> dict[str, list[float]]:
    """% of cursors whose target is among the first k, evidence order -> fitted order."""
    before, after = np.full(len(cursors), 10**6), np.full(len(cursors), 10**6)
    for i, (x, y) in enumerate(cursors):
        if y.any():
            before[i] = np.flatnonzero(y)[0]
            after[i] = np.flatnonzero(y[np.argsort(-(x @ weights), kind="stable")])[0]
    return {f"top {k}": [round(100 * float(np.mean(before < k)), 1),
                         round(100 * float(np.mean(after < k)), 1)] for k in TOP}


if __name__ == "__main__":
    main()
