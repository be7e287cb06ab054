"""Members before their class: a method that matches ranks above its class's outline.

A class over the token budget is a unit of its own, embedded as its outline (its own lines
and one signature per member), beside its members' units. A query about one method then
finds both, and the outline, which also holds the method's signature, often comes
first: a reader who asked for `prepare_headers` gets `PreparedRequest` at rank 1 and
has to look inside it. So a class ranks after every one of its own members in the list,
and each of those members shows the class's header line (``SearchResult.owner_header``)
instead of the class standing above it. A class keeps its place when the query is its
name (`PreparedRequest`, `class PreparedRequest`, `models.PreparedRequest`): then the
class itself is what was asked for, and every member, whose lexical terms hold its
class's name, matches too. A sentence that mentions the class ("the alternate
constructor of OneToOne") asks for something in it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from embedstore.chunking.grammars import CLASS_KINDS
from embedstore.languages import is_comment_line
from embedstore.store.db import UnitRow

# What joins a qualified name's parts: `a.B`, `a::B`, `a/B`.
_QUALIFIER = re.compile(r"[.:/\\]+")


def members_first(
    ranked: Sequence[tuple[int, float]], rows: Mapping[int, UnitRow], query: str
) -> tuple[list[tuple[int, float]], dict[int, int]]:
    """``ranked`` (unit id, score) best first, each class after its own members in it.

    Returns the new order, and for each member of a listed class the id of its innermost
    listed class. A class that moves down takes the score of the member it now follows,
    so scores stay in order (a merge of several collections' lists sorts by them).
    """
    position = {unit_id: n for n, (unit_id, _) in enumerate(ranked)}
    listed = [rows[i] for i, _ in ranked if i in rows]
    classes = [row for row in listed if row.kind in CLASS_KINDS]
    if not classes:
        return list(ranked), {}
    by_file: dict[tuple[str, str | None], list[UnitRow]] = {}
    for row in listed:
        by_file.setdefault((row.path, row.doc_id), []).append(row)
    members = {
        c.id: {row.id for row in by_file[(c.path, c.doc_id)] if _inside(row, c)} for c in classes
    }
    owners = _innermost_owners(members, rows)
    waiting = {
        c.id: {m for m in members[c.id] if position[m] > position[c.id]}
        for c in classes if not _asks_for(query, c)
    }
    out: list[tuple[int, float]] = []
    held: dict[int, float] = {}  # classes waiting for their members, with their scores

    def place(unit_id: int, score: float) -> None:
        out.append((unit_id, score))
        for owner in [c for c, left in waiting.items() if unit_id in left and c in held]:
            waiting[owner].discard(unit_id)
            if not waiting[owner]:
                place(owner, min(held.pop(owner), score))

    for unit_id, score in ranked:
        if waiting.get(unit_id):
            held[unit_id] = score
        else:
            place(unit_id, score)
    return out, owners


def class_header(row: UnitRow) -> str:
    """The class's first line that holds its name (its declaration), else its first line;
    not a line of its doc comment (`/// # use chrono::{DateTime, ...}` above `impl ... for
    DateTime<FixedOffset>`)."""
    lines = row.text.split("\n")
    name = _name(row)
    named = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    return next((line for line in lines if name and named.search(line)
                 and not is_comment_line(line, row.language)), lines[0]).strip()


def _asks_for(query: str, owner: UnitRow) -> bool:
    """Whether the query is the class's name, perhaps qualified or with the word "class"."""
    words = [word for word in query.split() if word.lower() != "class"]
    return len(words) == 1 and _QUALIFIER.split(words[0])[-1] == _name(owner)


def _name(row: UnitRow) -> str:
    """The class's own name: the last part of its symbol (`Outer.Inner` -> `Inner`)."""
    return (row.symbol or "").split(", ")[0].rsplit(".", 1)[-1]


def _inside(row: UnitRow, owner: UnitRow) -> bool:
    """Whether ``row`` (of the same file) is a member of ``owner``, a nested one too."""
    return (owner.start_line <= row.start_line and row.end_line <= owner.end_line
            and (row.start_line, row.end_line) != (owner.start_line, owner.end_line))


def _innermost_owners(
    members: Mapping[int, set[int]], rows: Mapping[int, UnitRow]
) -> dict[int, int]:
    """Each member's innermost listed class: the one with the fewest lines."""
    owners: dict[int, int] = {}
    for owner, inside in members.items():
        for member in inside:
            best = owners.get(member)
            if best is None or _size(rows[owner]) < _size(rows[best]):
                owners[member] = owner
    return owners


def _size(row: UnitRow) -> int:
    return row.end_line - row.start_line
