"""One-file, crash-safe storage of a serialised index with a small JSON header.

Layout: ``MAGIC | header length (uint32, little-endian) | header JSON | payload``.
The header records the payload's length and sha256, so a truncated or
damaged file is refused before FAISS ever parses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from embedstore.atomic_files import replace_atomically
from embedstore.errors import VectorIndexError

MAGIC = b"EMBSTIDX"
FORMAT_VERSION = 1
_HEADER_LENGTH = struct.Struct("<I")


def open_regular_file(path: Path) -> BinaryIO:
    """``path`` open for reading, if it is a regular file (a link to one too).

    A FIFO in an index's place would block its reader forever, and a device such as
    /dev/zero never ends: either is an OSError here, at once.
    """
    # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for
    # one; on a regular file it changes nothing.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path.name} is not a regular file")
    return os.fdopen(fd, "rb")


def write_index_file(path: Path, meta: Mapping[str, Any], payload: npt.NDArray[np.uint8]) -> None:
    """Write ``meta`` and ``payload`` to ``path`` atomically: old file or new, never half."""
    payload_bytes = payload.data  # a memoryview: no copy of a possibly large index
    header = {
        **meta,
        "format": FORMAT_VERSION,
        "payload_bytes": payload_bytes.nbytes,
        "payload_sha256": hashlib.sha256(payload_bytes).hexdigest(),
    }
    header_bytes = json.dumps(header, sort_keys=True).encode("utf-8")
    path = Path(path)
    try:
        replace_atomically(
            path, (MAGIC, _HEADER_LENGTH.pack(len(header_bytes)), header_bytes, payload_bytes)
        )
    except OSError as err:
        raise VectorIndexError(f"cannot write the vector index to {path}: {err}") from err


def read_index_file(path: Path) -> tuple[dict[str, Any], npt.NDArray[np.uint8]]:
    """The header and the verified payload written by ``write_index_file``.

    Raises ``VectorIndexError`` when the file is missing, unreadable, not an
    index file, of an unknown format version, truncated or damaged.
    """
    path = Path(path)
    try:
        with open_regular_file(path) as file:
            data = file.read()
    except FileNotFoundError as err:
        raise VectorIndexError(f"no vector index at {path}; build the index first") from err
    except OSError as err:
        raise VectorIndexError(f"cannot read the vector index {path}: {err}") from err

    def corrupt(reason: str) -> VectorIndexError:
        return VectorIndexError(
            f"the vector index {path} is damaged ({reason}); delete it and rebuild the index"
        )

    prefix = len(MAGIC) + _HEADER_LENGTH.size
    if len(data) < prefix or not data.startswith(MAGIC):
        raise corrupt("not an embedstore index file")
    (header_length,) = _HEADER_LENGTH.unpack_from(data, len(MAGIC))
    if prefix + header_length > len(data):
        raise corrupt("truncated header")
    try:
        header = json.loads(data[prefix : prefix + header_length].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise corrupt("unreadable header") from err
    if not isinstance(header, dict):
        raise corrupt("unreadable header")
    if header.get("format") != FORMAT_VERSION:
        raise VectorIndexError(
            f"the vector index {path} has format {header.get('format')!r}, this version reads "
            f"format {FORMAT_VERSION}; rebuild the index"
        )
    payload = np.frombuffer(data, dtype=np.uint8, offset=prefix + header_length)  # (nbytes,)
    if payload.nbytes != header.get("payload_bytes"):
        raise corrupt(f"{payload.nbytes} payload bytes instead of {header.get('payload_bytes')}")
    if hashlib.sha256(payload.data).hexdigest() != header.get("payload_sha256"):
        raise corrupt("checksum mismatch")
    return header, payload
