"""The code at a cursor for `context --at PATH:LINE[:COLUMN]` and `--code FILE|-`: parsed and
read with one-line errors, from regular files of bounded size only."""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import typer

from embedstore.errors import UserInputError
from embedstore.retrieval.cursor_split import CursorOutOfRangeError, split_at_cursor

# code_context.MAX_CODE_CHARS, not imported: parsing --at must not wait for code_context to
# load the whole retrieval stage.
# A file of this many bytes holds at most this many characters.
MAX_SOURCE_BYTES = 1_000_000
_LINE = re.compile(r"[0-9]+")  # ASCII digits: str.isdigit() takes "²", which int() refuses


@dataclass(frozen=True)
class Cursor:
    """``--at PATH:LINE[:COLUMN]``: the cursor before the ``column``th character (1-based)
    of ``line`` (1-based) of ``file``, an editor's cursor mid-line; at its start by default."""

    file: Path
    line: int
    column: int = 1


def parse_at(at: str) -> Cursor:
    """``PATH:LINE`` or ``PATH:LINE:COLUMN`` as a Cursor; a usage error that says what is
    wrong otherwise."""
    file, colon, last = at.rpartition(":")
    if not colon or not file:
        raise typer.BadParameter(
            f"{at!r} has no line: write PATH:LINE, e.g. {at or 'app.py'}:42", param_hint="'--at'"
        )
    head, colon, line = file.rpartition(":")
    if colon and head and _LINE.fullmatch(line):  # PATH:LINE:COLUMN
        file, column = head, last
        if not _LINE.fullmatch(column) or int(column) < 1:
            raise typer.BadParameter(
                f"{column!r} in {at!r} is not a column: write PATH:LINE:COLUMN with COLUMN "
                f"a whole number of characters from 1, e.g. {file}:{line}:5",
                param_hint="'--at'",
            )
    else:
        line, column = last, "1"
    if not _LINE.fullmatch(line) or int(line) < 1:
        raise typer.BadParameter(
            f"{line!r} in {at!r} is not a line number: write PATH:LINE with LINE a whole "
            f"number from 1, e.g. {file}:42",
            param_hint="'--at'",
        )
    return Cursor(Path(file), int(line), int(column))


def cursor_code(
    at: Cursor | None, code: str | None, path: str | None, source_root: str | None
) -> tuple[str, str | None, str | None]:
    """(code before the cursor, code after it, the file's path in the collection)."""
    if code is not None:
        text = read_stdin() if code == "-" else read_source(Path(code))
        return text, None, path
    assert at is not None
    try:
        before, after = split_at_cursor(read_source(at.file), at.line, at.column,
                                        name=at.file.name)
    except CursorOutOfRangeError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--at'") from None
    return before, after, collection_path(at.file, source_root)


def read_source(file: Path) -> str:
    """A regular file's text, refused above MAX_SOURCE_BYTES: a device (/dev/zero) would
    never end and a FIFO would wait for a writer."""
    try:
        # Non-blocking, so that opening a FIFO returns at once and fstat can refuse it.
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise UserInputError(f"cannot read {str(file)!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserInputError(f"{str(file)!r} is not a regular file: give a source file")
        if info.st_size > MAX_SOURCE_BYTES:
            raise UserInputError(_too_large(str(file), info.st_size))
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:  # it grew since fstat
        raise UserInputError(_too_large(str(file), len(data)))
    return data.decode("utf-8", errors="replace")


def read_stdin() -> str:
    """``--code -``: stdin, bounded as a file is."""
    text = sys.stdin.read(MAX_SOURCE_BYTES + 1)
    if len(text) > MAX_SOURCE_BYTES:
        raise UserInputError(
            f"stdin holds more than {MAX_SOURCE_BYTES:,} characters: code-at-cursor reads at "
            "most that"
        )
    return text


def _too_large(name: str, size: int) -> str:
    return (f"{name!r} is {size:,} bytes: code-at-cursor reads files of up to "
            f"{MAX_SOURCE_BYTES:,} bytes")


def collection_path(file: Path, source_root: str | None) -> str | None:
    """``file`` relative to the indexed folder, if it lies in it."""
    if source_root is None:
        return None
    resolved = file.resolve()
    root = Path(source_root)
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else None
