"""Search results for programs and editors: JSON, JSON lines, vimgrep lines."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from embedstore.retrieval.search import SearchResult


def result_json(r: SearchResult) -> dict[str, object]:
    return {
        "collection": r.collection, "path": r.path, "abs_path": r.abs_path,
        "start_line": r.start_line, "end_line": r.end_line,
        "match_start_line": r.match_start_line, "match_end_line": r.match_end_line,
        "kind": r.kind, "symbol": r.symbol, "language": r.language,
        "score": _rounded(r.score), "text": r.text, "found_by": r.found_by,
        "dense_score": _rounded(r.dense_score), "lexical_score": _rounded(r.lexical_score),
        # path#page=12 for a unit of a document (PDF page, slide, notebook cell, HTML id).
        "location": r.location,
        # A member's class header (`class PreparedRequest:`) when the class ranks after it.
        "owner_header": r.owner_header,
        "heading_path": r.heading_path,  # a section's headings: "Tutorial > Classes > ..."
    }


def _rounded(score: float | None) -> float | None:
    """Every score to the same 6 places: enough to order, short to read."""
    return None if score is None else round(score, 6)


def print_jsonl(results: Sequence[SearchResult]) -> None:
    """One result per line, as in --format json's "results"."""
    for r in results:
        sys.stdout.write(json.dumps(result_json(r), ensure_ascii=False) + "\n")


def print_vimgrep(results: Sequence[SearchResult]) -> None:
    """`path:line:1:text` per result, what Vim's and Emacs' grep modes and VS Code read.

    The line is where the best-matching piece starts, the text that line; a unit of a
    document says first where it is in the file (``#page=12``), which its lines are not.
    """
    for r in results:
        line = r.text.split("\n")[r.match_start_line - r.start_line]
        where = f"#{r.anchor} " if r.anchor else ""
        sys.stdout.write(f"{editor_path(r)}:{r.match_start_line}:1:{where}{line}\n")


def print_files(results: Sequence[SearchResult]) -> None:
    """Each file with a hit once, best first, as `rg -l` prints them."""
    for path in dict.fromkeys(editor_path(r) for r in results):
        sys.stdout.write(path + "\n")


def editor_path(r: SearchResult) -> str:
    """The file's path from the current folder when it is on disk, so that an editor or
    an agent opens it from wherever it runs; else the stored path (a document's own)."""
    if r.abs_path is None or not Path(r.abs_path).is_file():
        return r.path
    return os.path.relpath(r.abs_path)
