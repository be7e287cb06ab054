"""EPUB: the book's chapters in reading order, each read as the web page it is.

An EPUB is a zip package: ``META-INF/container.xml`` names the package document (OPF),
whose manifest lists the XHTML files and whose spine orders them. Each spine item is read
by the HTML reader; its sections keep their heading path and are located by their place
in the spine (``chapter=3``), which an e-book reader can go to, where a heading id inside
a zip is not a place a browser can open.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from xml.etree import ElementTree

from embedstore.chunking.readers.base import Document, DocumentReadError, Section
from embedstore.chunking.readers.html import read_html

_CONTAINER = "META-INF/container.xml"
# DRM: a publisher's encrypted chapters are listed here (fonts may be too, but only
# obfuscated, which leaves the text readable).
_ENCRYPTION = "META-INF/encryption.xml"
_XHTML = frozenset({"application/xhtml+xml", "text/html"})
# A small file must not unpack into gigabytes: the chapters' unpacked size at most.
MAX_UNPACKED_BYTES = 64 * 1024 * 1024


def read_epub(data: bytes) -> Document:
    try:
        book = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise DocumentReadError("damaged", "not a zip package") from exc
    chapters = _spine(book)
    if _encrypted(book, set(chapters)):
        raise DocumentReadError("encrypted", "its chapters are encrypted (DRM)")
    if sum(book.getinfo(name).file_size for name in chapters) > MAX_UNPACKED_BYTES:
        raise DocumentReadError("too large", "its chapters unpack to over 64 MiB")
    sections: list[Section] = []
    for number, name in enumerate(chapters, start=1):
        for section in read_html(book.read(name)).sections:
            sections.append(Section(section.path, section.text, f"chapter={number}",
                                    section.language))
    return Document(tuple(sections))


def _spine(book: zipfile.ZipFile) -> list[str]:
    """The package's XHTML files in reading order, as names in the zip."""
    names = set(book.namelist())
    if _CONTAINER not in names:
        raise DocumentReadError("damaged", f"no {_CONTAINER}")
    rootfile = next((e.get("full-path") for e in _parsed(book, _CONTAINER).iter()
                     if _local(e.tag) == "rootfile"), None)
    if not rootfile or rootfile not in names:
        raise DocumentReadError("damaged", "no package document")
    package = _parsed(book, rootfile)
    folder = posixpath.dirname(rootfile)
    items = {e.get("id"): e for e in package.iter() if _local(e.tag) == "item"}
    chapters = []
    for ref in (e for e in package.iter() if _local(e.tag) == "itemref"):
        item = items.get(ref.get("idref"))
        if item is None or item.get("media-type") not in _XHTML:
            continue
        name = posixpath.normpath(posixpath.join(folder, item.get("href") or ""))
        if name in names and name not in chapters:
            chapters.append(name)
    return chapters


def _encrypted(book: zipfile.ZipFile, chapters: set[str]) -> bool:
    if _ENCRYPTION not in book.namelist():
        return False
    uris = {e.get("URI") for e in _parsed(book, _ENCRYPTION).iter()
            if _local(e.tag) == "CipherReference"}
    return bool(uris & chapters)


def _parsed(book: zipfile.ZipFile, name: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(book.read(name))
    except ElementTree.ParseError as exc:
        raise DocumentReadError("damaged", f"{name} is not XML") from exc


def _local(tag: str) -> str:
    """A tag without its namespace: ``{urn:oasis:...}rootfile`` -> ``rootfile``."""
    return tag.rsplit("}", 1)[-1]
