"""Document readers: PDF, Word, PowerPoint, HTML, EPUB and Jupyter notebooks, one module each.

Every reader has one signature (:class:`~embedstore.chunking.readers.base.Reader`): the
file's bytes in, a :class:`Document` of sections out, or :class:`DocumentReadError` with a
reason for the index's summary. :func:`reader_for` picks one by file name.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import cast

from embedstore.chunking.readers.base import (
    Document,
    DocumentReadError,
    Reader,
    Rendered,
    Section,
    render,
)
from embedstore.chunking.readers.sections import chunk_document

__all__ = [
    "READERS",
    "Document",
    "DocumentReadError",
    "Reader",
    "Rendered",
    "Section",
    "chunk_document",
    "is_document",
    "read_document",
    "reader_for",
    "render",
]

# By file extension (lower case): the reader's module in this package and its function.
# Imported on first use: pypdfium2, python-docx and python-pptx take a second or more to
# import, which a run over code alone never needs.
READERS: dict[str, tuple[str, str]] = {
    ".pdf": ("pdf", "read_pdf"),
    ".docx": ("docx", "read_docx"),
    ".pptx": ("pptx", "read_pptx"),
    ".html": ("html", "read_html"),
    ".htm": ("html", "read_html"),
    ".xhtml": ("html", "read_html"),
    ".ipynb": ("notebook", "read_notebook"),
    ".epub": ("epub", "read_epub"),
}


def is_document(name: str | Path) -> bool:
    """Whether a reader reads the file of this name (by its extension); imports nothing."""
    return Path(name).suffix.lower() in READERS


def reader_for(name: str | Path) -> Reader | None:
    """The reader of a file by its name, None for a file that is not a document."""
    found = READERS.get(Path(name).suffix.lower())
    if found is None:
        return None
    module, function = found
    return cast(Reader, getattr(importlib.import_module(f"{__name__}.{module}"), function))


def read_document(name: str | Path, data: bytes) -> Rendered:
    """A document's bytes, read by the reader its name calls for and rendered as lines.

    Raises ``ValueError`` for a name no reader knows, ``DocumentReadError`` for a file its
    reader cannot read. A reader that fails in any other way on a damaged file is a damaged
    file too: it costs that file, never the run.
    """
    reader = reader_for(name)
    if reader is None:
        raise ValueError(f"no document reader for {Path(name).name!r}")
    try:
        return render(reader(data))
    except DocumentReadError:
        raise
    except Exception as exc:  # a library's own error for a broken file
        raise DocumentReadError("damaged", f"{type(exc).__name__}: {exc}") from exc
