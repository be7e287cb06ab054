"""Search and context over many collections at once (all of the store by default)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from fastapi import APIRouter

from embedstore.api.deps import StateDep
from embedstore.api.openapi import FORBIDDEN_RESPONSE, MANY_RESPONSES
from embedstore.api.routes.search import check_queries, context_out, hit_out, tokenizer_for
from embedstore.api.schemas import (
    ManyContextRequest,
    ManyContextResponse,
    ManySearchRequest,
    ManySearchResponse,
    SkippedOut,
)
from embedstore.api.state import AppState
from embedstore.errors import UserInputError
from embedstore.retrieval.context import encoder_prompt_counter
from embedstore.retrieval.federation import (
    LocalMember,
    Skipped,
    context_members,
    open_members,
    search_members,
)

router = APIRouter(prefix="/v1", tags=["search"])


@contextmanager
def _members(
    state: AppState, names: list[str] | None
) -> Iterator[tuple[list[LocalMember], list[Skipped]]]:
    """Each named collection (default: all) that opens, kept open until the answer is
    built, and those skipped: damaged, or (when all were asked for) deleted meanwhile."""
    chosen = list(dict.fromkeys(names)) if names else state.store.names()
    if not chosen:
        raise UserInputError("the store has no collection yet")
    with ExitStack() as stack:
        yield open_members(
            chosen, lambda n: stack.enter_context(state.collections.lease(n)),
            missing_ok=not names,
        )


def _skipped_out(skipped: list[Skipped]) -> list[SkippedOut]:
    return [SkippedOut(collection=s.collection, reason=s.reason) for s in skipped]


@router.post("/search", responses=MANY_RESPONSES)
def search_many(body: ManySearchRequest, state: StateDep) -> ManySearchResponse:
    """One ranking over several collections; every hit names its collection. A collection
    that cannot be read (damaged, or deleted meanwhile) is left out and named in
    `skipped`."""
    check_queries(state, [body.query], body.k)
    with _members(state, body.collections) as (members, skipped):
        hits = search_members(members, body.query, body.k, mode=body.mode,
                              filters=body.filters.to_library(), skipped=skipped)
        answered = {m.name for m in members} - {s.collection for s in hits.skipped}
        return ManySearchResponse(
            query=body.query, collections=[m.name for m in members if m.name in answered],
            mode=body.mode, results=[hit_out(h, body.highlight) for h in hits],
            skipped=_skipped_out(hits.skipped),
        )


@router.post("/context", responses={**MANY_RESPONSES, **FORBIDDEN_RESPONSE})
def context_many(body: ManyContextRequest, state: StateDep) -> ManyContextResponse:
    """A context from several collections; block paths are `collection/path`. A collection
    that cannot be read is left out and named in `skipped`."""
    check_queries(state, [body.query], 1)
    with _members(state, body.collections) as (members, skipped):
        count = tokenizer_for(state, body.tokenizer) or encoder_prompt_counter(
            members[0].collection
        )
        packed = context_members(members, body.query, body.max_tokens, count, mode=body.mode,
                                 filters=body.filters.to_library(), skipped=skipped)
        name = members[0].name if len(members) == 1 else ""
        return ManyContextResponse(
            **context_out(body.query, name, packed).model_dump(),
            skipped=_skipped_out(packed.skipped),
        )
