"""Freshness from stat calls: index, touch, add, delete, re-index; git HEAD and git listing.

Real SQLite and FAISS, the fake encoder; real git where a test needs a repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.ingest import freshness
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.ingest.sources import ScanStats, file_stamps, walk_sources
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write(tmp_path / "repo", {
        "app.py": "def main():\n    return run_server()\n",
        "lib/util.py": "def helper(x):\n    return x * 2\n",
        # Skipped for its content (a NUL byte): its stamp counts all the same.
        "blob.dat": b"\x00\x01binary",
    })


def index(store: Store, root: Path) -> None:
    index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC))


def check(store: Store) -> freshness.Freshness:
    collection = store.open("repo")
    try:
        return freshness.check(collection)
    finally:
        collection.close()


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
         "-c", "init.defaultBranch=main", *args],
        cwd=root, capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def bump_mtime(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def test_fresh_after_index_then_stale_after_touch_then_fresh_again(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    fresh = check(store)
    assert fresh.stale is False and fresh.changed_files == 0
    assert fresh.indexed_at is not None and fresh.git_head is None

    bump_mtime(repo / "app.py")  # same bytes, new mtime: stat alone cannot tell it apart
    touched = check(store)
    assert touched.stale is True and (touched.modified, touched.added, touched.removed) == (1, 0, 0)

    index(store, repo)
    again = check(store)
    assert again.stale is False
    assert again.indexed_at is not None and again.indexed_at >= fresh.indexed_at


def test_added_removed_and_resized_files_are_counted(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    index(store, repo)
    (repo / "lib" / "util.py").unlink()
    write(repo, {"new.py": "x = 1\n", "app.py": "def main():\n    return 0\n"})
    fresh = check(store)
    assert fresh.stale is True
    assert (fresh.added, fresh.removed, fresh.modified, fresh.changed_files) == (1, 1, 1, 3)


def test_ignored_and_vendored_files_never_make_it_stale(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    write(repo, {".gitignore": "*.log\n"})
    index(store, repo)
    write(repo, {"debug.log": "noise\n", "node_modules/x/index.js": "module.exports = 1;\n",
                 "logo.png": "an image by its name\n"})
    assert check(store).stale is False


def test_a_watcher_touch_counts_even_when_the_stamp_is_unchanged(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    collection = store.open("repo")
    try:
        fresh = freshness.check(collection, touched=["app.py", "not-indexed.py"])
    finally:
        collection.close()
    assert fresh.stale is True and fresh.modified == 1 and fresh.added == 0


def test_stamps_of_a_scan_equal_those_of_a_stat_only_listing(repo: Path) -> None:
    stats = ScanStats()
    kept = [s.rel_path for s in walk_sources(repo, stats=stats)]
    assert kept == ["app.py", "lib/util.py"]
    assert stats.stamps == file_stamps(repo)
    assert set(stats.stamps) == {"app.py", "blob.dat", "lib/util.py"}


def test_unknown_for_a_collection_indexed_before_stamps_or_a_folder_gone(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    collection = store.open("repo")
    collection.conn.execute("DROP TABLE file_stamps")  # as an older embedstore left it
    collection.close()
    older = check(store)
    assert older.stale is None and older.unknown and "older embedstore" in older.unknown

    index(store, repo)
    shutil.rmtree(repo)
    gone = check(store)
    assert gone.stale is None and gone.unknown and "gone" in gone.unknown


def test_list_and_info_show_when_indexed_and_whether_stale(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    runner = CliRunner()
    listed = runner.invoke(app, ["list", "--json"])
    assert listed.exit_code == 0, listed.output
    row = json.loads(listed.stdout)["collections"][0]
    assert row["freshness"]["stale"] is False and row["freshness"]["indexed_at"]

    write(repo, {"more.py": "def extra():\n    pass\n"})
    table = runner.invoke(app, ["list"])
    assert table.exit_code == 0, table.output
    assert "yes (1 file)" in table.stdout
    shown = runner.invoke(app, ["info", "repo"])
    assert shown.exit_code == 0, shown.output
    assert "stale: yes: 1 added, 0 removed, 0 modified" in shown.stdout
    assert "indexed_at: 20" in shown.stdout


@needs_git
def test_git_head_is_recorded_and_git_decides_what_is_listed(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = write(tmp_path / "gitrepo", {
        ".gitignore": "*.gen.py\nbuild/\n",
        ".embedstoreignore": "docs/\n",
        "main.py": "def main():\n    pass\n",
        "forced.gen.py": "def forced():\n    pass\n",  # ignored, but tracked: git keeps it
        "local.gen.py": "def local():\n    pass\n",  # ignored and untracked: left out
        "untracked.py": "def fresh():\n    pass\n",  # untracked, not ignored: listed
        "docs/guide.md": "# Guide\n",  # excluded by .embedstoreignore
        "vendor/lib.py": "def vendored():\n    pass\n",  # tracked, but vendored
        "build/out.py": "def built():\n    pass\n",
    })
    git(root, "init", "-q")
    git(root, "add", ".gitignore", ".embedstoreignore", "main.py", "vendor/lib.py", "docs")
    git(root, "add", "-f", "forced.gen.py")
    git(root, "commit", "-q", "-m", "first")
    head = git(root, "rev-parse", "HEAD")
    stats = ScanStats()

    kept = [s.rel_path for s in walk_sources(root, stats=stats)]

    assert kept == [".embedstoreignore", ".gitignore", "forced.gen.py", "main.py", "untracked.py"]
    assert stats.skipped["vendored"] == 1 and stats.skipped["ignored"] == 1
    store = Store()
    index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC))
    fresh = check(store)
    assert fresh.git_head == head and fresh.stale is False
    write(root, {"build/again.py": "x = 2\n", "local2.gen.py": "y = 1\n"})  # ignored by git
    assert check(store).stale is False
    write(root, {"another.py": "z = 3\n"})
    assert check(store).added == 1


@needs_git
def test_without_a_working_git_the_folder_is_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write(tmp_path / "gitrepo", {".gitignore": "skip.py\n", "keep.py": "x = 1\n",
                                        "skip.py": "y = 2\n"})
    git(root, "init", "-q")
    git(root, "add", "-f", "skip.py")  # tracked: git would list it, a walk ignores it
    with_git = [s.rel_path for s in walk_sources(root)]
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries-here"))

    walked = [s.rel_path for s in walk_sources(root)]

    assert with_git == [".gitignore", "keep.py", "skip.py"]
    assert walked == [".gitignore", "keep.py"]
