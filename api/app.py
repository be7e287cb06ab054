"""The FastAPI app factory: a thin HTTP shell over the library."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

from embedstore.api.deps import require_api_key
from embedstore.api.errors import install_error_handlers
from embedstore.api.jobs import JobManager
from embedstore.api.limits import BodySizeLimit
from embedstore.api.mcp_http import McpHttpEndpoint
from embedstore.api.mcp_server import build_mcp_server
from embedstore.api.metrics import Metrics
from embedstore.api.openapi import ERROR_RESPONSES, install_openapi
from embedstore.api.routes import (
    collections,
    documents,
    embeddings,
    files,
    jobs,
    many,
    models,
    search,
    system,
)
from embedstore.api.routes import map as collection_map
from embedstore.api.settings import ServerSettings
from embedstore.api.state import AppState, CollectionCache
from embedstore.api.warmup import Warmup
from embedstore.encoders.registry import load_encoder
from embedstore.ingest.watch import describe, watch_folder, watchable
from embedstore.store.store import Store

log = logging.getLogger("embedstore.api")


def create_app(settings: ServerSettings | None = None, *, batching: bool = True) -> FastAPI:
    """Build the app; ``batching=False`` encodes each request alone (the load-test baseline)."""
    config = settings or ServerSettings()
    config.check_exposure()
    store = Store(config.store)
    state = AppState(
        settings=config, store=store, collections=CollectionCache(store),
        jobs=JobManager(store), metrics=Metrics(), batching=batching,
    )
    watched = [watchable(path) for path in config.watch]  # a wrong folder fails before serving
    # Without preloading, nothing loads ahead of the first request: waiting would not help.
    warmup = Warmup(store, state.collections) if config.preload_model else None
    mcp = McpHttpEndpoint(
        build_mcp_server(store, state.collections, max_query_chars=config.max_query_chars,
                         warmup=warmup),
        config.host,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warmup is not None:
            loading = asyncio.create_task(asyncio.to_thread(_load_models, state, warmup))
        else:
            state.ready.set()
        watchers = [asyncio.create_task(_watch(store, path)) for path in watched]
        try:
            async with mcp.running():
                yield
        finally:
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
        if warmup is not None and not loading.done():
            loading.cancel()
        await state.close()

    app = FastAPI(
        title="embedstore",
        description="Semantic code and document search: collections, documents, hybrid "
        "search, RAG context and OpenAI-compatible embeddings.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None, redoc_url=None,  # /docs is system.docs: Swagger UI served locally
    )
    app.state.embedstore = state
    install_error_handlers(app)
    app.middleware("http")(state.metrics.middleware)
    app.add_middleware(BodySizeLimit, max_bytes=config.max_request_bytes)
    guarded = [Depends(require_api_key)]
    for router in (collections.router, documents.router, search.router, many.router,
                   jobs.router, embeddings.router, models.router, collection_map.router,
                   files.router):
        app.include_router(router, dependencies=guarded, responses=ERROR_RESPONSES)
    app.include_router(system.router)
    install_openapi(app, config)
    app.mount("/static", StaticFiles(directory=system.STATIC), name="static")
    # MCP over streamable HTTP: an ASGI app as a route (a mount would redirect /mcp to /mcp/).
    app.router.routes.append(Route("/mcp", mcp, include_in_schema=False))
    return app


async def _watch(store: Store, folder: Path) -> None:
    await watch_folder(
        store, folder, on_report=lambda report: log.info("watch: %s", describe(report)),
        on_error=lambda exc: log.warning("watch of %s: %s", folder, exc),
    )


def _load_models(state: AppState, warmup: Warmup) -> None:
    """What the collections' searches need (MCP calls wait for it), then the default model
    (for /v1/embeddings)."""
    warmup.run()
    load_encoder(None)
    state.ready.set()
    log.info("default encoder and the collections' query encoders loaded; ready")
