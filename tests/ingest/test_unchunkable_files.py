"""No single file can abort an index run (issue 30 G6): an overlong path is shortened in
what is embedded, a file that cannot be chunked is left out and named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from embedstore.ingest import chunk as chunk_stage
from embedstore.ingest.chunk import ELIDED, PATH_SHARE, header_path
from embedstore.ingest.indexer import IndexOptions, IndexReport, index_folder
from embedstore.ingest.watch import describe
from embedstore.store import db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

DEEP = "/".join(["d"] * 500) + "/deep.py"  # 1,000 characters of folders
LONG = "/".join(["segment_" + "x" * 200] * 4) + "/long.py"


def by_characters(texts: list[str]) -> list[int]:
    """A tokenizer's rough count (4 characters a token, 2 specials), so paths cost tokens."""
    return [len(text) // 4 + 2 for text in texts]


def write(root: Path, files: dict[str, str]) -> Path:
    for rel_path, text in files.items():
        path = root / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def paths_indexed(store: Store, name: str) -> list[str]:
    return sorted(db.files_by_path(store.open(name).conn))


def test_a_path_within_its_share_is_its_own_header(fake_encoder: FakeEncoder) -> None:
    # Unchanged, so that no other file's embedded texts, hence vector keys, move.
    header = header_path("pkg/sub/module.py", 7, fake_encoder)
    assert (header.text, header.tokens) == ("pkg/sub/module.py", 7)


def test_an_overlong_path_keeps_its_last_segments_within_its_share(
    fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fake_encoder, "count_tokens", by_characters)
    cap = fake_encoder.max_tokens // PATH_SHARE
    header = header_path(DEEP, by_characters([DEEP])[0], fake_encoder)
    assert header.text.startswith(ELIDED) and header.text.endswith("/d/d/deep.py")
    assert header.tokens == by_characters([header.text])[0] <= cap
    # The most segments that fit: one more would not.
    one_more = ELIDED + "d/" + header.text.removeprefix(ELIDED)
    assert by_characters([one_more])[0] > cap
    # A name over the share alone keeps its last characters.
    name = "n" * 300 + ".py"
    alone = header_path(name, by_characters([name])[0], fake_encoder)
    assert alone.text.startswith(ELIDED) and alone.text.endswith("nnn.py")
    assert alone.tokens <= cap


def test_files_with_overlong_paths_are_indexed_with_shortened_headers(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fake_encoder, "count_tokens", by_characters)
    root = write(tmp_path / "repo", {
        DEEP: "def deep_function():\n    return 1\n",
        LONG: "def long_function():\n    return 2\n",
        "ok.py": "def ok_function():\n    return 3\n",
    })
    store = Store()

    report = index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC))

    assert report.unchunkable == {}
    assert paths_indexed(store, "repo") == sorted([DEEP, LONG, "ok.py"])
    headers = {text.split("\n", 1)[0] for text in fake_encoder.encoded}
    assert "ok.py" in headers  # a short path is embedded as it was
    assert any(h.startswith(ELIDED) and h.endswith("/d/deep.py") for h in headers)
    assert any(h.startswith(ELIDED) and h.endswith("/long.py") for h in headers)
    assert all(by_characters([h])[0] <= fake_encoder.max_tokens // PATH_SHARE for h in headers)


def test_a_file_that_cannot_be_chunked_is_left_out_and_named(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write(tmp_path / "repo", {
        "bad.py": "def explodes():\n    return 'boom'\n",
        "good.py": "def fine():\n    return 1\n",
    })
    real_chunk_file = chunk_stage.chunk_file

    def fragile(text: str, *args: object, **kwargs: object) -> object:
        if "boom" in text:
            raise ValueError("grammar exploded")
        return real_chunk_file(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chunk_stage, "chunk_file", fragile)
    store = Store()

    report = index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC))

    assert report.unchunkable == {"bad.py": "grammar exploded"}
    assert paths_indexed(store, "repo") == ["good.py"]
    assert report.left_out() == ["could not chunk 1 file(s), left out: bad.py (grammar exploded)"]


def test_the_cli_indexes_files_whose_paths_alone_overrun_the_budget(tmp_path: Path) -> None:
    # The real default model and tokenizer: 500 folders deep, and a path of 250+ tokens.
    root = write(tmp_path / "repo", {
        DEEP: "def deep_function():\n    return 1\n",
        "/".join(["zq_xw_vk" * 20] * 4) + "/x.py": "def x():\n    return 2\n",
        "ok.py": "def ok_function():\n    return 3\n",
    })
    done = subprocess.run(
        [sys.executable, "-m", "embedstore", "index", str(root), "--store", str(tmp_path / "s")],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "3 files scanned" in done.stdout and "3 definitions" in done.stdout, done.stdout


def test_the_summary_names_ten_files_then_counts_the_rest() -> None:
    report = IndexReport("repo", files_new=12, unchunkable={f"f{i}.py": "why" for i in range(12)})
    (line,) = report.left_out()
    assert line.startswith("could not chunk 12 file(s), left out: f0.py (why), f1.py (why)")
    assert line.endswith("f9.py (why) and 2 more")
    assert "; could not chunk 12 file(s)" in describe(report)
