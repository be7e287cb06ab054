"""Prometheus metrics, one registry per app so that several apps never share counters."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from embedstore.api.collection_cache import CollectionCache


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "embedstore_requests_total", "HTTP requests", ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "embedstore_request_seconds", "HTTP request latency", ["route"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "embedstore_encode_batch_size", "Texts per encoder call of the API",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
            registry=self.registry,
        )
        self.units = Gauge(
            "embedstore_collection_units", "Definitions, sections and windows per collection",
            ["collection"], registry=self.registry,
        )
        self.chunks = Gauge(
            "embedstore_collection_chunks", "Chunks per collection", ["collection"],
            registry=self.registry,
        )
        self.files = Gauge(
            "embedstore_collection_files", "Files and documents per collection", ["collection"],
            registry=self.registry,
        )
        self.unreadable = Gauge(
            "embedstore_collection_unreadable",
            "1 for a collection that cannot be read (damaged, outdated, a full disk)",
            ["collection"], registry=self.registry,
        )

    def render(self, collections: CollectionCache) -> Response:
        for gauge in (self.units, self.chunks, self.files, self.unreadable):
            gauge.clear()
        every, unreadable = collections.read_each(lambda collection: collection.stats())
        for stats in every:
            self.units.labels(stats.name).set(stats.units)
            self.chunks.labels(stats.name).set(stats.chunks)
            self.files.labels(stats.name).set(stats.files)
        for name in unreadable:
            self.unreadable.labels(name).set(1)
        return Response(generate_latest(self.registry), media_type="text/plain; version=0.0.4")

    async def middleware(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        began = time.perf_counter()
        response = await call_next(request)
        route = _route_template(request)
        self.requests.labels(request.method, route, str(response.status_code)).inc()
        self.latency.labels(route).observe(time.perf_counter() - began)
        return response


def _route_template(request: Request) -> str:
    """The matched route's path template (/v1/collections/{name}), so labels stay few."""
    route = request.scope.get("route")
    return str(getattr(route, "path_format", None) or getattr(route, "path", "unmatched"))
