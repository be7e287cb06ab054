"""The symbol table: each file's definitions and imports, stored beside its units.

Written in the same transaction as the file's units (``db.apply_changes``) and
deleted with it (ON DELETE CASCADE), so it is always as fresh as the index.
Imports are kept as written; they resolve against the collection's paths when
a query needs them, so a file added later still resolves an older file's import.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # at run time the store never loads the chunker (fast `list` and `info`)
    from embedstore.chunking.symbols import Definition, ImportRef

# Bumped when extraction or chunking changes: the next `index` re-reads every file once (see
# ingest.scan). 3: named values are units, named definitions are never merged. 4: trait
# signatures are members, `export ... from` lines are imports. 5: `a::b` is a member use.
# 6: a file with a glob import counts every head's member uses.
# 7: Rust's `super::` and `crate::` count as heads of member uses. 8: Java's capitalised
# heads count with no import; Java's instance fields and JS/TS class fields are variables.
# 9: a class with members is always outlined; no named definition merges with another.
# 10: a signature heading its members' chunks leaves out its type parameters.
# 11: a signature's comment lines do not count towards its cap of lines; a typed value's
# signature ends where its value starts.
# 12: a TypeScript enum's members are constants of it.
# 13: a parse gives up later (a large file lost its symbols on a busy machine).
# 14: a Rust `mod` with a `#[path]` attribute imports the file it names.
# 15: Go's and Rust's blank identifier `_` is no definition.
# 16: member uses count `.member(` calls through any value.
# 17: `$` is part of a name (zod's `$ZodString`).
# 18: JavaScript's definitions by assignment (`exports.f = function`, `C.prototype.m =`)
# and `require("./x").name` imports.
# 19: a Rust turbofish is no break in a path (`StableGraph::<N, E>::new` uses `new`
# through StableGraph); an `impl` for a borrow (`for &'a List`) gives the type its methods.
SYMBOLS_VERSION = "19"
SCHEMA = """
CREATE TABLE IF NOT EXISTS definitions (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature_end_line INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS definitions_name ON definitions(name);
CREATE INDEX IF NOT EXISTS definitions_file ON definitions(file_id);
CREATE TABLE IF NOT EXISTS imports (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    module TEXT NOT NULL,
    name TEXT,
    alias TEXT NOT NULL,
    level INTEGER NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE TABLE IF NOT EXISTS member_uses (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    head TEXT NOT NULL,
    member TEXT NOT NULL,
    uses INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS member_uses_head ON member_uses(head);
CREATE INDEX IF NOT EXISTS member_uses_file ON member_uses(file_id);
CREATE INDEX IF NOT EXISTS member_uses_member ON member_uses(member);
"""


class DefinitionRow(NamedTuple):
    path: str
    language: str
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature_end_line: int
    doc: str


class ImportRow(NamedTuple):  # the fields of chunking.symbols.ImportRef
    module: str
    name: str | None
    alias: str
    level: int
    line: int


def insert(
    conn: sqlite3.Connection,
    file_id: int,
    definitions: Sequence[Definition],
    imports: Sequence[ImportRef],
    member_uses: Mapping[tuple[str, str], int],
) -> None:
    conn.executemany(
        "INSERT INTO definitions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, d.name, d.qualname, d.kind, d.start_line, d.end_line, d.signature_end_line,
          d.doc) for d in definitions],
    )
    conn.executemany(
        "INSERT INTO imports VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, i.module, i.name, i.alias, i.level, i.line) for i in imports],
    )
    conn.executemany(
        "INSERT INTO member_uses VALUES (?, ?, ?, ?)",
        [(file_id, head, member, n) for (head, member), n in member_uses.items()],
    )


_DEFINITION_COLUMNS = (
    "f.path, f.language, d.name, d.qualname, d.kind, d.start_line, d.end_line, "
    "d.signature_end_line, d.doc"
)


def definitions_in(conn: sqlite3.Connection, paths: Sequence[str]) -> list[DefinitionRow]:
    """Every definition of the files at ``paths``, in file order."""
    return _definitions_where(conn, "f.path", paths, order="ORDER BY f.path, d.start_line")


def definitions_named(conn: sqlite3.Connection, names: Sequence[str]) -> list[DefinitionRow]:
    """Every definition whose own name is one of ``names``, anywhere in the collection."""
    return _definitions_where(conn, "d.name", names)


def name_counts(conn: sqlite3.Connection, names: Sequence[str]) -> dict[str, int]:
    """How many definitions of the collection bear each of ``names`` (absent: none)."""
    return _counts(conn, "SELECT name, count(*) FROM definitions WHERE name IN ({marks}) "
                   "GROUP BY name", names)


def _counts(conn: sqlite3.Connection, query: str, names: Sequence[str]) -> dict[str, int]:
    """name -> count, of ``query`` run for ``names`` (its `{marks}` their placeholders)."""
    if not names:
        return {}
    marks = ",".join("?" * len(names))
    return dict(conn.execute(query.format(marks=marks), list(names)).fetchall())


def _definitions_where(
    conn: sqlite3.Connection, column: str, values: Sequence[str], order: str = ""
) -> list[DefinitionRow]:
    if not values:
        return []
    marks = ",".join("?" * len(values))
    # fetchall steps through the rows in C: iterating runs Python per row.
    return [DefinitionRow(*r) for r in conn.execute(
        f"SELECT {_DEFINITION_COLUMNS} FROM definitions d JOIN files f ON f.id = d.file_id "
        f"WHERE {column} IN ({marks}) {order}", list(values),
    ).fetchall()]


def imports_of(conn: sqlite3.Connection, path: str) -> list[ImportRow]:
    rows = conn.execute(
        "SELECT i.module, i.name, i.alias, i.level, i.line FROM imports i "
        "JOIN files f ON f.id = i.file_id WHERE f.path = ? ORDER BY i.line", (path,),
    )
    return [ImportRow(*r) for r in rows]


def imports_ending(conn: sqlite3.Connection, suffix: str) -> list[tuple[str, ImportRow]]:
    """(importing path, import) of every import whose module ends with ``suffix``."""
    return _imports_where(conn, "i.module", suffix)


def imports_of_files_ending(conn: sqlite3.Connection, suffix: str) -> list[tuple[str, ImportRow]]:
    """(importing path, import) of every import of the files whose path ends with ``suffix``."""
    return _imports_where(conn, "f.path", suffix)


def _imports_where(
    conn: sqlite3.Connection, column: str, suffix: str
) -> list[tuple[str, ImportRow]]:
    rows = conn.execute(
        "SELECT f.path, i.module, i.name, i.alias, i.level, i.line FROM imports i "
        f"JOIN files f ON f.id = i.file_id WHERE substr({column}, -?) = ? "
        "ORDER BY f.path, i.line", (len(suffix), suffix),
    )
    return [(path, ImportRow(*r)) for path, *r in rows]


def member_uses(conn: sqlite3.Connection, heads: Sequence[str]) -> dict[str, int]:
    """Member -> how often the collection's files reach it through an imported name in
    ``heads`` (``events.sleep``), the most under any one head."""
    if not heads:
        return {}
    found: dict[str, int] = {}
    rows = conn.execute(
        f"SELECT member, SUM(uses) FROM member_uses WHERE head IN ({','.join('?' * len(heads))}) "
        "GROUP BY head, member", list(heads),
    )
    for member, uses in rows:
        found[member] = max(found.get(member, 0), int(uses))
    return found


def uses_of(conn: sqlite3.Connection, names: Sequence[str]) -> dict[str, int]:
    """How often the collection's files reach each of ``names`` as a member, through any
    head (``events.sleep``, ``x.len()``; absent: never)."""
    return _counts(conn, "SELECT member, SUM(uses) FROM member_uses WHERE member IN ({marks}) "
                   "GROUP BY member", names)


def paths(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT path FROM files")]


def file_lines(conn: sqlite3.Connection, path: str) -> dict[int, str]:
    """The file's indexed lines by number: its units' texts (a document: its content)."""
    lines: dict[int, str] = {}
    rows = conn.execute(
        "SELECT u.start_line, u.text FROM units u JOIN files f ON f.id = u.file_id "
        "WHERE f.path = ?", (path,),
    ).fetchall()
    for start, text in rows:
        for i, line in enumerate(text.split("\n")):
            lines.setdefault(start + i, line)
    return lines
