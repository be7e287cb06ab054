"""Document readers: PDF, Word, PowerPoint, HTML and Jupyter notebooks, one module each.

Every reader has one signature (:class:`~embedstore.chunking.readers.base.Reader`): the
file's bytes in, a :class:`Document` of sections out, or :class:`DocumentReadError` with a
reason for the index's summary. :func:`reader_for` picks one by file name.
"""

from __future__ import annotations

from pathlib import Path

from embedstore.chunking.readers.base import (
    Document,
    DocumentReadError,
    Reader,
    Rendered,
    Section,
    render,
)
from embedstore.chunking.readers.docx import read_docx
from embedstore.chunking.readers.html import read_html
from embedstore.chunking.readers.notebook import read_notebook
from embedstore.chunking.readers.pdf import read_pdf
from embedstore.chunking.readers.pptx import read_pptx
from embedstore.chunking.readers.sections import chunk_document

__all__ = [
    "READERS",
    "Document",
    "DocumentReadError",
    "Reader",
    "Rendered",
    "Section",
    "chunk_document",
    "read_document",
    "reader_for",
    "render",
]

# By file extension (lower case).
READERS: dict[str, Reader] = {
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".pptx": read_pptx,
    ".html": read_html,
    ".htm": read_html,
    ".xhtml": read_html,
    ".ipynb": read_notebook,
}


def reader_for(name: str | Path) -> Reader | None:
    """The reader of a file by its name, None for a file that is not a document."""
    return READERS.get(Path(name).suffix.lower())


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
