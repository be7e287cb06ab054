"""One-file, crash-safe storage of a BM25 segment, read back as memory maps.

Layout: ``MAGIC | header length (uint64, little-endian) | header JSON | arrays``.
The header holds the caller's metadata, the vocabulary and each array's
dtype, shape and offset (64-byte aligned). Arrays are mapped, not read: a
million-unit segment (about 300 MB) opens in milliseconds and pages in as
queries touch it. A damaged file is refused by its sizes and bounds, which
cost one pass over the row numbers (no checksum: that would read every byte
on every open).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from embedstore.atomic_files import replace_atomically
from embedstore.errors import LexicalIndexError
from embedstore.indexes.bm25 import Segment
from embedstore.indexes.io import open_regular_file

MAGIC = b"EMBSBM25"
FORMAT_VERSION = 1
ALIGN = 64
_HEADER_LENGTH = struct.Struct("<Q")
_ARRAYS = ("offsets", "rows", "freqs", "unit_ids", "lengths")


def write_segment(path: Path, segment: Segment, meta: Mapping[str, Any]) -> None:
    """Write ``segment`` and ``meta`` to ``path`` atomically: the old file or the new one."""
    terms = sorted(segment.terms, key=segment.terms.__getitem__)  # term id order
    arrays = {name: np.ascontiguousarray(getattr(segment, name)) for name in _ARRAYS}
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, array in arrays.items():
        layout[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        offset += _padded(array.nbytes)
    header = json.dumps({**meta, "format": FORMAT_VERSION, "arrays": layout, "terms": terms,
                         "array_bytes": offset}).encode("utf-8")
    start = _padded(len(MAGIC) + _HEADER_LENGTH.size + len(header))
    prefix = MAGIC + _HEADER_LENGTH.pack(len(header)) + header
    chunks: list[bytes | memoryview] = [prefix, bytes(start - len(prefix))]
    for array in arrays.values():
        chunks += [array.data.cast("B"), bytes(_padded(array.nbytes) - array.nbytes)]
    try:
        replace_atomically(path, chunks)
    except OSError as err:
        raise LexicalIndexError(f"cannot write the BM25 segment {path}: {err}") from err


def read_segment(path: Path) -> tuple[Segment, dict[str, Any]]:
    """The segment (arrays mapped read-only) and the metadata ``write_segment`` stored."""
    try:
        with open_regular_file(path) as file:
            prefix = file.read(len(MAGIC) + _HEADER_LENGTH.size)
            if len(prefix) < len(MAGIC) + _HEADER_LENGTH.size or not prefix.startswith(MAGIC):
                raise _damaged(path, "not a BM25 segment file")
            (length,) = _HEADER_LENGTH.unpack_from(prefix, len(MAGIC))
            header = json.loads(file.read(length).decode("utf-8"))
        size = path.stat().st_size
    except FileNotFoundError as err:
        raise LexicalIndexError(f"no BM25 segment at {path}") from err
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, struct.error) as err:
        raise _damaged(path, f"unreadable header: {err}") from err
    if not isinstance(header, dict) or header.get("format") != FORMAT_VERSION:
        raise _damaged(path, "unknown format")
    start = _padded(len(MAGIC) + _HEADER_LENGTH.size + length)
    if start + header["array_bytes"] != size:
        raise _damaged(path, f"{size} bytes, the header describes {start + header['array_bytes']}")
    arrays = {
        name: np.memmap(path, dtype=np.dtype(spec["dtype"]), mode="r",
                        offset=start + spec["offset"], shape=tuple(spec["shape"]))
        for name, spec in header["arrays"].items()
    }
    terms = {term: i for i, term in enumerate(header.pop("terms"))}
    segment = Segment(terms=terms, **{name: arrays[name] for name in _ARRAYS})
    _check_bounds(path, segment)
    return segment, header


def _check_bounds(path: Path, segment: Segment) -> None:
    """Refuse a segment whose numbers would index past its own arrays."""
    offsets, n = segment.offsets, segment.unit_ids.size
    if (
        offsets.size != len(segment.terms) + 1
        or segment.lengths.size != n
        or segment.freqs.size != segment.rows.size
        or (offsets.size and (offsets[0] != 0 or offsets[-1] != segment.rows.size))
        or (offsets.size > 1 and bool((np.diff(offsets) < 0).any()))
        or (segment.rows.size and not 0 <= int(segment.rows.min()) <= int(segment.rows.max()) < n)
    ):
        raise _damaged(path, "inconsistent arrays")


def _damaged(path: Path, reason: str) -> LexicalIndexError:
    return LexicalIndexError(f"the BM25 segment {path} is damaged ({reason}); it is rebuilt")


def _padded(nbytes: int) -> int:
    return -(-nbytes // ALIGN) * ALIGN
