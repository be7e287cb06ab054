"""Issue 30, G4: one damaged collection made `search` and `context` without --name fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app as cli_app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.collection import DB_FILE
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


def garbage_database(folder: Path) -> None:
    """Met when the collection is opened; the log goes too (it may hold the real header)."""
    for log in folder.glob(f"{DB_FILE}-*"):
        log.unlink()
    (folder / DB_FILE).write_bytes(b"\xde\xad\xbe\xef" * 1024)


def garbage_pages(folder: Path) -> None:
    """Met by a query: the header and schema stay, the pages after them do not."""
    path = folder / DB_FILE
    page = 4096
    with open(path, "r+b") as fh:
        for offset in range(2 * page, path.stat().st_size, page):
            fh.seek(offset)
            fh.write(os.urandom(page))


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    store = Store()
    for name, word in (("good", "alpha"), ("bad", "beta")):
        repo = tmp_path / name
        repo.mkdir()
        for i in range(40):
            (repo / f"m{i}.py").write_text(f"def {word}_{i}():\n    return '{word} {i}'\n")
        index_folder(store, repo, IndexOptions(name=name, encoder=FAKE_SPEC))
    return store


@pytest.mark.parametrize("damage", [garbage_database, garbage_pages])
@pytest.mark.parametrize("command", [["search", "alpha 3"], ["context", "alpha 3"],
                                     ["search", "alpha 3", "--mode", "lexical"]])
def test_the_others_answer_and_one_line_names_the_skipped_one(
    store: Store, damage: object, command: list[str]
) -> None:
    damage(store.root / "bad")  # type: ignore[operator]
    result = CliRunner().invoke(cli_app, command)
    assert result.exit_code == 0, result.stderr
    assert "alpha_3" in result.stdout
    notes = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and notes[0].startswith("note: skipped 1 collection(s): 'bad'")
    assert "damaged" in notes[0]
