"""A collection as the search page browses it: a file's indexed text, and example queries
drawn from the collection's own definitions."""

from __future__ import annotations

import mimetypes
import pathlib
import re
import sqlite3
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse

from embedstore.api.deps import CollectionDep
from embedstore.api.highlight import highlight_lines
from embedstore.lexical import STOP_WORDS, fold_plural
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection

router = APIRouter(prefix="/v1/collections/{name}", tags=["files"])

# How many definitions are read to pick examples from, at most: a bounded, evenly spread
# sample, so a collection of a million units costs what one of a few thousand does.
SAMPLED_DEFINITIONS = 2000
# How many of them get their references counted (one FTS5 lookup each).
COUNTED = 40
DESCRIPTIONS = 3
SYMBOLS = 3
# A docstring line makes a query when it is a short sentence: fewer words say too little,
# more read like prose nobody types.
MIN_WORDS, MAX_WORDS = 3, 12
# Sphinx roles (:func:), backticks and emphasis: not what people type.
_MARKUP = re.compile(r":[a-z]+:|[`*]")
# What people type as a name; also keeps FTS5 syntax (quotes, operators) out of the lookups.
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class FileText(BaseModel):
    path: str
    language: str
    text: str = Field(description=(
        "The file as the index knows it: a document's text, or a folder file rebuilt "
        "from its definitions' lines (lines no definition holds, blank in the file, are empty)."
    ))
    lines: int = Field(description="How many lines `text` holds; line numbers are 1-based.")
    html_lines: list[str] | None = Field(default=None, description=(
        "With highlight=true: `text` syntax-highlighted, one HTML string per line (each "
        "line's tags closed within it), for the search page's file view."
    ))


class ExampleQuery(BaseModel):
    query: str
    kind: Literal["description", "symbol"] = Field(description=(
        "description: a definition's documentation line, a query in words; "
        "symbol: the name of a definition the collection refers to often."
    ))
    path: str = Field(description="The file of the definition it came from.")


class Examples(BaseModel):
    collection: str
    examples: list[ExampleQuery]


FilePath = Annotated[str, Path(description="The file's path, as search results give it.")]


# Without highlight=true, no html_lines key at all: the answer stays what it always was.
@router.get("/files/{path:path}", response_model=FileText, response_model_exclude_none=True,
            responses={
                200: {"content": {"application/octet-stream": {}},
                      "description": "The file's text as JSON; with raw=true, the file itself."},
            })
def get_file(
    path: FilePath, collection: CollectionDep,
    highlight: Annotated[bool, Query(description="Also return `html_lines`.")] = False,
    raw: Annotated[bool, Query(description=(
        "The indexed file itself, as it is on disk (a PDF, to open at #page=N), with its "
        "media type; 404 for a document pushed by id, which has no file."
    ))] = False,
) -> FileText | FileResponse:
    """The whole text of one indexed file or document, to show a hit in its file."""
    if raw:
        return raw_file(collection, path)
    found = file_text(collection.conn, path)
    if found is None:
        raise HTTPException(404, f"no file {path!r} in collection {collection.name!r}")
    if highlight:
        found.html_lines = highlight_lines(found.text, found.language)
    return found


def raw_file(collection: Collection, path: str) -> FileResponse:
    """The file of a folder's collection that ``path`` names, if the collection indexed it
    and it is still inside the indexed folder."""
    row = collection.conn.execute(
        "SELECT 1 FROM files WHERE path = ? AND doc_id IS NULL", (path,)
    ).fetchone()
    root = collection.manifest.source_root
    if row is None or root is None:
        raise HTTPException(404, f"no file {path!r} on disk for collection {collection.name!r}")
    base = pathlib.Path(root).resolve()
    # A collection of one file has that file as its root.
    target = base if base.is_file() else (base / path).resolve()
    if not target.is_file() or not (target == base or target.is_relative_to(base)):
        raise HTTPException(404, f"{path!r} is no longer on disk")
    media = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    # inline: the browser shows a PDF in its viewer (at #page=N) rather than saving it.
    return FileResponse(target, media_type=media, content_disposition_type="inline")


