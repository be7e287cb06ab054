"""What code-at-cursor reads of a collection, kept while the collection stays unchanged.

One answer looks at hundreds of definitions in dozens of files, and an editor asks again
at every keystroke: each file's lines, definitions and imports are read from SQLite once
and kept per open collection (the most recently used MAX_CACHED_FILES files' of each
kind), with what is derived from them (the line naming each definition past its
attributes, long signatures, the block each line is in). A write moves the collection's
generation on, and the first lookup after it forgets everything (:func:`refresh`).
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from embedstore.chunking.projects import PROJECT_FILES, Project, read_project
from embedstore.chunking.symbols import (
    ANY_VALUE,
    ImportRef,
    rust_modules_bound,
    rust_modules_placed,
)
from embedstore.languages import line_comment, outline_skips_annotations
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# Per open collection: (generation, {kind: value}); a write moves the generation on.
_CACHE: weakref.WeakKeyDictionary[Collection, tuple[int, dict[str, object]]] = (
    weakref.WeakKeyDictionary()
)
# Files whose lines, and apart whose definitions, are kept per collection at most (a few
# hundred KiB each at worst).
MAX_CACHED_FILES = 512
# Line counts kept per tokenizer and collection at most (some 20 MiB).
MAX_COUNTED_LINES = 200_000


def refresh(collection: Collection) -> None:
    """Forget what a write has made stale: once per answer, not once per lookup."""
    now = db.generation(collection.conn)
    generation, _ = _CACHE.get(collection, (None, {}))
    if generation != now:
        _CACHE[collection] = (now, {})


def cached(collection: Collection, kind: str, make: Callable[[], object]) -> object:
    """What ``make`` gives, made once per ``kind`` while the collection stays unchanged."""
    if collection not in _CACHE:
        refresh(collection)
    values = _CACHE[collection][1]
    if kind not in values:
        values[kind] = make()
    return values[kind]


def of_file(collection: Collection, kind: str, path: str,
            read: Callable[[sqlite3.Connection, str], object]) -> object:
    """What ``read`` makes of one file, the most recently used files' kept."""
    files = cached(collection, kind, OrderedDict)
    assert isinstance(files, OrderedDict)
    if path in files:
        files.move_to_end(path)
    else:
        files[path] = read(collection.conn, path)
        if len(files) > MAX_CACHED_FILES:
            files.popitem(last=False)
    return files[path]


def all_paths(collection: Collection) -> frozenset[str]:
    """The collection's paths; frozen, so that resolve_import keeps its index of them."""
    got = cached(collection, "paths", lambda: frozenset(symbol_table.paths(collection.conn)))
    assert isinstance(got, frozenset)
    return got


def main_language(collection: Collection) -> str:
    """The language most of the collection's files are in: that of code given no path."""
    def most_common() -> str:
        row = collection.conn.execute(
            "SELECT language FROM files GROUP BY language ORDER BY COUNT(*) DESC LIMIT 1"
        ).fetchone()
        return str(row[0]) if row else "text"

    got = cached(collection, "language", most_common)
    assert isinstance(got, str)
    return got


def method_calls(collection: Collection) -> dict[str, int]:
    """Method name -> how often the collection's files call `.name(` on any value."""
    got = cached(collection, "method calls",
                 lambda: symbol_table.member_uses(collection.conn, [ANY_VALUE]))
    assert isinstance(got, dict)
    return got


def project_of(collection: Collection) -> Project:
    """The collection's project files (go.mod, tsconfig.json...), read."""
    def read() -> Project:
        paths = all_paths(collection)

        def text(path: str) -> str | None:  # a config's `extends` may name any file
            return file_text(collection, path) if path in paths else None

        root = collection.manifest.source_root
        files = {path: text(path) or "" for path in paths
                 if posixpath.basename(path) in PROJECT_FILES}
        project = read_project(PurePath(root).name if root else "", files, text)
        placed = rust_modules_placed((path, ref.module, ref.alias) for path, ref
                                     in symbol_table.imports_ending(collection.conn, ".rs"))
        project = replace(project, rust_modules=placed)
        # A module a `use` binds is reached through that binding too, where no file of its
        # own name is (`crate::stable_graph::` after lib.rs's `pub use
        # crate::graph_impl::stable_graph;`).
        bound = rust_modules_bound(
            ((path, ImportRef(*row)) for path, row
             in symbol_table.imports_of_files_ending(collection.conn, ".rs")),
            paths, project)
        return replace(project, rust_modules={**bound, **placed})

    got = cached(collection, "project", read)
    assert isinstance(got, Project)
    return got


def folders_of(collection: Collection) -> dict[str, list[str]]:
    """The collection's files by folder ("" for the root)."""
    def group() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for path in sorted(all_paths(collection)):
            found.setdefault(posixpath.dirname(path), []).append(path)
        return found

    got = cached(collection, "folders", group)
    assert isinstance(got, dict)
    return got


def file_lines(collection: Collection, path: str) -> dict[int, str]:
    """The file's indexed lines by number (1-based)."""
    got = of_file(collection, "lines", path, symbol_table.file_lines)
    assert isinstance(got, dict)
    return got


