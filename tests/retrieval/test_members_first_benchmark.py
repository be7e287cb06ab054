"""Over the benchmark's result lists (real model, real standard-library code): no class
outline above one of its own members that also matches."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import pytest

from embedstore.chunking.grammars import CLASS_KINDS
from embedstore.evaluation.dataset import build_corpus
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval import search as search_module
from embedstore.retrieval.search import SEARCH_MODES, SearchResult, search
from embedstore.store.store import Store

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Modules with classes over the token budget (outlined) and documented methods.
MODULES = ["textwrap.py", "shlex.py"]


def class_above_member(hits: list[SearchResult]) -> list[tuple[str, str]]:
    return [
        (str(c.symbol), str(m.symbol)) for n, c in enumerate(hits) if c.kind in CLASS_KINDS
        for m in hits[n + 1:]
        if m.path == c.path and c.start_line <= m.start_line and m.end_line <= c.end_line
        and (m.start_line, m.end_line) != (c.start_line, c.end_line)
    ]


def test_no_result_list_holds_a_class_above_its_own_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in MODULES:
        shutil.copy(STDLIB / name, repo / name)
    queries = build_corpus(repo, tmp_path / "corpus", seed=0)
    store = Store(tmp_path / "store")
    index_folder(store, tmp_path / "corpus", IndexOptions(name="bench", index_kind="flat"))
    collection = store.open("bench")

    def pairs() -> list[tuple[str, str]]:
        return [pair for q in queries for mode in SEARCH_MODES
                for pair in class_above_member(search(collection, q.query, 10, mode=mode))]

    assert pairs() == []
    # The lists do hold such pairs without the rule: this test can fail.
    monkeypatch.setattr(search_module, "members_first", lambda ranked, rows, query: (ranked, {}))
    assert pairs()
