"""PDF: the text of each page (pypdfium2), cut into sections by the outline (bookmarks).

A page's text is split where the title of an outline entry on that page appears in it, so
a section is one heading's text on one page and its location is that page (``page=12``,
what a browser's PDF viewer opens). Without an outline every page is a section under the
document's title. Pages without text (scanned images, blank pages) are counted, never
indexed as empty units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pypdfium2 as pdfium

from embedstore.chunking.readers.base import Document, DocumentReadError, Section

# A line this much shorter than the page's longest, ending a sentence, ends a paragraph.
SHORT_LINE = 0.85
_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")


@dataclass(frozen=True)
class _Heading:
    page: int  # 0-based
    path: tuple[str, ...]


def read_pdf(data: bytes) -> Document:
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise DocumentReadError(_open_failure(str(exc)), str(exc)) from exc
    try:
        return _read(pdf)
    except pdfium.PdfiumError as exc:
        raise DocumentReadError("damaged", str(exc)) from exc
    finally:
        pdf.close()


def _open_failure(message: str) -> str:
    return "encrypted" if "password" in message.lower() else "damaged"


def _read(pdf: pdfium.PdfDocument) -> Document:
    headings = _outline(pdf)
    title = str(pdf.get_metadata_dict().get("Title") or "").strip()
    top: tuple[str, ...] = (title,) if title else ()
    sections: list[Section] = []
    empty = 0
    path = top
    cursor = 0
    for index in range(len(pdf)):
        text = _page_text(pdf, index)
        if not text.strip():
            empty += 1
        location = f"page={index + 1}"
        start = 0
        while cursor < len(headings) and headings[cursor].page <= index:
            heading = headings[cursor]
            cursor += 1
            found = text.find(heading.path[-1], start) if heading.page == index else -1
            at = found if found >= 0 else start
            if at > start:
                sections.append(Section(path, _paragraphs(text[start:at]), location))
            path, start = heading.path, at
        sections.append(Section(path, _paragraphs(text[start:]), location))
    return Document(tuple(s for s in sections if s.text.strip()), pages_without_text=empty)


def _outline(pdf: pdfium.PdfDocument) -> list[_Heading]:
    """The outline's entries that point at a page, in page order, each with its path."""
    headings: list[_Heading] = []
    stack: list[str] = []
    for item in pdf.get_toc(max_depth=16):
        title = " ".join((item.get_title() or "").split())
        del stack[item.level:]
        stack.append(title)
        dest = item.get_dest()
        page = dest.get_index() if dest is not None else None
        if title and page is not None:
            headings.append(_Heading(page, tuple(t for t in stack if t)))
    # Outlines are in reading order almost always; a stable sort keeps ties as written.
    return sorted(headings, key=lambda h: h.page)


def _page_text(pdf: pdfium.PdfDocument, index: int) -> str:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _paragraphs(text: str) -> str:
    """Lines as on the page, with a blank line after each that ends a paragraph: one that
    ends a sentence well short of the page's width."""
    lines = [line.rstrip() for line in text.split("\n")]
    widest = max((len(line) for line in lines), default=0)
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1]:
                out.append("")
            continue
        out.append(line)
        if _SENTENCE_END.search(line) and len(line) < SHORT_LINE * widest:
            out.append("")
    return "\n".join(out).strip("\n")
