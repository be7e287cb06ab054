"""GET /v1/collections/{name}/map: the 2-D map of a collection's units, for the search page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedstore.api.deps import CollectionDep
from embedstore.api.map_schemas import MapResponse
from embedstore.plot.build import build_map
from embedstore.plot.projection import MAX_SEED, MIN_NEIGHBOURHOOD, available_methods

router = APIRouter(prefix="/v1/collections/{name}", tags=["map"])

# A t-SNE or UMAP of more points keeps a worker thread busy for minutes.
MAX_LIMIT = 20_000


@router.get("/map")
def collection_map(
    collection: CollectionDep,
    # The schema lists the methods this server can run (UMAP is an optional extra).
    method: Annotated[str, Query(
        json_schema_extra={"enum": available_methods()},
        description=f"pca, tsne or umap; PCA below {MIN_NEIGHBOURHOOD} units.",
    )] = "pca",
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Units sampled, at most.")] = 5000,
    seed: Annotated[int, Query(ge=0, le=MAX_SEED)] = 0,
) -> MapResponse:
    """Points (units) with their 2-D position; cached per collection generation."""
    found = build_map(collection, method=method, limit=limit, seed=seed).map
    return MapResponse.model_validate(found.to_dict())
