"""POST /v1/embeddings, in OpenAI's shape, so OpenAI clients work unchanged."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from typing import cast

import numpy as np
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from embedstore.api.deps import StateDep
from embedstore.api.errors import InvalidRequestError
from embedstore.api.routes.models import served_models, served_spec
from embedstore.api.schemas import (
    EmbeddingInput,
    EmbeddingItem,
    EmbeddingsRequest,
    EmbeddingsResponse,
    Usage,
)
from embedstore.api.state import AppState
from embedstore.api.token_inputs import check_vocabulary, encode_ids, frame_of, token_model
from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import load_encoder

router = APIRouter(prefix="/v1", tags=["embeddings"])

# Inputs are encoded in groups of about this many characters: the tokenizer
# reads a whole input even though the model keeps its first tokens only, so
# one call over all inputs of a request would hold them all at once.
GROUP_CHARS = 256 * 1024


@router.post("/embeddings")
async def embeddings(body: EmbeddingsRequest, state: StateDep) -> EmbeddingsResponse:
    """Texts or token ids (of the model's own tokenizer) -> unit-length vectors."""
    texts, id_lists = _inputs(body.input)
    limits = state.settings
    count = len(texts) or len(id_lists)
    if count > limits.max_embedding_inputs:
        raise InvalidRequestError(
            f"at most {limits.max_embedding_inputs:,} inputs per request, got {count:,}", "input"
        )
    if any(len(t) > limits.max_document_chars for t in texts):
        raise InvalidRequestError(
            f"each input is limited to {limits.max_document_chars:,} characters", "input"
        )
    spec = served_spec(body.model, await served_models(state))
    encoder = await run_in_threadpool(load_encoder, spec)
    if body.dimensions is not None and body.dimensions != encoder.dim:
        raise InvalidRequestError(
            f"model {spec} returns {encoder.dim}-dimensional vectors and cannot truncate them "
            f"to {body.dimensions} (it was not trained for shorter ones); omit `dimensions`",
            "dimensions",
        )
    if texts:
        vectors, tokens = await _embed_texts(state, spec, encoder, texts)
    else:
        vectors, tokens = await _embed_ids(state, spec, encoder, id_lists)
    return EmbeddingsResponse(
        data=[
            EmbeddingItem(embedding=_encode(v, body.encoding_format), index=i)
            for i, v in enumerate(vectors)
        ],
        model=spec,
        usage=Usage(prompt_tokens=tokens, total_tokens=tokens),
    )


def _inputs(value: EmbeddingInput) -> tuple[list[str], list[list[int]]]:
    """(texts, token-id lists): validation lets a request hold one kind only, so one list is
    empty. A lone text, or a lone list of ids, is one input."""
    if isinstance(value, str):
        return [value], []
    if isinstance(value[0], int):
        return [], [cast(list[int], value)]
    if isinstance(value[0], str):
        return cast(list[str], value), []
    return [], cast(list[list[int]], value)


async def _embed_texts(
    state: AppState, spec: str, encoder: Encoder, texts: list[str]
) -> tuple[np.ndarray, int]:
    # One input at a time, so the tokenizer never holds more than one input.
    counts = (encoder.count_tokens([text])[0] for text in texts)
    tokens = await run_in_threadpool(capped_total, counts, state.settings.max_embedding_tokens)
    batcher = state.batcher(spec)
    vectors = np.concatenate([
        await batcher.encode(group, kind="document") for group in char_bounded(texts, GROUP_CHARS)
    ])  # (n, dim)
    return vectors, tokens


async def _embed_ids(
    state: AppState, spec: str, encoder: Encoder, id_lists: list[list[int]]
) -> tuple[np.ndarray, int]:
    model = token_model(encoder, spec)
    frame = await run_in_threadpool(frame_of, model)
    check_vocabulary(frame, id_lists, spec)
    # Counted as a text's tokens are: its own plus the special tokens framing it.
    tokens = capped_total((len(ids) + frame.special for ids in id_lists),
                          state.settings.max_embedding_tokens)
    vectors = await run_in_threadpool(encode_ids, model, frame, id_lists)  # (n, dim)
    return vectors, tokens


def capped_total(counts: Iterable[int], max_tokens: int) -> int:
    """The inputs' total tokens, refused once over ``max_tokens``; it stops at the first
    input over the cap instead of counting the rest."""
    total = 0
    for i, count in enumerate(counts):
        total += count
        if total > max_tokens:
            raise InvalidRequestError(
                f"the inputs hold more than {max_tokens:,} tokens (the limit per request, "
                f"passed at input {i}); send fewer or shorter inputs", "input"
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
