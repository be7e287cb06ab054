"""A cursor in a file's text, as a line and column: the code before it and the code after it,
which code-at-cursor takes. The CLI's ``--at PATH:LINE:COLUMN`` and the MCP tool's ``path``,
``line`` and ``column`` both split here, so both count lines and columns alike."""

from __future__ import annotations

from embedstore.errors import UserInputError


class CursorOutOfRangeError(UserInputError):
    """The line or column names a place past the end of the file or of its line."""


def split_at_cursor(text: str, line: int, column: int = 1, *, name: str) -> tuple[str, str]:
    """(the text before the cursor, the text after it), the cursor before the ``column``th
    character (1-based) of ``line`` (1-based); ``name`` names the file in errors."""
    lines = text.split("\n")
    # A text ending in a newline splits into one more, empty, "line": the cursor may stand
    # there (after the last line), not below it.
    count = len(lines) - 1 if lines[-1] == "" else len(lines)
    if line > count + 1:
        raise CursorOutOfRangeError(
            f"line {line} is past the end of {name} ({count:,} line{'' if count == 1 else 's'})"
        )
    cut = line - 1
    text_line = lines[cut] if cut < len(lines) else ""
    if column > len(text_line) + 1:
        raise CursorOutOfRangeError(
            f"column {column} is past the end of line {line} of {name} ({len(text_line):,} "
            f"character{'' if len(text_line) == 1 else 's'})"
        )
    typed = text_line[: column - 1]
    before = "\n".join(lines[:cut]) + ("\n" if cut else "") + typed
    after = "\n".join([text_line[len(typed):], *lines[cut + 1:]])
    return before, after