def in_order(lines: dict[int, str]) -> Iterator[str]:
    """A file's lines (``file_lines``) in line order."""
    return (lines[n] for n in sorted(lines))


def file_text(collection: Collection, path: str) -> str:
    """A file's indexed lines in order as one text, one string per file while it is cached
    (its units come from the store in no set order)."""
    got = of_file(collection, "file texts", path,
                  lambda conn, file: "\n".join(in_order(file_lines(collection, file))))
    assert isinstance(got, str)
    return got


def shown_lines(collection: Collection, path: str) -> dict[int, str]:
    """The file's lines as an answer shows them: an overloaded function's implementation
    ends its signature with how many `@overload` stubs it stands for (`# 3 overloads`),
    since the stubs themselves are never shown (:func:`_one_per_name`)."""
    def annotate(conn: sqlite3.Connection, path: str) -> dict[int, str]:
        text = file_lines(collection, path)
        rows = every_definition(collection, path)
        shown = {(r.qualname, r.start_line) for r in _one_per_name(rows)}
        stubs = Counter((r.qualname, r.kind) for r in rows
                        if (r.qualname, r.start_line) not in shown and not _has_body(r))
        notes = {}
        for row in rows:
            count = stubs.get((row.qualname, row.kind), 0)
            if count and (row.qualname, row.start_line) in shown and _has_body(row):
                end = row.signature_end_line
                notes[end] = f"{text.get(end, '')}  {line_comment(row.language)} {count} " \
                    f"overload{'s' if count > 1 else ''}"
        return {**text, **notes} if notes else text

    got = of_file(collection, "shown lines", path, annotate)
    assert isinstance(got, dict)
    return got


def imports_of(collection: Collection, path: str) -> list[symbol_table.ImportRow]:
    """The file's imports, in line order (read once per file while it stays cached)."""
    got = of_file(collection, "imports", path, symbol_table.imports_of)
    assert isinstance(got, list)
    return got


def definitions_in(collection: Collection, paths: Iterable[str]) -> list[DefinitionRow]:
    """Every definition of the files at ``paths``, by path, then in source order."""
    found: list[DefinitionRow] = []
    for path in sorted(set(paths)):
        rows = of_file(collection, "definitions", path,
                       lambda conn, path: _one_per_name(every_definition(collection, path)))
        assert isinstance(rows, list)
        found.extend(rows)
    return found


def every_definition(collection: Collection, path: str) -> list[DefinitionRow]:
    """All the file's definitions, stubs and namesakes too, in source order."""
    got = of_file(collection, "every definition", path,
                  lambda conn, path: symbol_table.definitions_in(conn, [path]))
    assert isinstance(got, list)
    return got


def _one_per_name(rows: list[DefinitionRow]) -> list[DefinitionRow]:
    """One definition per qualified name of a file: the first, unless it is a bodiless stub
    of a later one of the same kind.

    That is a property's getter (its setter and deleter repeat the name below it), an
    overloaded function's implementation (its `@overload` stubs end on their signature
    line), the first branch of `if WINDOWS: def getchar ... else: def getchar ...` and of
    ctypes' `c_int = c_long` / `else: class c_int(...)` (what a reader finds first).

    A type beside a value of the same name (TypeScript's `interface X` and `const X =
    make(...)`, zod's and effect's way) gives way to the value: code calls the value
    (`X.init(`, `X(`), and only the value's line shows that it can.
    """
    chosen: dict[str, DefinitionRow] = {}
    for row in rows:
        kept = chosen.setdefault(row.qualname, row)
        if ((not _has_body(kept) and _has_body(row) and row.kind == kept.kind)
                or (kept.kind == "type" and row.kind in _VALUES)):
            chosen[row.qualname] = row
    return [row for row in rows if chosen[row.qualname] is row]


# What code can call or read, as against a type it can only name.
_VALUES = frozenset({"function", "constant", "variable"})


def _has_body(row: DefinitionRow) -> bool:
    return row.end_line > row.signature_end_line


def header_text(collection: Collection, row: DefinitionRow) -> str:
    """A definition's lines down to its signature's end: attributes, doc comment, header."""
    text = file_lines(collection, row.path)
    return "\n".join(text.get(n, "") for n in range(row.start_line, row.signature_end_line + 1))


# Lines that annotate a definition: `#[derive(Debug)]` heads a third of a crate's
# definitions, so they cannot tell one from another.
_ANNOTATION = ("#[", "#![", "@")


def naming_line(collection: Collection, row: DefinitionRow) -> int:
    """The number of the line naming the definition (`pub struct Point {`), past its
    attributes and decorators; failing one, its first line. Kept per file: a type's outline
    asks it of each of its members, on every answer."""
    def find(conn: sqlite3.Connection, path: str) -> dict[tuple[int, str], int]:
        text = file_lines(collection, path)
        return {(r.start_line, r.name): _header_number(text, r)
                for r in every_definition(collection, path)
                if text.get(r.start_line, "").strip().startswith(_ANNOTATION)}

    got = of_file(collection, "naming lines", row.path, find)
    assert isinstance(got, dict)
    if (row.start_line, row.name) in got:
        return int(got[(row.start_line, row.name)])
    return _header_number(file_lines(collection, row.path), row)


