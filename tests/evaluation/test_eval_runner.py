"""The whole benchmark on a tiny fixture repo whose ranks are known by construction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from embedstore.errors import UserInputError
from embedstore.evaluation.dataset import EvalQuery
from embedstore.evaluation.hit_rules import CONTAINS, OVERLAP, TIGHT
from embedstore.evaluation.runner import rank_of, run_eval
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import SearchResult
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

# Lexical ranks by construction: `alpha` and `gamma` bodies share rare words with
# their own docstring and with nothing else; `beta`'s docstring words appear
# only in `decoy`, never in `beta` itself, so beta is never retrieved.
REPO = {
    "a.py": '''def alpha():
    """Return the zebra giraffe antelope count now."""
    return zebra_giraffe_antelope


def decoy():
    return quartz_obsidian_basalt_granite
''',
    "b.py": '''def beta():
    """Quartz obsidian basalt granite are rocks."""
    return 1


def gamma():
    """Compute walrus narwhal orca dolphin totals."""
    return walrus + narwhal + orca + dolphin
''',
}


def test_lexical_metrics_match_hand_computed_values(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    for rel, text in REPO.items():
        (tmp_path / rel).write_text(text)
    report = run_eval(
        tmp_path, encoder=FAKE_SPEC, modes=("lexical",), index_kinds=("flat",), baseline=False
    )
    assert report.queries == 3
    (row,) = report.rows
    # alpha: rank 1, gamma: rank 1, beta: never found (its words are only in decoy)
    assert row.metrics["recall@1"] == pytest.approx(100 * 2 / 3)
    assert row.metrics["mrr@10"] == pytest.approx(100 * 2 / 3)
    assert row.metrics["recall@10"] == pytest.approx(100 * 2 / 3)


def test_repo_without_docstrings_is_a_clear_error(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    (tmp_path / "x.py").write_text("def f():\n    return 1\n")
    with pytest.raises(UserInputError, match="nothing to evaluate"):
        run_eval(tmp_path, encoder=FAKE_SPEC)


def test_reusing_a_collection_gives_the_same_metrics_with_less_encoding(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for rel, text in REPO.items():
        (repo / rel).write_text(text)
    (repo / "c.py").write_text("def unrelated_helper():\n    return 42\n")
    plain = run_eval(repo, encoder=FAKE_SPEC, index_kinds=("flat",))
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="repo", encoder=FAKE_SPEC))
    fake_encoder.encoded.clear()
    reused = run_eval(repo, encoder=FAKE_SPEC, index_kinds=("flat",), reuse=store.open("repo"))
    assert [r.metrics for r in reused.rows] == [r.metrics for r in plain.rows]
    assert not any(text.startswith("c.py\n") for text in fake_encoder.encoded)  # reused
    assert fake_encoder.encoded  # the stripped functions still had to be encoded


def write_repo(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).write_text(text)
    return folder


def test_several_repos_are_scored_alone_and_pooled_with_intervals(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    one = write_repo(tmp_path / "one", {"a.py": REPO["a.py"]})
    two = write_repo(tmp_path / "two", {"b.py": REPO["b.py"]})
    per_query = tmp_path / "ranks.jsonl"
    report = run_eval([one, two], encoder=FAKE_SPEC, index_kinds=("flat",), strict=True,
                      per_query=per_query)
    assert report.queries == 3 and report.repos == [str(one), str(two)]
    pooled = {r.mode: r for r in report.rows if r.repo == "pooled"}
    assert set(pooled) == {"hybrid", "dense", "lexical", "whole-definition dense"}
    # alpha and gamma at rank 1, each its own unit: the same under the rule it replaced.
    assert pooled["lexical"].metrics["mrr@10"] == pytest.approx(100 * 2 / 3)
    assert pooled["lexical"].contains_mrr == pytest.approx(100 * 2 / 3)
    assert pooled["hybrid"].vs_default is None
    diff, low, high = pooled["lexical"].vs_default or (0, 0, 0)
    assert low <= diff <= high
    alone = {(r.repo, r.mode): r.queries for r in report.rows if r.repo != "pooled"}
    assert alone[("one", "lexical")] == 1 and alone[("two", "lexical")] == 2
    lines = [json.loads(line) for line in per_query.read_text().splitlines()]
    assert len(lines) == 3 * 4  # 3 queries x (3 modes + baseline)
    alpha = next(x for x in lines if x["symbol"] == "alpha" and x["mode"] == "lexical")
    assert alpha["rank"] == 1 and alpha["first"].startswith("a.py:1-")
    assert alpha["split"] is False


def test_strict_rule_needs_the_def_line(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    hit = SearchResult(1, "a.py", 1, 1, 1, 1, "python", "lines", 1.0, "@decorator")
    query = EvalQuery("q", "a.py", start_line=1, end_line=3, symbol="f", def_line=2)
    assert rank_of([hit], query, OVERLAP) == 1
    assert rank_of([hit], query, CONTAINS) is None
    assert rank_of([hit], query, TIGHT) is None


def test_strict_scores_the_tight_rule_with_the_contains_rule_beside_it(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `alpha` is a method of a class over budget: its class's outline contains its def line.
    fields = "\n".join(f"    field_{i} = {i}" for i in range(200))
    source = (
        f"class Holder:\n{fields}\n\n    def alpha(self):\n"
        '        """Return the zebra giraffe antelope count now."""\n'
        "        return self.zebra_giraffe_antelope\n"
    )
    repo = write_repo(tmp_path / "repo", {"a.py": source})
    per_query = tmp_path / "ranks.jsonl"
    report = run_eval(repo, encoder=FAKE_SPEC, modes=("lexical",), index_kinds=("flat",),
                      strict=True, baseline=False, per_query=per_query)
    (row,) = report.rows
    assert report.rule == TIGHT
    line = json.loads(per_query.read_text())
    assert line["rank"] == 1 and row.metrics["mrr@10"] == 100
    assert row.contains_mrr == 100 and line["rank_contains"] == 1


def test_a_kept_work_folder_makes_the_second_run_encode_nothing(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    repo = write_repo(tmp_path / "repo", REPO)
    first = run_eval(repo, encoder=FAKE_SPEC, index_kinds=("flat",), work=tmp_path / "work")
    fake_encoder.encoded.clear()
    second = run_eval(repo, encoder=FAKE_SPEC, index_kinds=("flat",), work=tmp_path / "work")
    assert fake_encoder.encoded == []
    assert [r.metrics for r in second.rows] == [r.metrics for r in first.rows]
