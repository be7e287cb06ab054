"""The syntax-independent outline of a source file that code chunkers produce."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    """One definition: lines ``start``..``end`` (1-based, inclusive).

    ``start`` includes the comments, decorators and attributes directly above
    the definition. ``header`` is its signature (e.g. ``class Cache(Base):``),
    the context of its members and of the pieces it is split into. Only
    containers (classes, impls, namespaces) have ``children``: their member
    definitions, chunked on their own when the container is over budget.
    """

    start: int
    end: int
    kind: str
    symbol: str | None
    header: str
    children: tuple[Block, ...] = ()


def header_text(lines: list[str], first: int, last: int) -> str:
    """Signature lines ``first``..``last`` (1-based), stripped, without annotations.

    Decorator and attribute lines (``@Override``, ``#[inline]``, ``[Obsolete]``)
    that some grammars fold into a definition are dropped: they say little
    about what the members or continued pieces belong to.
    """
    rows = [line.strip() for line in lines[first - 1 : last]]
    while len(rows) > 1 and _is_annotation(rows[0]):
        rows.pop(0)
    return "\n".join(row for row in rows if row)


def _is_annotation(row: str) -> bool:
    # A whole line in brackets: C#'s attributes, never JS's `[key](args) {`.
    return row.startswith(("@", "#[")) or (row.startswith("[") and row.endswith("]"))


def qualified(owner: str | None, name: str | None) -> str | None:
    """``Owner.name`` for a member, the bare name at top level."""
    if owner and name:
        return f"{owner}.{name}"
    return name
