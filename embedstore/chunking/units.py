"""Units: what search returns. A unit is a definition, section or window, whole.

The chunker cuts what is over the encoder's token budget into pieces; every
piece remembers the unit it came from (:attr:`Chunk.unit_lines`). Here the
pieces of one unit are put back together: one row, one vector, one entry in
the lexical index, so a long function competes as one result, never as five.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from embedstore.chunking.types import Chunk


@dataclass(frozen=True)
class UnitPlan:
    """The chunks of one unit, in line order, and what the unit is."""

    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    chunks: tuple[Chunk, ...]


def group_units(chunks: Sequence[Chunk]) -> list[UnitPlan]:
    """The units of one file's chunks (in file order), each with its pieces."""
    groups: dict[tuple[int, int], list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.unit_lines, []).append(chunk)
    return [
        UnitPlan(start, end, pieces[0].kind, pieces[0].symbol, tuple(pieces))
        for (start, end), pieces in sorted(groups.items())
    ]


def unit_vector(pieces: np.ndarray) -> np.ndarray:
    """(n, d) unit-length piece vectors -> the unit's (d,) unit-length vector.

    The mean direction of its pieces: a short tail piece can no longer win a
    query alone, and a query about the whole still finds the whole.
    """
    mean = pieces.mean(axis=0)  # (d,)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def own_name(symbol: str | None) -> str:
    """The unit's own names: ``Console.export_html`` -> ``export_html``.

    Joined neighbours carry several symbols (``a, B.c``); each keeps its last part.
    """
    if not symbol:
        return ""
    return " ".join(part.rsplit(".", 1)[-1] for part in symbol.split(", "))


def owner_name(symbol: str | None) -> str:
    """The enclosing classes of the unit's symbols: ``Console.export_html`` -> ``Console``."""
    if not symbol:
        return ""
    return " ".join(part.rsplit(".", 1)[0] for part in symbol.split(", ") if "." in part)
