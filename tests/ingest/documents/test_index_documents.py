"""Indexing a folder of documents: read by their readers, units with their locations,
unreadable files named in the summary, re-indexed by content hash like code."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.store import Store
from tests.chunking.readers.make_pdf import make_pdf
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.ingest.watch.test_watch import wait_for, watching

HTML = (Path(__file__).parents[2] / "chunking" / "readers" / "files" / "classes-excerpt.html")
MANUAL = make_pdf(
    [["Introduction", "This manual explains the frobnicator."],
     ["Usage", "Run the frobnicator twice.", "Mangling", "Private names are mangled."],
     []],
    outline=[(0, "Introduction", 0), (0, "Usage", 1), (1, "Mangling", 1)],
)


def encrypted(pdf: bytes) -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def folder(root: Path) -> Path:
    root.mkdir()
    (root / "manual.pdf").write_bytes(MANUAL)
    (root / "classes.html").write_bytes(HTML.read_bytes())
    (root / "secret.pdf").write_bytes(encrypted(MANUAL))
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is no PDF")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    (root / "tool.py").write_text("def frobnicate(x):\n    return x * 2\n")
    return root


def test_documents_are_indexed_with_their_locations(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = folder(tmp_path / "docs")
    store = Store()
    report = index_folder(store, root, IndexOptions(name="docs", encoder=FAKE_SPEC))

    collection = store.open("docs")
    languages = {r.path: r.language for r in db.files_by_path(collection.conn).values()}
    assert languages == {"manual.pdf": "pdf", "classes.html": "html", "tool.py": "python"}
    (hit,) = search(collection, "private names mangled", 1, mode="lexical",
                    filters=SearchFilters(languages=("pdf",)))
    assert (hit.path, hit.anchor, hit.location) == ("manual.pdf", "page=2", "manual.pdf#page=2")
    # Short sections on one page are one unit, named by both headings.
    assert hit.symbol == "Usage, Mangling" and hit.to_dict()["location"] == "manual.pdf#page=2"
    (html,) = search(collection, "name mangling private variables", 1, mode="lexical",
                     filters=SearchFilters(languages=("html",)))
    assert html.location == "classes.html#private-variables"
    (code,) = search(collection, "frobnicate", 1, mode="lexical",
                     filters=SearchFilters(languages=("python",)))
    assert code.anchor is None and code.location == "tool.py:1-2"

    assert report.unreadable_documents == {
        "broken.docx": "damaged", "broken.pdf": "damaged", "secret.pdf": "encrypted"}
    assert report.skipped["encrypted"] == 1 and report.skipped["damaged"] == 2
    assert report.pages_without_text == 1
    assert report.left_out() == [
        "skipped 1 DOCX: damaged (broken.docx)",
        "skipped 1 PDF: damaged (broken.pdf)",
        "skipped 1 PDF: encrypted (secret.pdf)",
        "1 PDF page(s) without text (scanned?): not indexed",
    ]


def test_a_document_is_re_indexed_by_its_content_hash(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = folder(tmp_path / "docs")
    store = Store()
    index_folder(store, root, IndexOptions(name="docs", encoder=FAKE_SPEC))
    fake_encoder.encoded.clear()

    again = index_folder(store, root, IndexOptions(name="docs", encoder=FAKE_SPEC))
    assert again.nothing_changed and fake_encoder.encoded == []

    (root / "manual.pdf").write_bytes(make_pdf(
        [["Introduction", "This manual explains the frobnicator."], ["Usage", "Run it once."]],
        outline=[(0, "Introduction", 0), (0, "Usage", 1)],
    ))
    changed = index_folder(store, root, IndexOptions(name="docs", encoder=FAKE_SPEC))
    assert (changed.files_changed, changed.files_new) == (1, 0)
    # The first page's section is the same text: its vector is reused, not encoded again.
    assert not any("explains the frobnicator" in text for text in fake_encoder.encoded)
    collection = store.open("docs")
    assert search(collection, "mangled", 5, mode="lexical",
                  filters=SearchFilters(languages=("pdf",))) == []
    (usage,) = search(collection, "run it once", 1, mode="lexical",
                      filters=SearchFilters(languages=("pdf",)))
    assert usage.location == "manual.pdf#page=2"


def test_watch_indexes_a_new_pdf_at_its_pages(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    root = tmp_path / "repo"  # the watch helpers index it as collection "repo"
    root.mkdir()
    (root / "manual.pdf").write_bytes(MANUAL)
    store = Store()

    def found() -> str | None:
        collection = store.open("repo")
        try:
            hits = search(collection, "rotate every token", 1, mode="lexical")
        finally:
            collection.close()
        return hits[0].location if hits else None

    with watching(store, root) as reports:
        assert reports[0].files_new == 1
        (root / "guide.pdf").write_bytes(make_pdf([["Intro"], ["Rotate every token weekly."]]))
        # Generous: a watch run reads the PDF and commits on a machine that may be busy.
        wait_for(lambda: found() == "guide.pdf#page=2", "the new PDF")
