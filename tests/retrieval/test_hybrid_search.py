"""FTS consistency, modes and filters on a real store (fake encoder, real SQLite + FAISS)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.fusion import DENSE_WEIGHT, fuse
from embedstore.retrieval.fusion_rule import weight_for
from embedstore.retrieval.search import CANDIDATES, best_piece, dense_hits, lexical_hits, search
from embedstore.store import db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

FILES = {
    "server/paths.py": "def data_file_path(name):\n    return ROOT / 'data' / name\n",
    "server/http.py": "def serve_forever(port):\n    loop.run(port)\n",
    "client/paths.js": "function dataFilePath(name) {\n  return root + '/data/' + name;\n}\n",
    "docs/guide.md": "# Data files\n\nWhere the server keeps its data file path.\n",
}


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    repo = tmp_path / "repo"
    for rel, text in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    the_store = Store()
    index_folder(the_store, repo, IndexOptions(name="repo", encoder=FAKE_SPEC))
    return the_store


def fts_rows(store: Store) -> set[int]:
    with sqlite3.connect(store.root / "repo" / "meta.sqlite") as conn:
        return {r[0] for r in conn.execute("SELECT rowid FROM units_fts")}


def unit_ids(store: Store) -> set[int]:
    with sqlite3.connect(store.root / "repo" / "meta.sqlite") as conn:
        return {r[0] for r in conn.execute("SELECT id FROM units")}


def test_exact_identifier_is_found_lexically(store: Store) -> None:
    hits = search(store.open("repo"), "data_file_path", k=3, mode="lexical")
    assert hits[0].path == "server/paths.py"
    assert hits[0].lexical_score is not None and hits[0].dense_score is None


def test_split_words_find_snake_and_camel_case(store: Store) -> None:
    paths = {h.path for h in search(store.open("repo"), "get data file path", k=4, mode="lexical")}
    assert {"server/paths.py", "client/paths.js"} <= paths


def test_hybrid_marks_which_side_found_each_hit(store: Store) -> None:
    hits = search(store.open("repo"), "data file path", k=4)
    assert hits[0].found_by == "dense+lexical"
    assert all(h.found_by for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_weighs_each_query_as_its_two_lists_say(store: Store) -> None:
    collection = store.open("repo")
    query = "data file path"
    vector = collection.query_encoder.encode([query], kind="query")
    dense = dense_hits(collection, vector, CANDIDATES, SearchFilters(), None, None)
    lexical = lexical_hits(collection, query, CANDIDATES, None)
    weight = weight_for(dense, lexical, query)
    assert weight != pytest.approx(DENSE_WEIGHT)
    expected = dict(fuse(dense, lexical, CANDIDATES, weight))
    hits = search(collection, query, k=4)
    assert [h.score for h in hits] == pytest.approx([expected[h.id] for h in hits])


def test_fts_follows_update_and_delete(store: Store, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    assert fts_rows(store) == unit_ids(store)
    (repo / "server" / "paths.py").write_text("def config_dir():\n    return HOME\n")
    (repo / "server" / "http.py").unlink()
    index_folder(store, repo, IndexOptions(name="repo", encoder=FAKE_SPEC))
    assert fts_rows(store) == unit_ids(store)
    collection = store.open("repo")
    assert search(collection, "serve_forever", k=5, mode="lexical") == []
    assert [h.path for h in search(collection, "config_dir", k=1, mode="lexical")] == [
        "server/paths.py"
    ]


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_filters_apply_to_every_side(store: Store, mode: str) -> None:
    collection = store.open("repo")
    only_js = search(collection, "data file path", k=5, mode=mode,
                                filters=SearchFilters(languages=("javascript",)))
    assert {h.path for h in only_js} == {"client/paths.js"}
    not_server = search(collection, "data file path", k=5, mode=mode,
                                   filters=SearchFilters(exclude=("server/",)))
    assert not_server and all(not h.path.startswith("server/") for h in not_server)
    md_only = search(collection, "data file path", k=5, mode=mode,
                                filters=SearchFilters(include=("*.md",)))
    assert {h.path for h in md_only} == {"docs/guide.md"}


def test_min_score_drops_weak_dense_hits(store: Store) -> None:
    collection = store.open("repo")
    everything = search(collection, "data file path", k=10, mode="dense")
    floor = everything[1].dense_score
    assert floor is not None
    kept = search(collection, "data file path", k=10, mode="dense",
                             filters=SearchFilters(min_score=floor))
    assert len(kept) == 2


def test_bad_mode_and_k_list_what_is_valid(store: Store) -> None:
    collection = store.open("repo")
    with pytest.raises(ValueError, match="hybrid, dense, lexical"):
        search(collection, "x", mode="fuzzy")
    with pytest.raises(ValueError, match="between 1 and 1000"):
        search(collection, "x", k=0)


def test_without_a_vector_the_piece_with_most_of_the_querys_terms_matches() -> None:
    pieces = [
        db.PieceRow(1, 1, 40, "def decode(data):\n    return table[data]", b""),
        db.PieceRow(1, 41, 80, "    0x00: 'NULL',\n    0x01: 'START OF HEADING',", b""),
        db.PieceRow(1, 81, 99, "def encoding_table(charmap):\n    return Codec(charmap)", b""),
    ]
    assert best_piece(pieces, "build the encoding tables from a charmap", None, 0) == (81, 99)
    assert best_piece(pieces, "heading", None, 0) == (41, 80)


GO_PACKAGE = {
    "duration.go": (
        "package timeutil\n\nfunc ParseDuration(s string) (Duration, error) {\n"
        "\treturn parse(s)\n}\n"
    ),
    "duration_test.go": (
        "package timeutil\n\nfunc TestParseDuration(t *testing.T) {\n"
        "\t// Parse every duration string with its units.\n"
        "\tfor _, c := range durationStrings {\n\t\td, _ := ParseDuration(c.in)\n"
        "\t\tcheck(t, d, c.want)\n\t}\n}\n"
    ),
    # Others, so that the query's words are rare enough to count.
    **{
        f"{name}.go": f"package timeutil\n\nfunc {name.title()}(x int) int {{\n\treturn x\n}}\n"
        for name in ("round", "truncate", "abs", "sign", "clamp", "zero")
    },
}


@pytest.fixture
def go_package(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    repo = tmp_path / "go"
    repo.mkdir()
    for rel, text in GO_PACKAGE.items():
        (repo / rel).write_text(text)
    the_store = Store()
    index_folder(the_store, repo, IndexOptions(name="go", encoder=FAKE_SPEC))
    return the_store


def test_a_descriptive_query_ranks_code_above_its_tests(go_package: Store) -> None:
    collection = go_package.open("go")

    def ranked(query: str) -> list[str | None]:
        return [h.symbol for h in search(collection, query, k=2, mode="lexical")]

    # The test repeats the query's words: by score alone it comes first...
    assert ranked("parse a duration string with units, as tests do") == [
        "TestParseDuration", "ParseDuration"
    ]
    # ... unless the query describes behaviour.
    assert ranked("parse a duration string with units") == ["ParseDuration", "TestParseDuration"]
    # A query naming the test finds it first.
    assert ranked("TestParseDuration")[0] == "TestParseDuration"


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_unit_gone_from_sqlite_but_in_the_vector_index_costs_no_result(
    store: Store, mode: str
) -> None:
    # A watcher's update can delete units between FAISS's answer and the rows' read: the
    # best vector hit is then a unit SQLite no longer has, and k=1 must still give one.
    collection = store.open("repo")
    vectors = collection.search_vectors

    def with_a_deleted_unit(
        queries: np.ndarray, k: int, **options: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        scores, ids = vectors(queries, k, **options)
        gone = max(unit_ids(store)) + 1000
        return np.concatenate([[[2.0]], scores], 1), np.concatenate([[[gone]], ids], 1)

    collection.search_vectors = with_a_deleted_unit  # type: ignore[method-assign]
    hits = search(collection, "data file path", k=1, mode=mode)
    assert len(hits) == 1 and hits[0].id in unit_ids(store)
