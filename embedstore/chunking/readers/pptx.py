"""PowerPoint (.pptx): a section per slide (python-pptx), its title, text, tables and notes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.shapes.base import BaseShape

from embedstore.chunking.readers.base import Document, Section, paragraphs
from embedstore.chunking.readers.office import open_package

NOTES_LABEL = "Notes:"


def read_pptx(data: bytes) -> Document:
    deck = pptx.Presentation(open_package(data))
    sections = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
        # python-pptx hands out a new proxy per access: shapes compare by id.
        title_id = title_shape.shape_id if title_shape is not None else None
        blocks = [title] + [text for shape in _shapes(slide.shapes)
                            if shape.shape_id != title_id and (text := shape_text(shape))]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                blocks.append(f"{NOTES_LABEL}\n{notes}")
        sections.append(Section((title or f"Slide {number}",), paragraphs(blocks),
                                f"slide={number}"))
    return Document(tuple(s for s in sections if s.text.strip()))


def _shapes(shapes: Iterable[BaseShape]) -> Iterator[BaseShape]:
    """Every shape, those inside groups included, in the slide's order."""
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes)  # type: ignore[attr-defined]
        else:
            yield shape


def shape_text(shape: BaseShape) -> str:
    """A text box's lines, or a table's rows with cells joined by `` | ``."""
    if getattr(shape, "has_table", False):
        rows = [" | ".join(" ".join(cell.text.split()) for cell in row.cells)
                for row in shape.table.rows]  # type: ignore[attr-defined]
        return "\n".join(row for row in rows if row.strip(" |"))
    if getattr(shape, "has_text_frame", False):
        frame = shape.text_frame  # type: ignore[attr-defined]
        return "\n".join(line for p in frame.paragraphs if (line := " ".join(p.text.split())))
    return ""
