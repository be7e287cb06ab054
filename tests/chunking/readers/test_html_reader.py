"""The HTML reader over a real Sphinx page (an excerpt of the Python tutorial) and made ones."""

from __future__ import annotations

from pathlib import Path

from embedstore.chunking.readers import read_document
from embedstore.chunking.readers.html import read_html

CLASSES = (Path(__file__).parent / "files" / "classes-excerpt.html").read_bytes()


def test_sections_by_heading_with_their_path_and_permalink_ids() -> None:
    document = read_html(CLASSES)
    assert [(s.path, s.location) for s in document.sections] == [
        (("9. Classes",), "classes"),
        (("9. Classes", "9.6. Private Variables"), "private-variables"),
    ]


def test_docbook_headings_are_located_by_the_division_they_open() -> None:
    """A PostgreSQL manual page (DocBook): the id is on <div class="sect1">, not the h2."""
    page = (Path(__file__).parents[2] / "evaluation" / "files" / "documents"
            / "tutorial-views.html").read_bytes()
    sections = read_html(page).sections
    assert (sections[0].path[-1], sections[0].location) == ("3.2. Views", "TUTORIAL-VIEWS")
    # The prev/up/next header and footer are navigation, not the page's text.
    assert not any("Prev" in s.text.split() for s in sections)
    made = read_html(b'<h2><a id="top"></a>Top</h2><p>a</p>'
                     b'<h2><a name="old-style"></a>Old</h2><p>b</p>').sections
    assert [s.location for s in made] == ["top", "old-style"]


def test_a_docbook_table_of_contents_is_navigation() -> None:
    page = (b'<div class="chapter" id="ddl"><div class="titlepage"><h2>5. Data Definition</h2>'
            b'</div><div class="toc"><dl class="toc"><dt>5.1. Table Basics</dt></dl></div>'
            b'<p>Tables hold rows.</p></div>')
    (section,) = read_html(page).sections
    assert section.text == "5. Data Definition\n\nTables hold rows."


def test_scripts_styles_and_navigation_are_dropped() -> None:
    text = read_document("classes.html", CLASSES).text
    assert "Private Variables" in text and "name mangling" in text
    for dropped in ("documentation_options", "full-width-table", "Navigation",
                    "Table of Contents", "General Index", "¶"):
        assert dropped not in text


def test_code_blocks_keep_their_lines_and_indentation() -> None:
    text = read_document("classes.html", CLASSES).text
    assert "class Mapping:\n    def __init__(self, iterable):\n        self.items_list = []" in text


def test_paragraphs_are_blocks_and_tables_rows() -> None:
    page = b"""<html><head><title>T</title></head><body><h1 id="top">Top</h1>
    <p>One   paragraph,
    on two lines.</p><p>Another.</p>
    <table><tr><th>name</th><th>value</th></tr><tr><td>a</td><td>1</td></tr></table>
    <h2>Sub</h2><ul><li>first</li><li>second</li></ul></body></html>"""
    top, sub = read_html(page).sections
    assert top.text == "Top\n\nOne paragraph, on two lines.\n\nAnother.\n\nname | value\na | 1"
    assert (top.location, sub.path, sub.text) == ("top", ("Top", "Sub"), "Sub\n\nfirst\nsecond")


def test_a_page_without_headings_is_one_section_under_its_title() -> None:
    page = b"<html><head><title>Just text</title></head><body><p>Hello.</p></body></html>"
    assert [(s.path, s.text) for s in read_html(page).sections] == [(("Just text",), "Hello.")]


def test_the_declared_charset_is_used_and_broken_markup_still_reads() -> None:
    page = '<meta charset="latin-1"><h1>Caf\xe9</h1><p>Cr\xe8me <b>br\xfbl\xe9e'.encode("latin-1")
    (section,) = read_html(page).sections
    assert section.text == "Café\n\nCrème brûlée"
    # Bytes that are not the declared encoding are replaced, not a failure.
    assert read_html(b"<h1>x</h1><p>\xff\xfe</p>").sections[0].path == ("x",)
