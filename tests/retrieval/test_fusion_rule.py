from __future__ import annotations

import math
from pathlib import Path

import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval import fusion_rule
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.fusion import fuse
from embedstore.retrieval.fusion_rule import dense_weight, signals, weight_for
from embedstore.retrieval.search import CANDIDATES, dense_hits, lexical_hits, search
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


def test_signals_read_gaps_overlap_and_bm25_per_term_off_the_two_lists() -> None:
    dense = [(i, 0.9 - 0.05 * i) for i in range(12)]  # 0.9, 0.85, ... 0.35
    lexical = [(i + 8, 10.0 - i) for i in range(12)]  # 10, 9, ... ; shares ids 8..9 of top 10
    got = dict(zip(fusion_rule.SIGNALS, signals(dense, lexical, terms=4), strict=True))
    assert got["dense_gap"] == pytest.approx(0.05)
    assert got["dense_spread"] == pytest.approx(0.45)
    assert got["lexical_gap"] == pytest.approx(0.1)
    assert got["lexical_spread"] == pytest.approx(0.9)
    assert got["overlap"] == pytest.approx(0.2)
    assert got["bm25_per_term"] == pytest.approx(math.log1p(10.0 / 4))
    assert got["terms"] == pytest.approx(math.log1p(4))


def test_a_side_with_one_result_or_none_gives_finite_signals_and_a_weight_in_range() -> None:
    for dense, lexical in [([], []), ([("a", 0.3)], []), ([], [("a", 2.0)])]:
        values = signals(dense, lexical, terms=0)
        assert all(math.isfinite(v) for v in values)
        assert fusion_rule.LOWEST <= dense_weight(values) <= fusion_rule.HIGHEST


def test_the_weight_stays_in_range_for_extreme_signals() -> None:
    for value in (-1e6, 0.0, 1e6):
        weight = dense_weight([value] * len(fusion_rule.SIGNALS))
        assert fusion_rule.LOWEST <= weight <= fusion_rule.HIGHEST


FILES = {
    "server/paths.py": "def data_file_path(name):\n    return ROOT / 'data' / name\n",
    "server/http.py": "def serve_forever(port):\n    loop.run(port)\n",
    "server/files.py": "def read_data_file(path):\n    return open(path).read()\n",
    "client/paths.js": "function dataFilePath(name) {\n  return root + '/data/' + name;\n}\n",
}


def test_hybrid_search_fuses_with_the_query_s_own_weight(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    store = Store()
    index_folder(store, tmp_path, IndexOptions(name="repo", encoder=FAKE_SPEC))
    collection = store.open("repo")
    query = "path of a data file"
    vector = collection.query_encoder.encode([query], kind="query")
    dense = dense_hits(collection, vector, CANDIDATES, SearchFilters(), None, None)
    lexical = lexical_hits(collection, query, CANDIDATES, None)
    expected = fuse(dense, lexical, CANDIDATES, weight_for(query, dense, lexical))
    hits = search(collection, query, k=4)
    assert [(h.id, h.score) for h in hits] == [(i, pytest.approx(s)) for i, s in expected[:4]]


def _weight(dense_scores: list[float], bm25_scores: list[float]) -> float:
    dense = [(f"d{i}", s) for i, s in enumerate(dense_scores)]
    lexical = [(f"l{i}", s) for i, s in enumerate(bm25_scores)]
    return dense_weight(signals(dense, lexical, terms=5))


def test_a_peaked_dense_list_is_trusted_more_and_a_peaked_bm25_list_less() -> None:
    flat_bm25 = [10.0 - 0.1 * i for i in range(12)]
    peaked_dense = [0.8] + [0.5 - 0.01 * i for i in range(11)]
    flat_dense = [0.6 - 0.002 * i for i in range(12)]
    assert _weight(peaked_dense, flat_bm25) > _weight(flat_dense, flat_bm25)
    peaked_bm25 = [20.0] + [8.0 - 0.1 * i for i in range(11)]
    assert _weight(flat_dense, peaked_bm25) < _weight(flat_dense, flat_bm25)
