"""The whole benchmark on a tiny fixture repo whose ranks are known by construction."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.errors import UserInputError
from embedstore.evaluation.runner import run_eval
from embedstore.indexing import IndexOptions, index_folder
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
    report = run_eval(tmp_path, encoder=FAKE_SPEC, modes=("lexical",), index_kinds=("flat",))
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
