"""Crash-safe file replacement, and the sweep of what a killed writer leaves behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

# Every temporary file of replace_atomically is named ".<target>.<random>.tmp".
TEMP_SUFFIX = ".tmp"


def replace_atomically(path: Path, chunks: Iterable[bytes | memoryview]) -> None:
    """Replace ``path`` by the concatenated ``chunks`` so that a crash leaves one or the other.

    The bytes go to a temporary file in the same folder (a rename cannot be
    atomic across file systems), are fsynced, replace ``path`` in one
    ``os.replace``, and the folder is fsynced so the rename survives a power cut.
    The temporary name is unique per call, so concurrent writers of one path
    (threads or processes) never rename each other's files.
    """
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def sweep_temp_files(folder: Path) -> int:
    """Delete the temporary files of writers killed before their rename; returns how many.

    Only safe while holding the folder's write lock: a live writer's file would go too.
    """
    swept = 0
    for path in folder.glob(f".*{TEMP_SUFFIX}"):
        path.unlink(missing_ok=True)
        swept += 1
    return swept


def _fsync_directory(directory: Path) -> None:
    # Only POSIX can open a directory to flush the rename; elsewhere
    # os.replace is as durable as the platform allows.
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
