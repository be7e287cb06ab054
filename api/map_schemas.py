"""Response body of GET /v1/collections/{name}/map (the JSON of embedstore.plot.points)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from embedstore.plot.projection import MIN_NEIGHBOURHOOD


class MapPointOut(BaseModel):
    id: int = Field(description="The unit's id, as in search results.")
    path: str
    start_line: int
    end_line: int
    kind: str
    language: str
    symbol: str | None
    folder: str = Field(description="The first folder level at which the collection's paths "
                                    "differ, e.g. 'email/'; './' for files above it.")
    x: float
    y: float


class QueryMarkerOut(BaseModel):
    query: str
    x: float
    y: float
    hits: list[int] = Field(description="Unit ids of its top-k hits, best first.")


class MapResponse(BaseModel):
    collection: str
    method: str = Field(
        description=f"The method used: PCA for fewer than {MIN_NEIGHBOURHOOD} points."
    )
    limit: int
    seed: int
    generation: int = Field(description="The collection's write generation the map was made at.")
    total_units: int
    sampled: int = Field(description="How many units were sampled: the first `sampled` points.")
    points: list[MapPointOut]
    queries: list[QueryMarkerOut]
