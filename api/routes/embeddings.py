"""POST /v1/embeddings, in OpenAI's shape, so OpenAI clients work unchanged."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import numpy as np
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from embedstore.api.deps import StateDep
from embedstore.api.schemas import EmbeddingItem, EmbeddingsRequest, EmbeddingsResponse, Usage
from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec, load_encoder

router = APIRouter(prefix="/v1", tags=["embeddings"])

# Inputs are encoded in groups of about this many characters: the tokenizer
# reads a whole input even though the model keeps its first tokens only, so
# one call over all inputs of a request would hold them all at once.
GROUP_CHARS = 256 * 1024


def served_models(state_specs: list[str]) -> set[str]:
    """The default model and every encoder an existing collection uses: nothing else is
    loaded on a client's request (an arbitrary name could mean a multi-GB download)."""
    return {DEFAULT_ENCODER, *state_specs}


@router.post("/embeddings")
async def embeddings(body: EmbeddingsRequest, state: StateDep) -> EmbeddingsResponse:
    texts = [body.input] if isinstance(body.input, str) else body.input
    limits = state.settings
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
    tokens = await run_in_threadpool(count_within, encoder, texts, limits.max_embedding_tokens)
    batcher = state.batcher(spec)
    vectors = np.concatenate([
        await batcher.encode(group, kind="document") for group in char_bounded(texts, GROUP_CHARS)
    ])  # (n, dim)
    return EmbeddingsResponse(
        data=[
            EmbeddingItem(embedding=_encode(v, body.encoding_format), index=i)
            for i, v in enumerate(vectors)
        ],
        model=spec,
        usage=Usage(prompt_tokens=tokens, total_tokens=tokens),
    )


def count_within(encoder: Encoder, texts: list[str], max_tokens: int) -> int:
    """The inputs' total tokens, refused once over ``max_tokens``.

    One input at a time, so the tokenizer never holds more than one input;
    it stops at the first input over the cap instead of reading the rest.
    """
    total = 0
    for i, text in enumerate(texts):
        total += encoder.count_tokens([text])[0]
        if total > max_tokens:
            raise ValueError(
                f"the inputs hold more than {max_tokens:,} tokens (the limit per request, "
                f"passed at input {i}); send fewer or shorter inputs"
            )
    return total


def char_bounded(texts: list[str], max_chars: int) -> Iterator[list[str]]:
    """Consecutive groups of at most ``max_chars`` characters (or one longer input)."""
    group: list[str] = []
    size = 0
    for text in texts:
        if group and size + len(text) > max_chars:
            yield group
            group, size = [], 0
        group.append(text)
        size += len(text)
    if group:
        yield group


def _encode(vector: np.ndarray, encoding_format: str) -> list[float] | str:
    if encoding_format == "base64":
        # OpenAI's convention: little-endian float32 bytes, base64-encoded.
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return [float(x) for x in vector]
