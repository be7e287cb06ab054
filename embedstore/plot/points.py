"""What a map holds: its points (units), query markers and how it was made; JSON both ways.

This JSON is what `GET /v1/collections/{name}/map` returns and what the cache stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

from embedstore.plot.projection import METHOD_NAMES


@dataclass(frozen=True)
class MapPoint:
    """One unit (definition, section or window) at its place on the map."""

    id: int
    path: str
    start_line: int
    end_line: int
    kind: str
    language: str
    symbol: str | None
    folder: str
    x: float
    y: float

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class QueryMarker:
    """A query placed among the units, with its top-k hits (unit ids, best first)."""

    query: str
    x: float
    y: float
    hits: tuple[int, ...]


@dataclass(frozen=True)
class CollectionMap:
    """The points of a map: the ``sampled`` units first, then any query hits outside the sample.

    ``method`` is the one used (PCA for a map too small for t-SNE or UMAP).
    """

    collection: str
    method: str
    limit: int
    seed: int
    generation: int
    total_units: int
    sampled: int
    points: tuple[MapPoint, ...]
    queries: tuple[QueryMarker, ...] = ()

    @property
    def summary(self) -> str:
        """What the map shows: how many units of how many, how they were projected."""
        return (f"{self.sampled:,} of {self.total_units:,} units, {METHOD_NAMES[self.method]}, "
                f"seed {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CollectionMap:
        fields = {k: v for k, v in data.items() if k not in ("points", "queries")}
        return cls(
            **fields,
            points=tuple(MapPoint(**p) for p in data["points"]),
            queries=tuple(
                QueryMarker(q["query"], q["x"], q["y"], tuple(q["hits"])) for q in data["queries"]
            ),
        )


def top_folders(paths: Sequence[str]) -> list[str]:
    """Each path's folder one level below the folders all paths share, e.g. ``email/``.

    Colouring by the full parent folder gives hundreds of colours, by the first
    folder often one (``src/``): the first level where paths differ tells
    parts of a codebase apart. Files at that level get the shared folder (``./`` at the top).
    """
    parents = [PurePosixPath(p).parent.parts for p in paths]
    shared = parents[0] if parents else ()
    for parts in parents[1:]:
        while parts[: len(shared)] != shared:
            shared = shared[:-1]
    depth = len(shared)
    return ["/".join(parts[: depth + 1]) + "/" if len(parts) > depth else
            ("/".join(shared) + "/" if shared else "./") for parts in parents]
