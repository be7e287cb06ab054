"""Chunking a read document: heading paths in what is embedded, a section one unit, cut
between paragraphs, tables whole where they fit, units never across locations."""

from __future__ import annotations

from embedstore.chunking.readers import Document, Section, chunk_document, render
from embedstore.chunking.types import chunk_body
from embedstore.chunking.units import group_units
from tests.chunking.conftest import count_words

PARAGRAPH = " ".join(["word"] * 30)


def units_of(document: Document, max_tokens: int) -> list[tuple[int, int, list[str]]]:
    rendered = render(document)
    chunks = chunk_document(rendered, max_tokens=max_tokens, count_tokens=count_words)
    assert all(count_words([chunk_body(c)])[0] <= max_tokens for c in chunks)
    return [(u.start_line, u.end_line, [chunk_body(c) for c in u.chunks])
            for u in group_units(chunks)]


def test_what_is_embedded_carries_the_heading_path() -> None:
    document = Document((Section(("Tutorial", "Classes", "Private Variables"),
                                 "Private Variables\n\nNames with two underscores."),))
    ((_, _, (body,)),) = units_of(document, 100)
    assert body.startswith("Tutorial > Classes > Private Variables\nPrivate Variables\n")


def test_a_long_section_is_one_unit_cut_between_paragraphs_with_its_path_each_time() -> None:
    text = "\n\n".join(["Long"] + [f"{PARAGRAPH} p{i}" for i in range(6)])
    ((start, end, bodies),) = units_of(Document((Section(("Guide", "Long"), text),)), 80)
    assert (start, end) == (1, 13) and len(bodies) > 1
    assert bodies[0].split("\n")[1] == "Long"
    for body in bodies:
        context, _, rest = body.partition("\n")
        assert context == "Guide > Long"
        # Whole paragraphs only: each piece starts and ends on one.
        assert rest.split("\n")[0].startswith(("word", "Long")) and rest.endswith(tuple(
            f"p{i}" for i in range(6)))


def test_a_table_that_fits_stays_whole() -> None:
    table = "\n".join(f"row{i} | {i}" for i in range(8))
    text = f"{PARAGRAPH}\n\n{table}\n\n{PARAGRAPH}"
    ((_, _, bodies),) = units_of(Document((Section(("T",), text),)), 60)
    assert any(table in body for body in bodies)


def test_short_sections_join_at_one_location_never_across_two() -> None:
    document = Document((
        Section(("A",), "A\n\none"), Section(("B",), "B\n\ntwo"),  # both on page 1
        Section(("C",), "C\n\nthree", location="page=2"),
    ))
    document = Document(tuple(
        s if s.location else Section(s.path, s.text, "page=1") for s in document.sections
    ))
    units = units_of(document, 200)
    assert [(start, end) for start, end, _ in units] == [(1, 7), (9, 11)]


def test_a_code_section_is_chunked_as_code_under_its_path() -> None:
    code = "import os\n\n\ndef walk(top):\n    return list(os.walk(top))\n"
    document = Document((Section(("Setup",), "Setup\n\nSome prose.", "cell=1"),
                         Section(("Setup",), code, "cell=2", language="python")))
    rendered = render(document)
    chunks = chunk_document(rendered, max_tokens=200, count_tokens=count_words)
    walk = next(c for c in chunks if c.symbol == "walk")
    assert rendered.text.split("\n")[walk.start_line - 1] == "def walk(top):"
    assert walk.context.startswith("Setup")
    assert rendered.location_at(walk.start_line) == "cell=2"
