"""The Word and PowerPoint readers over files the tests make with python-docx and python-pptx."""

from __future__ import annotations

import io
import zipfile

import docx
import pptx
import pytest
from pptx.util import Inches

from embedstore.chunking.readers import DocumentReadError, read_document
from embedstore.chunking.readers.docx import read_docx
from embedstore.chunking.readers.pptx import read_pptx


def saved(document: docx.document.Document | pptx.presentation.Presentation) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def word_file() -> bytes:
    word = docx.Document()
    word.add_heading("Design notes", level=0)
    word.add_paragraph("Why the cache exists.")
    word.add_heading("Storage", level=1)
    word.add_paragraph("Vectors live in SQLite.")
    table = word.add_table(rows=2, cols=2)
    for row, cells in zip(table.rows, [("name", "size"), ("units", "12")], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    word.add_heading("Locks", level=2)
    word.add_paragraph("One writer at a time.")
    word.add_heading("Search", level=1)
    word.add_paragraph("Hybrid by default.")
    return saved(word)


def test_word_sections_follow_heading_styles_with_tables_as_rows() -> None:
    sections = read_docx(word_file()).sections
    assert [(s.path, s.text) for s in sections] == [
        (("Design notes",), "Design notes\n\nWhy the cache exists."),
        (("Design notes", "Storage"),
         "Storage\n\nVectors live in SQLite.\n\nname | size\nunits | 12"),
        (("Design notes", "Storage", "Locks"), "Locks\n\nOne writer at a time."),
        (("Design notes", "Search"), "Search\n\nHybrid by default."),
    ]


def slide_deck() -> bytes:
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    first.shapes.title.text = "Roadmap"
    first.placeholders[1].text_frame.text = "Ship the readers\nMeasure them"
    first.notes_slide.notes_text_frame.text = "Mention the PDF speed."
    second = deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title
    rows = second.shapes.add_table(2, 2, Inches(1), Inches(1), Inches(4), Inches(1)).table
    for row, cells in zip(rows.rows, [("format", "reader"), ("pdf", "pypdfium2")], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    return saved(deck)


def test_a_slide_is_a_section_with_its_title_text_table_and_notes() -> None:
    sections = read_pptx(slide_deck()).sections
    assert [(s.path, s.location, s.text) for s in sections] == [
        (("Roadmap",), "slide=1",
         "Roadmap\n\nShip the readers\nMeasure them\n\nNotes:\nMention the PDF speed."),
        (("Slide 2",), "slide=2", "format | reader\npdf | pypdfium2"),
    ]


@pytest.mark.parametrize("name", ["notes.docx", "deck.pptx"])
def test_a_damaged_office_file_is_refused_as_damaged(name: str) -> None:
    for data in (b"", b"PK\x03\x04 truncated", b"plain text"):
        with pytest.raises(DocumentReadError) as raised:
            read_document(name, data)
        assert raised.value.reason == "damaged"
    # A zip that is no Office package: the library's own error, read as damaged too.
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("hello.txt", "hi")
    with pytest.raises(DocumentReadError) as raised:
        read_document(name, out.getvalue())
    assert raised.value.reason == "damaged"


@pytest.mark.parametrize("name", ["notes.docx", "deck.pptx"])
def test_a_password_protected_office_file_is_refused_as_encrypted(name: str) -> None:
    # Office encrypts a package into an OLE compound file, whose signature this is.
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    with pytest.raises(DocumentReadError) as raised:
        read_document(name, ole)
    assert raised.value.reason == "encrypted"
