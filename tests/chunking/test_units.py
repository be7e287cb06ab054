"""Search returns whole definitions: one result per unit, full ranges, k-independent."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from embedstore.errors import OutdatedCollectionError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import SEARCH_MODES, SearchResult, search
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

# The fake encoder's budget is 128 "tokens" (words): `export_html` is cut into pieces.
LONG_BODY = "\n".join(
    f"        segment_{i} = render_html_fragment(console_record_{i}, theme_colour, inline_styles)"
    for i in range(60)
)
FILES = {
    "console.py": (
        "import html\n\n\n"
        "class Console:\n"
        "    def __init__(self, width):\n"
        "        self.width = width\n\n"
        "    @property\n"
        "    def export_html(self, theme_colour, inline_styles):\n"
        f"{LONG_BODY}\n"
        "        return html_document\n\n"
        "    def export_text(self):\n"
        "        return plain_text_record\n"
    ),
    "client.py": (
        "class BaseClient:\n"
        "    def send(self, request):\n"
        "        return transport.send(request)\n\n"
        "    def close(self):\n"
        "        transport.close()\n\n\n"
        "def base_url(host, port):\n"
        "    return f'http://{host}:{port}'\n"
    ),
    "misc.py": "\n\n".join(
        f"def helper_{i}(value):\n    return value * {i} + render_html_fragment(value)"
        for i in range(30)
    ),
}


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    repo = tmp_path / "repo"
    repo.mkdir()
    for rel, text in FILES.items():
        (repo / rel).write_text(text)
    the_store = Store(tmp_path / "store")
    index_folder(the_store, repo, IndexOptions(name="repo", encoder=FAKE_SPEC))
    return the_store


def export_html_lines() -> tuple[int, int]:
    lines = FILES["console.py"].split("\n")
    start = lines.index("    @property") + 1
    return start, lines.index("        return html_document") + 1


def test_a_long_definition_is_stored_as_one_unit_of_several_chunks(store: Store) -> None:
    start, end = export_html_lines()
    with sqlite3.connect(store.root / "repo" / "meta.sqlite") as conn:
        (pieces,) = conn.execute(
            "SELECT COUNT(c.id) FROM units u JOIN chunks c ON c.unit_id = u.id "
            "WHERE u.start_line = ? AND u.end_line = ? GROUP BY u.id", (start, end),
        ).fetchone()
    assert pieces > 1


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_results_are_whole_definitions_never_two_pieces_of_one(store: Store, mode: str) -> None:
    hits = search(store.open("repo"), "render html fragment segment theme colour", k=40, mode=mode)
    start, end = export_html_lines()
    mine = [h for h in hits if h.path == "console.py" and h.symbol == "Console.export_html"]
    assert len(mine) == 1
    (hit,) = mine
    assert (hit.start_line, hit.end_line) == (start, end)  # the decorator line onwards
    assert start <= hit.match_start_line <= hit.match_end_line <= end
    assert hit.text.split("\n")[0] == "    @property"
    assert hit.text.split("\n")[-1] == "        return html_document"
    for a in hits:
        for b in hits:
            if a is not b and a.path == b.path:
                apart = a.end_line < b.start_line or b.end_line < a.start_line
                assert apart or _class_around(a, b) or _class_around(b, a), (a, b)


def _class_around(outer: SearchResult, inner: SearchResult) -> bool:
    """A class is a unit of its own around its members' units."""
    return outer.kind == "class" and outer.start_line <= inner.start_line <= inner.end_line <= (
        outer.end_line
    )


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_first_results_do_not_depend_on_k(store: Store, mode: str) -> None:
    collection = store.open("repo")
    for query in ("render html fragment", "close the transport", "helper value"):
        ten = [(h.path, h.start_line) for h in search(collection, query, k=10, mode=mode)]
        fifty = [(h.path, h.start_line) for h in search(collection, query, k=50, mode=mode)]
        assert ten == fifty[: len(ten)]


def test_plural_query_finds_singular_names(store: Store) -> None:
    hits = search(store.open("repo"), "base URLs", k=3, mode="lexical")
    assert hits[0].symbol == "base_url"


def test_own_name_outweighs_the_enclosing_class(store: Store) -> None:
    hits = search(store.open("repo"), "base url", k=5, mode="lexical")
    assert hits[0].symbol == "base_url"


def test_a_query_of_only_stop_words_finds_nothing_lexically(store: Store) -> None:
    assert search(store.open("repo"), "if not return with the self", k=5, mode="lexical") == []


def test_a_collection_of_the_old_format_asks_for_a_rebuild(store: Store, tmp_path: Path) -> None:
    db_file = store.root / "repo" / "meta.sqlite"
    with sqlite3.connect(db_file) as conn:
        conn.execute("PRAGMA user_version = 0")
    with pytest.raises(OutdatedCollectionError, match="--rebuild"):
        store.open("repo")
    report = index_folder(
        store, tmp_path / "repo", IndexOptions(name="repo", encoder=FAKE_SPEC, rebuild=True)
    )
    assert report.units_total > 0
    assert search(store.open("repo"), "base url", k=1, mode="lexical")
