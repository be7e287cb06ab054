"""Jupyter notebooks (.ipynb, plain JSON): Markdown cells as sections, code cells as code.

Outputs are left out. A code cell is chunked as code in the notebook's language (from its
``language_info``, else its kernel's); every cell's location is ``cell=N`` (from 1), under
the path of the Markdown headings above it.
"""

from __future__ import annotations

import json
from typing import Any

from embedstore.chunking.markdown import markdown_headings
from embedstore.chunking.readers.base import Document, DocumentReadError, Section
from embedstore.languages import FALLBACK_LANGUAGE, detect_language


def read_notebook(data: bytes) -> Document:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentReadError("damaged", str(exc)) from exc
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise DocumentReadError("damaged", "no list of cells")
    language = notebook_language(notebook.get("metadata") or {})
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict):
            raise DocumentReadError("damaged", f"cell {number} is not an object")
        text = cell_source(cell).replace("\r\n", "\n")
        location = f"cell={number}"
        if cell.get("cell_type") == "code":
            sections.append(Section(tuple(t for _, t in path), text, location, language))
            continue
        lines = text.split("\n")
        headings = markdown_headings(lines)
        first = headings[0].line - 1 if headings else len(lines)
        sections.append(Section(tuple(t for _, t in path), "\n".join(lines[:first]), location))
        for index, heading in enumerate(headings):
            end = headings[index + 1].line - 1 if index + 1 < len(headings) else len(lines)
            while path and path[-1][0] >= heading.level:
                path.pop()
            path.append((heading.level, heading.title))
            sections.append(Section(tuple(t for _, t in path),
                                    "\n".join(lines[heading.line - 1 : end]), location))
    return Document(tuple(s for s in sections if s.text.strip()))


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's source: a string, or (as nbformat writes it) a list of lines."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def notebook_language(metadata: dict[str, Any]) -> str:
    """The language name embedstore uses for the notebook's code (Python when unsaid)."""
    info = metadata.get("language_info") or {}
    extension = info.get("file_extension")
    if isinstance(extension, str):
        found = detect_language(f"cell{extension}")
        if found != FALLBACK_LANGUAGE:
            return found
    named = info.get("name") or (metadata.get("kernelspec") or {}).get("language")
    return str(named).lower() if named else "python"
