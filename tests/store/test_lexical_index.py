"""The BM25 segment of a large collection answers exactly what FTS5's bm25() answers.

Real SQLite FTS5, real files: the collection is embedstore's own source (real
code, real docstrings) indexed with the fake encoder, which lexical search
never uses. ``MIN_UNITS`` is lowered so that this small collection keeps a
segment; every comparison is of identical ids and identical doubles.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.errors import LexicalIndexError
from embedstore.indexes.segment_file import read_segment
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.lexical import fts_query, query_terms
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import search
from embedstore.store import db, lexical_index
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

SOURCE = Path(__file__).resolve().parents[2] / "embedstore"
DOCSTRING = re.compile(r'"""([^\n"]{12,})')


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def segmented(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_index, "MIN_UNITS", 0)


def index(store: Store, root: Path) -> None:
    index_folder(store, root, IndexOptions(name="src", encoder=FAKE_SPEC))


def queries(collection: Collection, count: int = 60) -> list[str]:
    texts = [r[0] for r in collection.conn.execute("SELECT text FROM units ORDER BY id")]
    found = sorted({m.group(1) for t in texts for m in DOCSTRING.finditer(t)})
    step = max(1, len(found) // count)
    return [*found[::step][:count], "parse config", "encode batch tokens", "zzz_no_such_term"]


def assert_same_as_fts5(collection: Collection, file_ids: list[int] | None = None) -> int:
    """Compare the segment with FTS5 on every query, k = 10 and 100; returns queries compared."""
    view = collection.lexical_view()
    assert view is not None
    allowed = None if file_ids is None else db.unit_ids_of_files(collection.conn, file_ids)
    compared = 0
    for query in queries(collection):
        match = fts_query(query)
        if match is None:
            continue
        for k in (10, 100):
            expected = db.lexical_search(collection.conn, match, k, file_ids)
            assert view.top(query_terms(query), k, allowed) == expected, query
        compared += 1
    return compared


def test_the_segment_ranks_and_scores_as_fts5(
    tree: Path, segmented: None, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, tree)
    collection = store.open("src")
    assert (collection.path / lexical_index.SEGMENT_FILE).exists()
    shown = CliRunner().invoke(app, ["info", "src", "--store", str(store.root), "--json"])
    assert json.loads(shown.stdout)["lexical_index"] == "bm25-segment"
    assert assert_same_as_fts5(collection) >= 40
    paths = {r[1]: r[0] for r in collection.conn.execute("SELECT id, path FROM files")}
    some = [paths[p] for p in sorted(paths) if p.startswith("store/")]
    assert assert_same_as_fts5(collection, some) >= 40


def test_edits_after_the_segment_are_read_from_sqlite(
    tree: Path, segmented: None, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexical_index, "REBUILD_FRACTION", 1.0)  # keep the first segment
    store = Store()
    index(store, tree)
    token = lexical_index.segment_state(store.open("src").conn).token  # type: ignore[union-attr]
    (tree / "retrieval" / "search.py").write_text(
        "def fresh_lookup_term():\n    return 'zebra quagga'\n"
    )
    (tree / "retrieval" / "fusion.py").unlink()
    (tree / "added.py").write_text('def okapi_ranking():\n    """Rank by okapi."""\n')
    index(store, tree)
    collection = store.open("src")
    state = lexical_index.segment_state(collection.conn)
    assert state is not None and state.token == token and state.changed > 0
    view = collection.lexical_view()
    assert view is not None and view.alive is not None and not view.alive.all()
    assert view.newer.unit_ids.size >= 2
    assert_same_as_fts5(collection)
    hits = view.top(["okapi"], 5)
    assert [collection.conn.execute("SELECT symbol FROM units WHERE id = ?", (i,)).fetchone()[0]
            for i, _ in hits] == ["okapi_ranking"]


def test_the_writer_rebuilds_a_segment_that_fell_behind(
    tree: Path, segmented: None, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    index(store, tree)
    before = lexical_index.segment_state(store.open("src").conn)
    monkeypatch.setattr(lexical_index, "REBUILD_FRACTION", 0.0)  # any change is too much
    (tree / "added.py").write_text("def okapi_ranking():\n    return 1\n")
    index(store, tree)
    after = lexical_index.segment_state(store.open("src").conn)
    assert before is not None and after is not None
    assert after.token != before.token and after.changed == 0


@pytest.mark.parametrize("damage", ["truncate", "foreign"])
def test_a_damaged_or_foreign_segment_is_rebuilt_by_a_reader(
    tree: Path, segmented: None, fake_encoder: FakeEncoder, damage: str
) -> None:
    store = Store()
    index(store, tree)
    path = store.open("src").path / lexical_index.SEGMENT_FILE
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:-100])
        with pytest.raises(LexicalIndexError, match="damaged"):
            read_segment(path)
    else:  # a crash after writing a new file, before the database recorded it
        segment, _ = read_segment(path)
        from embedstore.indexes.segment_file import write_segment

        write_segment(path, segment, {"token": "not-the-recorded-one"})
    collection = store.open("src")
    assert assert_same_as_fts5(collection) >= 40
    _, header = read_segment(path)
    assert header["token"] == lexical_index.segment_state(collection.conn).token  # type: ignore[union-attr]


def test_search_gives_the_same_results_with_and_without_a_segment(
    tree: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    index(store, tree)  # default MIN_UNITS: this collection is far below it
    collection = store.open("src")
    assert collection.lexical_view() is None
    assert not (collection.path / lexical_index.SEGMENT_FILE).exists()
    filters = SearchFilters(include=("store/",))
    wanted = {
        (q, mode, f is None): [(r.id, r.score) for r in search(collection, q, 10, mode=mode,
                                                                   filters=f)]
        for q in queries(collection, 15) for mode in ("lexical", "hybrid") for f in (None, filters)
    }
    monkeypatch.setattr(lexical_index, "MIN_UNITS", 0)
    fresh = store.open("src")
    assert fresh.lexical_view() is not None  # built by the reader, as a missing FAISS file is
    for (q, mode, unfiltered), expected in wanted.items():
        got = search(fresh, q, 10, mode=mode, filters=None if unfiltered else filters)
        assert [(r.id, r.score) for r in got] == expected, (q, mode)


def test_a_collection_that_shrinks_below_the_threshold_drops_its_segment(
    tree: Path, segmented: None, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    index(store, tree)
    path = store.open("src").path / lexical_index.SEGMENT_FILE
    assert path.exists()
    monkeypatch.setattr(lexical_index, "MIN_UNITS", 10**9)
    (tree / "added.py").write_text("def okapi_ranking():\n    return 1\n")
    index(store, tree)
    assert not path.exists()
    assert lexical_index.segment_state(store.open("src").conn) is None


def test_a_segment_that_cannot_be_written_leaves_fts5_answering(
    tree: Path, segmented: None, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Disk full or a read-only folder: the index run still commits, search still ranks."""

    def refuse(path: Path, *_: object) -> None:
        raise LexicalIndexError(f"cannot write the BM25 segment {path}: No space left on device")

    monkeypatch.setattr(lexical_index, "write_segment", refuse)
    store = Store()
    index(store, tree)
    collection = store.open("src")
    assert lexical_index.segment_state(collection.conn) is None
    assert collection.lexical_view() is None
    hits = search(collection, "parse config", 5, mode="lexical")
    expected = db.lexical_search(collection.conn, fts_query("parse config") or "", 5)
    assert [(h.id, h.lexical_score) for h in hits] == expected
