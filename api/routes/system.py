"""Health, metrics, the search page and the API docs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.exceptions import HTTPException
from swagger_ui_bundle import swagger_ui_path

from embedstore.api.deps import StateDep, require_api_key
from embedstore.api.highlight import stylesheet
from embedstore.api.openapi import ERROR_RESPONSES

STATIC = Path(__file__).resolve().parent.parent / "static"
# Swagger UI from the swagger-ui-bundle package, not a CDN: /docs works offline.
SWAGGER_UI = Path(str(swagger_ui_path))
DOCS_ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")

router = APIRouter(tags=["system"])


@router.get("/health")
def health(state: StateDep) -> dict[str, Any]:
    """Liveness: 200 while the process answers; `ready` says what /ready does."""
    ready = state.ready.is_set()
    return {"status": "ok", "ready": ready, "collections": len(state.store.names())}


@router.get("/ready", responses={503: {"description": "The models are still loading"}})
def ready(state: StateDep) -> JSONResponse:
    """Readiness, for a load balancer: 503 until the default model and the collections' query
    encoders and indexes are loaded (searches before then wait for them), then 200."""
    if state.ready.is_set():
        return JSONResponse({"status": "ready"})
    return JSONResponse({"status": "loading"}, status_code=503, headers={"Retry-After": "1"})


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


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """Swagger UI over /openapi.json, every asset served from here."""
    root = request.scope.get("root_path", "").rstrip("/")
    return get_swagger_ui_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} API",
        swagger_js_url=f"{root}/docs/assets/swagger-ui-bundle.js",
        swagger_css_url=f"{root}/docs/assets/swagger-ui.css",
        swagger_favicon_url=f"{root}/docs/assets/favicon-32x32.png",
    )


@router.get("/docs/assets/{name}", include_in_schema=False)
def docs_asset(name: str) -> FileResponse:
    if name not in DOCS_ASSETS:
        raise HTTPException(404, f"no docs asset {name!r}")
    return FileResponse(SWAGGER_UI / name)
