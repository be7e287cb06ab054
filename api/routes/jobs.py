"""Index a folder on the server as a background job; follow its progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from starlette.exceptions import HTTPException

from embedstore.api.deps import CollectionName, StateDep
from embedstore.api.openapi import FORBIDDEN_RESPONSE
from embedstore.api.schemas import IndexRequest
from embedstore.ingest.indexer import IndexOptions

router = APIRouter(prefix="/v1", tags=["jobs"])


def allowed_path(requested: str, roots: list[Path]) -> Path:
    """The folder, resolved (symlinks too), if it lies under an allowed root; else 403."""
    if not roots:
        raise HTTPException(
            403, "indexing server folders is off: start the server with --allow-root DIR"
        )
    bases = [r.resolve() for r in roots]
    candidate = Path(requested)
    try:
        resolved = (candidate if candidate.is_absolute() else bases[0] / candidate).resolve()
    except RuntimeError:  # Python 3.11's resolve says so of a loop of links
        raise HTTPException(404, f"{requested!r} is a loop of symbolic links") from None
    if not any(resolved == b or resolved.is_relative_to(b) for b in bases):
        raise HTTPException(403, f"{requested!r} is outside the folders this server may index")
    return resolved


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # is_dir passes only "no such file" errors, not "name too long"
        return False


@router.post("/collections/{name}/index", status_code=202, responses=FORBIDDEN_RESPONSE)
def start_index_job(name: CollectionName, body: IndexRequest, state: StateDep) -> dict[str, Any]:
    folder = allowed_path(body.path, state.settings.allowed_roots)
    if not _is_folder(folder):
        raise HTTPException(404, f"{body.path!r} is not a folder on the server")
    options = IndexOptions(name=name, rebuild=body.rebuild, index_kind=body.index_kind)
    job = state.jobs.submit(name, folder, options)
    return state.jobs.snapshot(job)


@router.get("/jobs")
def list_jobs(state: StateDep) -> list[dict[str, Any]]:
    return [state.jobs.snapshot(j) for j in state.jobs.all()]


@router.get("/jobs/{job_id}")
def get_job(job_id: str, state: StateDep) -> dict[str, Any]:
    job = state.jobs.get(job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id!r}")
    return state.jobs.snapshot(job)
