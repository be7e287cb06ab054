from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import pytest

from embedstore.ingest import sources


@pytest.fixture
def repo_root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def write_tree(repo_root: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    """Write ``{rel_path: content}`` under ``repo_root`` and return the root.

    ``str`` content is written byte for byte (no newline translation), so a
    test controls exactly which line endings are on disk.
    """

    def write(files: Mapping[str, str | bytes]) -> Path:
        for rel_path, content in files.items():
            path = repo_root / rel_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode() if isinstance(content, str) else content)
        return repo_root

    return write


@pytest.fixture
def listed_folders(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the walker lists, as POSIX paths relative to ``repo_root``.

    Proves pruning: a skipped folder must never be listed at all.
    """
    listed: list[str] = []
    real_scandir = os.scandir
    resolved_root = repo_root.resolve()

    def recording_scandir(path: Path) -> Iterator[os.DirEntry[str]]:
        listed.append(Path(path).relative_to(resolved_root).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(sources.os, "scandir", recording_scandir)
    return listed


@pytest.fixture
def read_files(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files opened for reading, as POSIX paths relative to ``repo_root``.

    Proves that cheap checks (extension, size) run before a file is read.
    """
    opened: list[str] = []
    real_open = Path.open
    resolved_root = repo_root.resolve()

    def recording_open(path: Path, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:
        if "r" in mode:
            opened.append(path.resolve().relative_to(resolved_root).as_posix())
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", recording_open)
    return opened
