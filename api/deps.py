"""Annotated dependencies shared by the routes."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Path, Request
from starlette.exceptions import HTTPException

from embedstore.api.schemas import NAME_PATTERN
from embedstore.api.state import AppState
from embedstore.store.collection import Collection


def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.embedstore
    return state


StateDep = Annotated[AppState, Depends(get_state)]


# The path parameter {name} of every collection route, declared with its pattern.
CollectionName = Annotated[str, Path(pattern=NAME_PATTERN, description="Collection name.")]


def get_collection(name: CollectionName, state: StateDep) -> Iterator[Collection]:
    """The collection, kept open until the response is done (a DELETE waits for it)."""
    with state.collections.lease(name) as collection:
        yield collection


CollectionDep = Annotated[Collection, Depends(get_collection)]


def require_api_key(request: Request, state: StateDep) -> None:
    """Bearer API key, checked whenever the server was given keys."""
    keys = state.settings.api_keys
    if not keys:
        return
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    # Compared as bytes: compare_digest refuses str holding non-ASCII text, and a
    # header is whatever bytes a client sent (Starlette decodes them as latin-1).
    sent = token.encode("latin-1")
    if scheme.lower() != "bearer" or not any(
        secrets.compare_digest(sent, k.encode("ascii")) for k in keys
    ):
        raise HTTPException(401, "missing or wrong API key: send 'Authorization: Bearer <key>'")
