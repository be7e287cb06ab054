"""Build a collection's map: sample units, project their vectors, place queries and hits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from embedstore.plot import DEFAULT_K, DEFAULT_LIMIT, cache, projection
from embedstore.plot.points import CollectionMap, MapPoint, QueryMarker, top_folders
from embedstore.retrieval import search as search_module
from embedstore.store import db
from embedstore.store.collection import Collection

# Enough for a map; fewer bytes of JSON and HTML.
DECIMALS = 5


@dataclass(frozen=True)
class BuiltMap:
    map: CollectionMap
    cached: bool  # read from the collection's map cache, nothing computed


def build_map(
    collection: Collection,
    *,
    method: str = "pca",
    limit: int = DEFAULT_LIMIT,
    seed: int = 0,
    queries: Sequence[str] = (),
    k: int = DEFAULT_K,
) -> BuiltMap:
    """The map of up to ``limit`` units, from the cache when this generation has it.

    Each query becomes a marker placed by its embedding, with its top-``k``
    hybrid search hits; hits outside the sample are added as points.
    """
    projection.check_method(method)
    projection.check_seed(seed)
    projection.check_limit(limit)
    for query in queries:
        search_module.check_search_args(query, k, "hybrid")
    key = cache.key(method, limit, seed, queries, k)
    # One read transaction: ids, vectors and rows are read in separate statements,
    # and a writer committing between them would leave sampled ids without a row.
    with db.snapshot(collection.conn):
        generation = db.generation(collection.conn)
        found = cache.load(collection.path, generation, key)
        if found is not None:
            return BuiltMap(found, cached=True)
        made = _compute(collection, generation, method, limit, seed, queries, k)
    cache.save(collection.path, generation, key, made)
    return BuiltMap(made, cached=False)


def _compute(
    collection: Collection, generation: int, method: str, limit: int, seed: int,
    queries: Sequence[str], k: int,
) -> CollectionMap:
    conn, dim = collection.conn, collection.manifest.dim
    every_id = db.unit_ids(conn)
    sample = projection.sample_ids(every_id, limit, seed)
    query_vectors = (collection.query_encoder.encode(list(queries), kind="query") if queries
                     else np.zeros((0, dim), dtype=np.float32))  # (q, d)
    hits = [
        tuple(r.id for r in search_module.search(
            collection, query, k, query_vector=query_vectors[i : i + 1]))
        for i, query in enumerate(queries)
    ]
    in_sample = set(sample.tolist())
    outside = sorted({h for found in hits for h in found} - in_sample)
    placed = np.concatenate([sample, np.array(outside, dtype=np.int64)])  # (n,)
    vectors = db.vectors_for(conn, placed, dim)  # (n, d)
    xy, used = projection.project(
        vectors[: len(sample)], np.vstack([vectors[len(sample):], query_vectors]), method, seed
    )  # (n + q, 2)
    xy = np.round(xy.astype(np.float64), DECIMALS)
    rows = db.unit_rows(conn, placed.tolist())
    units = [rows[int(i)] for i in placed]
    folders = top_folders([u.path for u in units])
    points = tuple(
        MapPoint(id=u.id, path=u.path, start_line=u.start_line, end_line=u.end_line, kind=u.kind,
                 language=u.language, symbol=u.symbol, folder=folder,
                 x=float(xy[i, 0]), y=float(xy[i, 1]))
        for i, (u, folder) in enumerate(zip(units, folders, strict=True))
    )
    markers = tuple(
        QueryMarker(query, float(xy[len(placed) + j, 0]), float(xy[len(placed) + j, 1]), found)
        for j, (query, found) in enumerate(zip(queries, hits, strict=True))
    )
    return CollectionMap(
        collection=collection.name, method=used, limit=limit, seed=seed, generation=generation,
        total_units=len(every_id), sampled=len(sample), points=points, queries=markers,
    )
