"""The PDF reader over real PDFs: written by tests/chunking/readers/make_pdf.py, and a cut of
Debian's liboctave manual as pdfTeX made it (files/README.md), all read by pdfium."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest

from embedstore.chunking.readers import DocumentReadError, read_document
from embedstore.chunking.readers.pdf import read_pdf
from tests.chunking.readers.make_pdf import make_pdf

LIBOCTAVE = Path(__file__).parent / "files" / "liboctave-optimization.pdf"

MANUAL = make_pdf(
    [
        ["Introduction", "This manual explains the tool.", "It has two chapters."],
        ["Usage", "Run the tool twice.", "Classes", "Private variables are mangled by name."],
        [],  # a scanned page: an image, no text
        ["The classes chapter goes on here."],
    ],
    outline=[(0, "Introduction", 0), (0, "Usage", 1), (1, "Classes", 1)],
    title="Tool manual",
)


def test_sections_follow_the_outline_with_their_heading_path_and_page() -> None:
    document = read_pdf(MANUAL)
    found = [(s.path, s.location, s.text.split("\n")[0]) for s in document.sections]
    assert found == [
        (("Introduction",), "page=1", "Introduction"),
        (("Usage",), "page=2", "Usage"),
        # Split on the page where its title stands; a section goes on over later pages.
        (("Usage", "Classes"), "page=2", "Classes"),
        (("Usage", "Classes"), "page=4", "The classes chapter goes on here."),
    ]
    assert "Private variables are mangled by name." in document.sections[2].text


def test_a_page_without_text_is_counted_never_a_section() -> None:
    document = read_pdf(MANUAL)
    assert document.pages_without_text == 1
    assert all(s.location != "page=3" for s in document.sections)


def test_without_an_outline_each_page_is_a_section_under_the_title() -> None:
    document = read_pdf(make_pdf([["First page."], ["Second page."]], title="Notes"))
    assert [(s.path, s.location, s.text) for s in document.sections] == [
        (("Notes",), "page=1", "First page."), (("Notes",), "page=2", "Second page."),
    ]


def test_lines_ending_a_sentence_short_of_the_width_end_a_paragraph() -> None:
    page = ["A long line of running text that fills the width of the page nicely,",
            "and goes on to the end of its sentence.", "Next paragraph."]
    (section,) = read_pdf(make_pdf([page])).sections
    assert section.text.split("\n\n") == ["\n".join(page[:2]), page[2]]


def test_the_rendered_text_knows_each_lines_page() -> None:
    rendered = read_document("manual.pdf", MANUAL)
    lines = rendered.text.split("\n")
    line = lines.index("Private variables are mangled by name.") + 1
    assert rendered.location_at(line) == "page=2"
    assert rendered.section_at(line).path == ("Usage", "Classes")  # type: ignore[union-attr]
    assert rendered.pages_without_text == 1


def test_an_encrypted_pdf_is_refused_as_encrypted() -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(MANUAL))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(DocumentReadError) as raised:
        read_document("secret.pdf", out.getvalue())
    assert raised.value.reason == "encrypted"


@pytest.mark.parametrize("data", [b"", b"%PDF-1.4\nnot really", MANUAL[: len(MANUAL) // 3]])
def test_a_damaged_pdf_is_refused_as_damaged(data: bytes) -> None:
    try:
        rendered = read_document("broken.pdf", data)
    except DocumentReadError as error:
        assert error.reason == "damaged"
    else:
        # pdfium repairs what it can of a truncated file: what it gives is still text.
        assert "Introduction" in rendered.text


def test_without_an_outline_larger_type_makes_the_headings_and_their_levels() -> None:
    pdf = make_pdf(
        [
            [("Tool manual", 20), "Intro text of the manual, in the body's type."],
            [("Usage", 16), "Run the tool twice.", ("Classes and", 13), ("private names", 13),
             "Private variables are mangled by name."],
            [("Usage", 16), "Another chapter of the same title.", ("Options", 13),
             "A large number: 42 and more."],
        ],
        title="Tool manual",
    )
    found = [(s.path, s.location, s.text.split("\n")[0]) for s in read_pdf(pdf).sections]
    assert found == [
        (("Tool manual",), "page=1", "Tool manual"),
        (("Tool manual", "Usage"), "page=2", "Usage"),
        # Two lines in one size, one after the other: one title.
        (("Tool manual", "Usage", "Classes and private names"), "page=2", "Classes and"),
        (("Tool manual", "Usage"), "page=3", "Usage"),
        (("Tool manual", "Usage", "Options"), "page=3", "Options"),
    ]


def test_without_an_outline_larger_type_without_letters_or_at_length_is_no_heading() -> None:
    blurb = [("A paragraph set in a larger type, as a title page's blurb is set,", 14),
             ("runs on over several lines, and is no title of anything at all.", 14)]
    pdf = make_pdf([["Body text of the page.", ("12 345", 16), *blurb, "More body text."]])
    assert [s.path for s in read_pdf(pdf).sections] == [()]


def test_a_real_manual_is_cut_by_its_outline_without_running_heads() -> None:
    document = read_pdf(LIBOCTAVE.read_bytes())
    bounds = [s for s in document.sections if s.path == ("9 Optimization", "Bounds")]
    assert [s.location for s in bounds][:1] == ["page=2"]
    assert bounds[0].text.startswith("Bounds\nBounds (void)\nBounds (int n)")
    text = "\n".join(s.text for s in document.sections)
    # pdfTeX's running heads: the page number alone on a chapter's first page, the chapter
    # and the number on the others.
    assert "Chapter 9: Optimization 41" not in text
    assert not any(s.text.strip().isdigit() for s in document.sections)
    assert "Nonlinear Programming\nNLP (void)" in text
