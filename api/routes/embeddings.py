"""POST /v1/embeddings, in OpenAI's shape, so OpenAI clients work unchanged."""

from __future__ import annotations

import base64

import numpy as np
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from embedstore.api.deps import StateDep
from embedstore.api.schemas import EmbeddingItem, EmbeddingsRequest, EmbeddingsResponse, Usage
from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec, load_encoder

router = APIRouter(prefix="/v1", tags=["embeddings"])


def served_models(state_specs: list[str]) -> set[str]:
    """The default model and every encoder an existing collection uses: nothing else is
    loaded on a client's request (an arbitrary name could mean a multi-GB download)."""
    return {DEFAULT_ENCODER, *state_specs}


@router.post("/embeddings")
async def embeddings(body: EmbeddingsRequest, state: StateDep) -> EmbeddingsResponse:
    texts = [body.input] if isinstance(body.input, str) else body.input
    limits = state.settings
    if not texts or any(not t for t in texts):
        raise ValueError("input must be a non-empty string or a list of non-empty strings")
    if len(texts) > limits.max_batch_items:
        raise ValueError(f"at most {limits.max_batch_items} inputs per request, got {len(texts)}")
    if any(len(t) > limits.max_document_chars for t in texts):
        raise ValueError(f"each input is limited to {limits.max_document_chars:,} characters")
    spec = canonical_spec(body.model) if body.model else DEFAULT_ENCODER
    in_use = await run_in_threadpool(
        lambda: [collection.manifest.encoder for collection in state.collections.each()]
    )
    if spec not in served_models(in_use):
        raise HTTPException(404, f"model {body.model!r} is not served here; use {DEFAULT_ENCODER}")
    encoder = await run_in_threadpool(load_encoder, spec)
    if body.dimensions is not None and body.dimensions != encoder.dim:
        raise ValueError(
            f"model {spec} returns {encoder.dim}-dimensional vectors and cannot truncate them "
            f"to {body.dimensions}; omit `dimensions`"
        )
    vectors = await state.batcher(spec).encode(texts, kind="document")  # (n, dim)
    tokens = sum(await run_in_threadpool(encoder.count_tokens, texts))
    return EmbeddingsResponse(
        data=[
            EmbeddingItem(embedding=_encode(v, body.encoding_format), index=i)
            for i, v in enumerate(vectors)
        ],
        model=spec,
        usage=Usage(prompt_tokens=tokens, total_tokens=tokens),
    )


def _encode(vector: np.ndarray, encoding_format: str) -> list[float] | str:
    if encoding_format == "base64":
        # OpenAI's convention: little-endian float32 bytes, base64-encoded.
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return [float(x) for x in vector]
