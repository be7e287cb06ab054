"""Search, batch search and RAG context over one collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from fastapi import APIRouter
from starlette.exceptions import HTTPException

from embedstore.api.deps import CollectionDep, StateDep
from embedstore.api.highlight import highlight
from embedstore.api.limits import check_query_length
from embedstore.api.openapi import FORBIDDEN_RESPONSE
from embedstore.api.routes.jobs import allowed_path
from embedstore.api.schemas import (
    BatchSearchRequest,
    BatchSearchResponse,
    ContextBlockOut,
    ContextRequest,
    ContextResponse,
    Filters,
    Hit,
    SearchRequest,
    SearchResponse,
)
from embedstore.api.state import AppState
from embedstore.chunking.types import TokenCounter
from embedstore.retrieval import context as context_module
from embedstore.retrieval import search as search_module
from embedstore.retrieval.code_context import context_for_code
from embedstore.retrieval.context import RagContext
from embedstore.retrieval.prompt_formats import layout_prompt
from embedstore.retrieval.search import SearchResult
from embedstore.retrieval.tokenizers import (
    encoding_names,
    load_encoding,
    load_folder,
    load_tokenizer,
)
from embedstore.store.collection import Collection

router = APIRouter(prefix="/v1/collections/{name}", tags=["search"])


def tokenizer_for(state: AppState, requested: str | None) -> TokenCounter | None:
    """The requested tokenizer, else the server's (None: the encoder's).

    A client names a tiktoken encoding, or gives the absolute path of a folder under an
    allowed root: a bare name must never resolve against the server's working folder,
    nor ``~user`` tell whose home folders exist.
    """
    if requested is None:
        spec = state.settings.tokenizer  # the operator's own choice: any folder or name
        return load_tokenizer(spec) if spec else None
    known = encoding_names()
    if requested in known:
        return load_encoding(requested)
    if not Path(requested).is_absolute():
        raise HTTPException(422, (
            f"tokenizer must be a tiktoken encoding ({', '.join(sorted(known))}) or the "
            "absolute path of a Hugging Face tokenizer folder under a folder this server "
            "may read (--allow-root)"
        ))
    return load_folder(allowed_path(requested, state.settings.allowed_roots), requested)


def check_queries(state: AppState, queries: list[str], k: int) -> None:
    limits = state.settings
    if k > limits.max_k:
        raise ValueError(f"k must be at most {limits.max_k}, got {k}")
    if len(queries) > limits.max_batch_items:
        raise ValueError(f"at most {limits.max_batch_items} queries per request")
    for q in queries:
        check_query_length(q, limits.max_query_chars)


# Every score to the same places, as the CLI's JSON: enough to order, short to read.
SCORE_PLACES = 6


def _rounded(score: float | None) -> float | None:
    return None if score is None else round(score, SCORE_PLACES)


def hit_out(r: SearchResult, with_html: bool) -> Hit:
    return Hit(
        id=r.id, document_id=r.document_id, path=r.path, start_line=r.start_line,
        end_line=r.end_line, match_start_line=r.match_start_line,
        match_end_line=r.match_end_line, kind=r.kind, language=r.language,
        score=round(r.score, SCORE_PLACES), text=r.text, symbol=r.symbol, found_by=r.found_by,
        dense_score=_rounded(r.dense_score), collection=r.collection, abs_path=r.abs_path,
        lexical_score=_rounded(r.lexical_score), location=r.location, anchor=r.anchor,
        owner_header=r.owner_header, heading_path=r.heading_path,
        html=highlight(r) if with_html else None,
    )


async def _run_searches(
    state: AppState, collection: Collection, queries: list[str], k: int, mode: str,
    filters: Filters, nprobe: int | None,
) -> list[list[SearchResult]]:
    """Encode every query through the shared batcher, then search off the event loop."""
    vectors: np.ndarray | None = None
    if mode != "lexical":
        manifest = collection.manifest
        batcher = state.query_batcher(manifest.encoder, manifest.pooling)
        vectors = await batcher.encode(queries, kind="query")  # (q, d)
    library_filters = filters.to_library()

    def run_all() -> list[list[SearchResult]]:
        return [
            search_module.search(
                collection, q, k, mode=mode, filters=library_filters, nprobe=nprobe,
                query_vector=None if vectors is None else vectors[i : i + 1],
            )
            for i, q in enumerate(queries)
        ]

    return await state.run_search(run_all)


@router.post("/search")
async def search(
    body: SearchRequest, state: StateDep, collection: CollectionDep
) -> SearchResponse:
    check_queries(state, [body.query], body.k)
    (results,) = await _run_searches(
        state, collection, [body.query], body.k, body.mode, body.filters, body.nprobe
    )
    return SearchResponse(
        query=body.query, collection=collection.name, mode=body.mode,
        results=[hit_out(r, body.highlight) for r in results],
    )


@router.post("/search/batch")
async def search_batch(
    body: BatchSearchRequest, state: StateDep, collection: CollectionDep
) -> BatchSearchResponse:
    check_queries(state, body.queries, body.k)
    per_query = await _run_searches(
        state, collection, body.queries, body.k, body.mode, body.filters, body.nprobe
    )
    return BatchSearchResponse(
        collection=collection.name, mode=body.mode,
        results=[
            SearchResponse(query=q, collection=collection.name, mode=body.mode,
                           results=[hit_out(r, False) for r in results])
            for q, results in zip(body.queries, per_query, strict=True)
        ],
    )


@router.post("/context", responses=FORBIDDEN_RESPONSE)
def context(body: ContextRequest, state: StateDep, collection: CollectionDep) -> ContextResponse:
    """Context for a question in words (``query``), or for the code at a cursor (``code``)."""
    filters = body.filters.to_library()
    count = tokenizer_for(state, body.tokenizer)
    prompt: str | dict[str, Any] | None = None
    if body.code is not None:
        limit = state.settings.max_document_chars
        if len(body.code) + len(body.code_after or "") > limit:
            raise ValueError(f"code and code_after may hold at most {limit:,} characters")
        packed = context_for_code(
            collection, body.code, code_after=body.code_after, path=body.path,
            max_tokens=body.max_tokens, tokenizer=count, filters=filters,
        )
        if body.format is not None:
            prompt = layout_prompt(
                packed, body.format, code=body.code, code_after=body.code_after or "",
                path=body.path or "", repo=collection.name,
            )
    else:
        query = body.query or ""
        check_queries(state, [query], 1)
        packed = context_module.context(
            collection, query, body.max_tokens, mode=body.mode, filters=filters,
            count_tokens=count,
        )
    return context_out(body.query or "", collection.name, packed, prompt)


def context_out(
    query: str, collection: str, packed: RagContext,
    prompt: str | dict[str, Any] | None = None,
) -> ContextResponse:
    return ContextResponse(
        query=query, collection=collection, tokens=packed.tokens,
        max_tokens=packed.max_tokens, text=packed.text,
        blocks=[ContextBlockOut(path=b.path, start_line=b.start_line, end_line=b.end_line,
                                ranges=b.ranges) for b in packed.blocks],
        prompt=prompt,
    )
