"""PDF: the text of each page (pypdfium2), cut into sections by the outline (bookmarks).

A page's text is split where the title of an outline entry on that page appears in it, so
a section is one heading's text on one page and its location is that page (``page=12``,
what a browser's PDF viewer opens). Without an outline, headings are the lines set in a
larger type than the body text, a larger size a higher level; a document with neither is a
section per page under its title. Pages without text (scanned images, blank pages) are
counted, never indexed as empty units. Running heads and feet (a page's number, "Chapter 4:
Matrix and Vector Operations 19") are dropped: they are the printer's, not the text's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from embedstore.chunking.readers.base import Document, DocumentReadError, Section

# A line this much shorter than the page's longest, ending a sentence, ends a paragraph.
SHORT_LINE = 0.85
_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")
# Without an outline: a line whose every letter is set this much larger than the body text
# (the size most of the document's characters have) is a heading...
HEADING_SIZE = 1.15
# ...unless it and the lines of its size right below it are this long: a heading is a
# title, not a paragraph in a larger type.
MAX_HEADING_CHARS = 120
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class _Heading:
    page: int  # 0-based
    path: tuple[str, ...]
    # The heading's text as the page shows it, where the page's text is split: its title,
    # or the first line of a title set on several lines.
    anchor: str = ""

    @property
    def found_as(self) -> str:
        return self.anchor or self.path[-1]


@dataclass(frozen=True)
class _Line:
    page: int  # 0-based
    number: int  # on its page, from 0
    text: str
    size: float  # the smallest font size of its characters, spaces aside


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
    headings = _outline(pdf) or _sized_headings(pdf)
    title = str(pdf.get_metadata_dict().get("Title") or "").strip()
    top: tuple[str, ...] = (title,) if title else ()
    sections: list[Section] = []
    empty = 0
    path = top
    cursor = 0
    texts = _without_running_heads([_page_text(pdf, index) for index in range(len(pdf))])
    for index, text in enumerate(texts):
        if not text.strip():
            empty += 1
        location = f"page={index + 1}"
        start = 0
        while cursor < len(headings) and headings[cursor].page <= index:
            heading = headings[cursor]
            cursor += 1
            found = text.find(heading.found_as, start) if heading.page == index else -1
            at = found if found >= 0 else start
            if at > start:
                sections.append(Section(path, _paragraphs(text[start:at]), location))
            path, start = heading.path, at
        sections.append(Section(path, _paragraphs(text[start:]), location))
    return Document(tuple(s for s in sections if s.text.strip()), pages_without_text=empty)


def _without_running_heads(texts: list[str]) -> list[str]:
    """Each page's text without its first and last lines where they are a running head or
    foot: a line with a number (the page's) that, numbers aside, is nothing else ("18") or
    stands at the edge of another page too ("gnuplot 5.4 21", "22 gnuplot 5.4")."""
    def edges(lines: list[str]) -> list[int]:
        filled = [n for n, line in enumerate(lines) if line.strip()]
        return sorted({*filled[:1], *filled[-1:]})

    pages = [text.split("\n") for text in texts]
    shapes = Counter(_shape(lines[n]) for lines in pages for n in edges(lines))

    def running(line: str) -> bool:
        shape = _shape(line)
        return shape is not None and (not shape.strip("# ") or shapes[shape] > 1)

    return ["\n".join(line for n, line in enumerate(lines)
                      if n not in edges(lines) or not running(line)) for lines in pages]


def _shape(line: str) -> str | None:
    """A line with its numbers as ``#`` (None without a number): what running heads share."""
    return " ".join(_NUMBER.sub("#", line).split()) if _NUMBER.search(line) else None


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


def _sized_headings(pdf: pdfium.PdfDocument) -> list[_Heading]:
    """Headings found by their type size: each size above the body's is a level, the
    largest the outermost; consecutive lines of one size are one title."""
    lines = [line for index in range(len(pdf)) for line in _sized_lines(pdf, index)]
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    if not weight:
        return []
    body = weight.most_common(1)[0][0]
    runs: list[list[_Line]] = []
    for line in lines:
        if line.size < body * HEADING_SIZE:
            continue
        last = runs[-1][-1] if runs else None
        if (last is not None and (last.page, last.number + 1, last.size)
                == (line.page, line.number, line.size)):
            runs[-1].append(line)
        else:
            runs.append([line])
    titles = [run for run in runs if sum(len(line.text) + 1 for line in run) <= MAX_HEADING_CHARS
              and any(c.isalpha() for line in run for c in line.text)]
    levels = {size: n for n, size in enumerate(sorted({t[0].size for t in titles}, reverse=True))}
    headings: list[_Heading] = []
    stack: list[tuple[int, str]] = []  # (level, title) of the open headings, outermost first
    for title in titles:
        level = levels[title[0].size]
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, " ".join(line.text for line in title)))
        headings.append(_Heading(title[0].page, tuple(t for _, t in stack), title[0].text))
    return headings


def _sized_lines(pdf: pdfium.PdfDocument, index: int) -> list[_Line]:
    """The page's lines of text with their font sizes (rounded to a tenth of a point)."""
    with _textpage(pdf, index) as textpage:
        handle = textpage.raw
        chars = [(chr(pdfium_c.FPDFText_GetUnicode(handle, i)),
                  pdfium_c.FPDFText_GetFontSize(handle, i))
                 for i in range(pdfium_c.FPDFText_CountChars(handle))]
    lines: list[_Line] = []
    number = 0
    text: list[str] = []
    sizes: list[float] = []
    for char, size in [*chars, ("\n", 0.0)]:
        if char == "\n":
            if sizes:
                line = " ".join("".join(text).split())
                lines.append(_Line(index, number, line, round(min(sizes), 1)))
            number, text, sizes = number + 1, [], []
        elif char != "\r":
            text.append(char)
            if not char.isspace():
                sizes.append(size)
    return lines


def _page_text(pdf: pdfium.PdfDocument, index: int) -> str:
    with _textpage(pdf, index) as textpage:
        text = textpage.get_text_range()
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


@contextmanager
def _textpage(pdf: pdfium.PdfDocument, index: int) -> Iterator[pdfium.PdfTextPage]:
    """The page's text layer, closed with its page: pdfium holds both until closed."""
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            yield textpage
        finally:
            textpage.close()
    finally:
        page.close()


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
