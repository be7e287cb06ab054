"""What the Office Open XML readers (Word, PowerPoint) share: opening the package."""

from __future__ import annotations

import io
import zipfile

from embedstore.chunking.readers.base import DocumentReadError

# An Office file saved with a password is an OLE compound file, not a zip package.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_package(data: bytes) -> io.BytesIO:
    """The file to hand python-docx or python-pptx; refuses what is not an Office Open XML
    package, saying why."""
    if data.startswith(_OLE_MAGIC):
        raise DocumentReadError("encrypted", "a password-protected (or pre-2007) Office file")
    stream = io.BytesIO(data)
    if not zipfile.is_zipfile(stream):
        raise DocumentReadError("damaged", "not a zip package")
    stream.seek(0)
    return stream
