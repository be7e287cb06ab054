"""Search results for programs and editors: JSON, JSON lines, vimgrep lines."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from embedstore.search import SearchResult


def result_json(r: SearchResult) -> dict[str, object]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
        "match_start_line": r.match_start_line, "match_end_line": r.match_end_line,
        "kind": r.kind, "symbol": r.symbol, "language": r.language,
        "score": round(r.score, 6), "text": r.text, "found_by": r.found_by,
        "dense_score": r.dense_score, "lexical_score": r.lexical_score,
    }


def print_jsonl(results: Sequence[SearchResult]) -> None:
    """One result per line, as in --format json's "results"."""
    for r in results:
        sys.stdout.write(json.dumps(result_json(r), ensure_ascii=False) + "\n")


def print_vimgrep(results: Sequence[SearchResult], source_root: str | None) -> None:
    """`path:line:1:text` per result, what Vim's and Emacs' grep modes and VS Code read.

    The line is where the best-matching piece starts, the text that line. The
    path is the file's path from the current folder when the file is on disk
    under the indexed folder, so the editor opens it from wherever it runs.
    """
    base = _files_base(source_root)
    for r in results:
        line = r.text.split("\n")[r.match_start_line - r.start_line]
        sys.stdout.write(f"{_editor_path(r, base)}:{r.match_start_line}:1:{line}\n")


def _files_base(source_root: str | None) -> Path | None:
    """The folder stored paths are relative to: the indexed folder, or a lone indexed file's."""
    if source_root is None:
        return None
    root = Path(source_root)
    return root.parent if root.is_file() else root


def _editor_path(r: SearchResult, base: Path | None) -> str:
    # A document pushed by id has a path of its own choosing, not a file on disk.
    if base is None or r.document_id is not None:
        return r.path
    full = base / r.path
    return os.path.relpath(full) if full.is_file() else r.path