def _header_number(lines: dict[int, str], row: DefinitionRow) -> int:
    """:func:`naming_line`, read from the file's lines."""
    if not lines.get(row.start_line, "").strip().startswith(_ANNOTATION):
        return row.start_line
    name = re.compile(rf"(?<![\w$]){re.escape(row.name)}(?![\w$])") if row.name else None
    for n in range(row.start_line, row.signature_end_line + 1):
        line = lines.get(n, "").strip()
        if name is not None and not line.startswith(_ANNOTATION) and name.search(line):
            return n
    return row.start_line


def signature_start(collection: Collection, row: DefinitionRow) -> int:
    """Where an outline starts ``row``'s signature: past the annotations that say little."""
    return naming_line(collection, row) if outline_skips_annotations(row.language) \
        else row.start_line


def owner_header(collection: Collection, row: DefinitionRow) -> list[int]:
    """The lines heading a member's class, past the annotations that say little: what an
    outline shows above a member (a lone `path: str` says nothing of whose it is)."""
    owner, dot, _ = row.qualname.rpartition(".")
    if not dot:
        return []
    for other in definitions_in(collection, [row.path]):
        if other.qualname == owner and other.start_line < row.start_line <= other.end_line:
            first = signature_start(collection, other)
            return list(range(first, other.signature_end_line + 1))
    return []


def long_signatures(collection: Collection, path: str) -> dict[int, int]:
    """The file's signatures over several lines, by their def/class line -> their last line
    (decorators and attributes stay lines of their own), except those with a comment after
    code before their last line, which one line would swallow (a comment's own lines are
    left out of it, :func:`signature_comments`)."""
    def find(conn: sqlite3.Connection, path: str) -> dict[int, int]:
        text = file_lines(collection, path)
        comments = signature_comments(collection, path)
        found = {}
        for row in every_definition(collection, path):
            first = naming_line(collection, row)
            marks = (line_comment(row.language), "/*")
            named = not text.get(first, "").strip().startswith(_ANNOTATION)
            if named and first < row.signature_end_line and not any(
                mark in text.get(n, "") for n in range(first, row.signature_end_line)
                if n not in comments for mark in marks
            ):
                found[first] = row.signature_end_line
        return found

    got = of_file(collection, "long signatures", path, find)
    assert isinstance(got, dict)
    return got


def signature_comments(collection: Collection, path: str) -> frozenset[int]:
    """The lines within the file's signatures that hold a comment alone: effect's
    `export const map: {` writes a JSDoc block of twenty lines above each of its overloads,
    which would take an outline's budget from the overloads themselves."""
    def find(conn: sqlite3.Connection, path: str) -> frozenset[int]:
        text = file_lines(collection, path)
        found: set[int] = set()
        for row in every_definition(collection, path):
            mark = line_comment(row.language)
            in_block = False
            for n in range(naming_line(collection, row) + 1, row.signature_end_line):
                line = text.get(n, "").strip()
                opens = line.startswith("/*")
                if in_block or opens or line.startswith(mark):
                    found.add(n)
                    in_block = (in_block or opens) and "*/" not in line
        return frozenset(found)

    got = of_file(collection, "signature comments", path, find)
    assert isinstance(got, frozenset)
    return got


# A `where` clause's first line continues the head above it.
_WHERE = re.compile(r"where\b")


def enclosing_lines(collection: Collection, path: str) -> dict[int, int]:
    """Each line of a file -> the nearest line above it, indented less, that starts with a
    word: the head of the block it is in (`impl<T> Display for Point<T> {`). Lines that
    start otherwise (`{`, `}`, comments, attributes) and `where` clauses continue a head."""
    def read(conn: sqlite3.Connection, file: str) -> dict[int, int]:
        heads: list[tuple[int, int]] = []  # (indentation, line number), outermost first
        found: dict[int, int] = {}
        for number, line in sorted(file_lines(collection, file).items()):
            stripped = line.lstrip()
            if not stripped[:1].isalpha() or _WHERE.match(stripped):
                continue
            indent = len(line) - len(stripped)
            while heads and heads[-1][0] >= indent:
                heads.pop()
            if heads:
                found[number] = heads[-1][1]
            heads.append((indent, number))
        return found

    got = of_file(collection, "enclosing lines", path, read)
    assert isinstance(got, dict)
    return got


@dataclass
class TokenCosts:
    """Token counts of lines, (path, line) -> n, and of each file's empty block."""

    lines: dict[tuple[str, int], int] = field(default_factory=dict)
    headers: dict[str, int] = field(default_factory=dict)
    # A long signature joined into one line, by (path, its first line).
    joined: dict[tuple[str, int], int] = field(default_factory=dict)


def token_costs(collection: Collection, tokenizer: str) -> TokenCosts:
    """The counts one named tokenizer has made of this collection's lines so far."""
    got = cached(collection, f"costs:{tokenizer}", TokenCosts)
    assert isinstance(got, TokenCosts)
    if len(got.lines) > MAX_COUNTED_LINES:
        got.lines.clear()
    return got
