"""Health, metrics and the search page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, PlainTextResponse, Response

from embedstore.api.deps import StateDep, require_api_key
from embedstore.api.highlight import stylesheet
from embedstore.api.openapi import ERROR_RESPONSES

STATIC = Path(__file__).resolve().parent.parent / "static"

router = APIRouter(tags=["system"])


@router.get("/health")
def health(state: StateDep) -> dict[str, Any]:
    """Liveness (it answers) and readiness (the default model is loaded)."""
    ready = state.ready.is_set()
    return {"status": "ok", "ready": ready, "collections": len(state.store.names())}


@router.get(
    "/metrics", dependencies=[Depends(require_api_key)], response_class=PlainTextResponse,
    # No `model`: FastAPI would give the error the route's text/plain media type.
    responses={401: {
        "description": ERROR_RESPONSES[401]["description"],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    }},
)
async def metrics(state: StateDep) -> Response:
    """Prometheus text format."""
    return await run_in_threadpool(state.metrics.render, state.collections)


@router.get("/", include_in_schema=False)
def page() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/static/highlight.css", include_in_schema=False)
def highlight_css() -> PlainTextResponse:
    return PlainTextResponse(stylesheet(), media_type="text/css")
