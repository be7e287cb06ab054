"""GET /v1/models and /v1/models/{id}, in OpenAI's shape: the encoders this server serves."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from embedstore.api.deps import StateDep
from embedstore.api.schemas import ModelCard, ModelList
from embedstore.api.state import AppState
from embedstore.encoders.registry import DEFAULT_ENCODER, STOCK_ENCODER, canonical_spec
from embedstore.errors import EncoderLoadError

router = APIRouter(prefix="/v1", tags=["models"])


async def served_models(state: AppState) -> dict[str, list[str]]:
    """Model id -> the collections encoded with it: the default model, the stock model it
    adapts, and every encoder an existing collection uses. Nothing else is loaded on a
    client's request (an arbitrary name could mean a multi-GB download)."""

    def collect() -> dict[str, list[str]]:
        served: dict[str, list[str]] = {spec: [] for spec in (DEFAULT_ENCODER, STOCK_ENCODER)}
        # One that cannot be read serves nothing; GET /v1/collections says why.
        encoders, _ = state.collections.read_each(
            lambda collection: (collection.manifest.encoder, collection.name)
        )
        for encoder, name in encoders:
            served.setdefault(encoder, []).append(name)
        return served

    return await run_in_threadpool(collect)


def served_spec(name: str | None, served: dict[str, list[str]]) -> str:
    """The served model a request names (its id, or another spelling of it such as
    ``all-MiniLM-L6-v2``); EncoderLoadError (404 model_not_found) for any other name."""
    if name is None:
        return DEFAULT_ENCODER
    try:
        spec = canonical_spec(name)
    except EncoderLoadError:
        spec = None  # one answer for every unserved name: it says nothing of server folders
    if spec not in served:
        raise EncoderLoadError(
            f"model {name!r} is not served here; GET /v1/models lists the models that are"
        )
    return spec


def _card(spec: str, collections: list[str]) -> ModelCard:
    org, slash, _ = spec.partition("/")
    # A hub name "org/name" is owned by org; a folder or "family:arg" spec is local.
    owner = org if slash and org and ":" not in org else "local"
    return ModelCard(id=spec, owned_by=owner, collections=sorted(collections))


@router.get("/models")
async def list_models(state: StateDep) -> ModelList:
    """The default model first, then the other collections' encoders by id."""
    served = await served_models(state)
    order = sorted(served, key=lambda spec: (spec != DEFAULT_ENCODER, spec))
    return ModelList(data=[_card(spec, served[spec]) for spec in order])


@router.get("/models/{model_id:path}")
async def retrieve_model(model_id: str, state: StateDep) -> ModelCard:
    """One served model; its id may hold slashes (a hub name, a model folder)."""
    served = await served_models(state)
    spec = served_spec(model_id, served)
    return _card(spec, served[spec])
