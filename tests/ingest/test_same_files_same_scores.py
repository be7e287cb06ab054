"""Same files, same answer (issue 30 G8): an index equal in units gives equal scores,
whatever its history. The real default model: its batches round differently with other
company (1e-3 in bf16), which a fake encoder would not show."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import search
from embedstore.store.store import Store

STDLIB = Path(sysconfig.get_paths()["stdlib"])
QUERIES = ["split a shell command line into words", "wrap text to a given width",
           "remove common leading whitespace", "quote a string for the shell"]


def dense_answers(store: Store, name: str) -> list[list[tuple[str, int, float]]]:
    collection = store.open(name)
    return [[(hit.path, hit.start_line, hit.score)
             for hit in search(collection, query, k=10, mode="dense")] for query in QUERIES]


def test_v1_then_v2_then_v1_scores_as_a_fresh_v1(tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    v1.mkdir()
    for name in ("shlex.py", "textwrap.py"):
        shutil.copy(STDLIB / name, v1 / name)
    repo = tmp_path / "repo"
    shutil.copytree(v1, repo)
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="churned"))
    for path in repo.iterdir():  # v2: every definition renamed
        path.write_text(path.read_text().replace("def ", "def v2_"))
    assert index_folder(store, repo, IndexOptions(name="churned")).files_changed == 2
    shutil.rmtree(repo)
    shutil.copytree(v1, repo)  # and back to v1
    back = index_folder(store, repo, IndexOptions(name="churned"))
    index_folder(store, repo, IndexOptions(name="fresh"))

    churned, fresh = dense_answers(store, "churned"), dense_answers(store, "fresh")

    for after_churn, first_time in zip(churned, fresh, strict=True):
        assert [hit[:2] for hit in after_churn] == [hit[:2] for hit in first_time]
        for (_, _, a), (_, _, b) in zip(after_churn, first_time, strict=True):
            assert abs(a - b) <= 1e-6
    assert back.files_changed == 2 and back.chunks_encoded == 0  # v1's own vectors again
