"""The EPUB reader over books the tests pack as EPUB 3 lays them out (a zip package)."""

from __future__ import annotations

import io
import zipfile

import pytest

from embedstore.chunking.readers import DocumentReadError, read_document
from embedstore.chunking.readers.epub import read_epub

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
# The spine reads ch2 before ch1: reading order is the spine's, not the manifest's.
PACKAGE = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Caches</dc:title></metadata>
  <manifest>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c2"/><itemref idref="css"/><itemref idref="c1"/></spine>
</package>"""


def chapter(title: str, sub: str, text: str) -> str:
    return (f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>{title}</h1>'
            f"<p>Opening words.</p><h2>{sub}</h2><p>{text}</p>"
            "<pre>cache.get(key)\n    .value</pre></body></html>")


def book(extra: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", CONTAINER)
        z.writestr("OEBPS/content.opf", PACKAGE)
        z.writestr("OEBPS/text/ch1.xhtml", chapter("Eviction", "LRU", "The oldest goes."))
        z.writestr("OEBPS/text/ch2.xhtml", chapter("Basics", "Keys", "A key is hashed."))
        z.writestr("OEBPS/style.css", "body { margin: 0 }")
        for name, text in (extra or {}).items():
            z.writestr(name, text)
    return out.getvalue()


def test_chapters_in_spine_order_with_heading_paths_and_chapter_locations() -> None:
    sections = read_epub(book()).sections
    assert [(s.path, s.location) for s in sections] == [
        (("Basics",), "chapter=1"), (("Basics", "Keys"), "chapter=1"),
        (("Eviction",), "chapter=2"), (("Eviction", "LRU"), "chapter=2"),
    ]
    assert "A key is hashed." in sections[1].text
    assert "cache.get(key)\n    .value" in sections[1].text  # code keeps its lines


def test_read_by_name_and_rendered_with_locations() -> None:
    rendered = read_document("guide.epub", book())
    line = rendered.text.split("\n").index("LRU") + 1
    assert rendered.location_at(line) == "chapter=2"


def test_drm_encrypted_chapters_are_refused_as_encrypted() -> None:
    encryption = """<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
      xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>
      <enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData></enc:EncryptedData>
      </encryption>"""
    with pytest.raises(DocumentReadError) as raised:
        read_epub(book({"META-INF/encryption.xml": encryption}))
    assert raised.value.reason == "encrypted"


@pytest.mark.parametrize("data", [b"not a zip at all", book()[:200]], ids=["text", "cut"])
def test_a_damaged_book_is_refused_as_damaged(data: bytes) -> None:
    with pytest.raises(DocumentReadError) as raised:
        read_document("broken.epub", data)
    assert raised.value.reason == "damaged"


def test_a_package_without_its_container_is_damaged() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
    with pytest.raises(DocumentReadError) as raised:
        read_epub(out.getvalue())
    assert raised.value.reason == "damaged"