def file_text(conn: sqlite3.Connection, path: str) -> FileText | None:
    # One read transaction: the file row and its units must come from the same write.
    with db.snapshot(conn):
        row = conn.execute(
            "SELECT language, content FROM files WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        language, content = row
        if content is None:  # a folder's file: only its units' lines are stored
            by_number = symbol_table.file_lines(conn, path)
            last = max(by_number, default=0)
            content = "".join(by_number.get(n, "") + "\n" for n in range(1, last + 1))
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return FileText(path=path, language=language, text=content, lines=lines)


@router.get("/examples")
def get_examples(collection: CollectionDep) -> Examples:
    """Queries to try on this collection: documentation lines of its most referred-to
    definitions, then the names of the most referred-to ones."""
    return Examples(collection=collection.name, examples=pick_examples(collection))


def pick_examples(collection: Collection) -> list[ExampleQuery]:
    conn = collection.conn
    with db.snapshot(conn):
        candidates = _candidates(conn)
        counted = sorted(
            ((_references(conn, name), name, doc, path) for name, doc, path in candidates),
            key=lambda c: (-c[0], c[1]),
        )
    descriptions: list[ExampleQuery] = []
    symbols: list[ExampleQuery] = []
    for count, name, doc, path in counted:
        query = _description(doc)
        if query and len(descriptions) < DESCRIPTIONS and query not in (
            d.query for d in descriptions
        ):
            descriptions.append(ExampleQuery(query=query, kind="description", path=path))
        # A name only its own definition holds says nothing about the collection.
        elif count > 1 and len(symbols) < SYMBOLS:
            symbols.append(ExampleQuery(query=name, kind="symbol", path=path))
    return descriptions + symbols


def _candidates(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(name, documentation line, path) of up to COUNTED public definitions (a name not
    starting with "_"), one per name:
    the documented and longer ones first, out of an even sample of the collection's."""
    total = conn.execute("SELECT max(rowid) FROM definitions").fetchone()[0] or 0
    step = max(1, total // SAMPLED_DEFINITIONS)
    rows = conn.execute(
        "SELECT d.name, d.doc, f.path, d.end_line - d.start_line FROM definitions d "
        "JOIN files f ON f.id = d.file_id WHERE d.rowid % ? = 0 "
        "AND d.kind IN ('function', 'method', 'class', 'type') AND length(d.name) >= 4",
        (step,),
    ).fetchall()
    rows.sort(key=lambda r: (r[1] == "", -r[3], r[0]))
    chosen: dict[str, tuple[str, str, str]] = {}
    for name, doc, path, _ in rows:
        if _IDENTIFIER.fullmatch(name) and _term(name) is not None:
            chosen.setdefault(name, (name, doc, path))
        if len(chosen) == COUNTED:
            break
    return list(chosen.values())


def _term(name: str) -> str | None:
    """The lexical index's term for a whole identifier (see embedstore.lexical)."""
    whole = name.strip("_").lower()
    return None if not whole or whole in STOP_WORDS else fold_plural(whole)


def _references(conn: sqlite3.Connection, name: str) -> int:
    """How many units mention the name (its own definition included)."""
    row = conn.execute(
        "SELECT count(*) FROM units_fts WHERE units_fts MATCH ?", (f'terms : "{_term(name)}"',)
    ).fetchone()
    return int(row[0])


def _description(doc: str) -> str | None:
    """A documentation line as a query: its first sentence, without markup or final stop."""
    sentence = re.split(r"(?<=[.!?])\s", doc.strip(), maxsplit=1)[0]
    words = _MARKUP.sub("", sentence).rstrip(".!:;,").split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    # "Split the string" -> "split the string"; an acronym ("HTTP client") stays.
    first = words[0]
    if not first[1:2].isupper():
        words[0] = first[:1].lower() + first[1:]
    return " ".join(words)
