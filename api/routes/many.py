"""Search and context over many collections at once (all of the store by default)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from fastapi import APIRouter

from embedstore.api.deps import StateDep
from embedstore.api.openapi import FORBIDDEN_RESPONSE
from embedstore.api.routes.search import check_queries, context_out, hit_out, tokenizer_for
from embedstore.api.schemas import (
    ContextResponse,
    ManyContextRequest,
    ManySearchRequest,
    ManySearchResponse,
)
from embedstore.api.state import AppState
from embedstore.errors import UserInputError
from embedstore.retrieval.context import encoder_prompt_counter
from embedstore.retrieval.federation import LocalMember, context_members, search_members

router = APIRouter(prefix="/v1", tags=["search"])


@contextmanager
def _members(state: AppState, names: list[str] | None) -> Iterator[list[LocalMember]]:
    """Each named collection (default: all), kept open until the answer is built."""
    chosen = list(dict.fromkeys(names)) if names else state.store.names()
    if not chosen:
        raise UserInputError("the store has no collection yet")
    with ExitStack() as stack:
        yield [LocalMember(stack.enter_context(state.collections.lease(n))) for n in chosen]


@router.post("/search")
def search_many(body: ManySearchRequest, state: StateDep) -> ManySearchResponse:
    """One ranking over several collections; every hit names its collection."""
    check_queries(state, [body.query], body.k)
    with _members(state, body.collections) as members:
        hits = search_members(members, body.query, body.k, mode=body.mode,
                              filters=body.filters.to_library())
        return ManySearchResponse(
            query=body.query, collections=[m.name for m in members], mode=body.mode,
            results=[hit_out(h, body.highlight) for h in hits],
        )


@router.post("/context", responses=FORBIDDEN_RESPONSE)
def context_many(body: ManyContextRequest, state: StateDep) -> ContextResponse:
    """A context from several collections; block paths are `collection/path`."""
    check_queries(state, [body.query], 1)
    with _members(state, body.collections) as members:
        count = tokenizer_for(state, body.tokenizer) or encoder_prompt_counter(
            members[0].collection
        )
        packed = context_members(members, body.query, body.max_tokens, count, mode=body.mode,
                                 filters=body.filters.to_library())
        name = members[0].name if len(members) == 1 else ""
        return context_out(body.query, name, packed)
