"""Empty values refused as usage errors: `index ''` must not index the current folder, nor
`--name ''` and `--encoder ''` quietly mean their defaults.

Typer turns '' into its default's meaning before a command sees it (``Path('')`` is ``.``,
and a command takes a falsy name for "none given"), so the check runs on the raw value.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import typer

Value = TypeVar("Value", str, list[str], None)


def refuse_empty(value: Value) -> Value:
    """Option callback: a value, or any of a repeated option's values, must not be ''."""
    values = value if isinstance(value, list) else [value]
    if any(v is not None and not v.strip() for v in values):
        raise typer.BadParameter("must not be empty")
    return value


def nonempty_path(value: str) -> Path:
    """Argument parser for a path: '' (and blanks) refused, not taken for the current folder."""
    if not value.strip():
        raise typer.BadParameter("must not be empty: give a path ('.' for the current folder)")
    return Path(value)
