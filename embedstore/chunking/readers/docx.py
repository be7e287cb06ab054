"""Word (.docx): sections by heading styles (python-docx), tables as blocks of rows."""

from __future__ import annotations

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from embedstore.chunking.readers.base import Document, Section, paragraphs
from embedstore.chunking.readers.office import open_package


def read_docx(data: bytes) -> Document:
    word = docx.Document(open_package(data))
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    blocks: list[str] = []

    def close() -> None:
        sections.append(Section(tuple(title for _, title in path), paragraphs(blocks)))

    for item in word.iter_inner_content():
        if isinstance(item, Table):
            blocks.append(table_text(item))
            continue
        text = item.text.strip()
        level = heading_level(item)
        if level is None or not text:
            blocks.append(text)
            continue
        close()
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, text))
        blocks = [text]
    close()
    return Document(tuple(s for s in sections if s.text.strip()))


def heading_level(paragraph: Paragraph) -> int | None:
    """0 for the Title style, N for "Heading N", None for body text."""
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 0
    number = name.removeprefix("Heading ")
    return int(number) if number != name and number.isdigit() else None


def table_text(table: Table) -> str:
    """One line per row, cells joined by `` | `` (merged cells once)."""
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return "\n".join(rows)
