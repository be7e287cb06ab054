"""The code at a cursor given as a file and a line: read from the collection's own folder.

An agent names a file it is editing; the server reads it, so only a regular file
inside the indexed folder is read (no FIFO that would block, no device, no path
that leads out of the folder through ``..`` or a link), and only up to the size
code-at-cursor takes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from embedstore.errors import UserInputError
from embedstore.retrieval.code_context import MAX_CODE_CHARS
from embedstore.retrieval.cursor_split import split_at_cursor


@dataclass(frozen=True)
class Cursor:
    before: str
    after: str
    path: str  # relative to the collection's folder, as the index names it


def read_cursor(
    source_root: str | None, collection: str, path: str, line: int, column: int = 1
) -> Cursor:
    """The text before and after the cursor before the ``column``th character (1-based) of
    ``line`` (1-based) of ``path``, relative to the collection's folder or absolute inside it."""
    if source_root is None:
        raise UserInputError(
            f"collection {collection!r} holds documents pushed by id, not a folder: "
            "pass the code itself as `code`"
        )
    root = Path(source_root).resolve()
    file = (root / path).resolve()  # an absolute path stays itself
    if not file.is_relative_to(root):
        raise UserInputError(f"{path!r} is not inside {collection!r}'s folder {str(root)!r}")
    before, after = split_at_cursor(_read_regular(file, path), line, column, name=repr(path))
    return Cursor(before=before, after=after, path=file.relative_to(root).as_posix())


def _read_regular(file: Path, named: str) -> str:
    # O_NONBLOCK: opening a FIFO would otherwise wait for a writer. Checked on the open
    # descriptor, so a file swapped after a check cannot slip through.
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise UserInputError(f"cannot read {named!r}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserInputError(f"{named!r} is not a regular file")
        if info.st_size > MAX_CODE_CHARS:
            raise UserInputError(
                f"{named!r} has {info.st_size:,} bytes; code-at-cursor reads at most "
                f"{MAX_CODE_CHARS:,}"
            )
        return os.read(fd, MAX_CODE_CHARS).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
