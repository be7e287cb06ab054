"""The OpenAPI schema says what the server enforces: error statuses, configured limits and,
when it has keys, the bearer scheme."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from embedstore.api.schemas import ErrorBody
from embedstore.api.settings import ServerSettings


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


# Declared on every /v1 route; each can answer any of them.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("Bad request: the request cannot be carried out as asked"),
    401: _error("Missing or wrong API key (when the server has keys)"),
    404: _error("Unknown collection, document, job or model"),
    409: _error("Conflict: exists already, locked by a writer, or another encoder"),
    413: _error("Request body over the size limit"),
    422: _error("Invalid fields, limits or JSON"),
}
# Only the routes that read server folders.
FORBIDDEN_RESPONSE: dict[int | str, dict[str, Any]] = {
    403: _error("Folder outside the allowed roots, or indexing folders off"),
}
# The routes over every collection (or several): what the generic statuses mean there.
MANY_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("The store has no collection yet (an empty collection answers 200 with no "
                "results), or a malformed glob in the filters"),
    404: _error("A collection named in `collections` does not exist (when every collection "
                "is searched, one deleted meanwhile is listed in `skipped` instead)"),
    409: _error("The collections use different encoders: search one group at a time, or "
                "in lexical mode"),
}


def _limits(settings: ServerSettings) -> dict[tuple[str, str], dict[str, int]]:
    """(schema, property) -> JSON-schema keywords of the limits set at start-up.

    Each keyword lands where its type fits: ``maximum`` on integers,
    ``maxLength`` on strings, ``maxItems`` on arrays of anything but token ids,
    ``maxIds`` (written as ``maxItems``) on arrays of integers, through ``anyOf``,
    ``oneOf`` and array items (so ``input: str | list[str] | list[list[int]]`` gets all).
    """
    query = settings.max_query_chars
    items = settings.max_batch_items
    return {
        ("SearchRequest", "k"): {"maximum": settings.max_k},
        ("SearchRequest", "query"): {"maxLength": query},
        ("BatchSearchRequest", "k"): {"maximum": settings.max_k},
        ("BatchSearchRequest", "queries"): {"maxItems": items, "maxLength": query},
        ("ContextRequest", "query"): {"maxLength": query},
        ("ManySearchRequest", "k"): {"maximum": settings.max_k},
        ("ManySearchRequest", "query"): {"maxLength": query},
        ("ManyContextRequest", "query"): {"maxLength": query},
        ("DocumentsUpsert", "documents"): {"maxItems": items},
        ("DocumentIn", "text"): {"maxLength": settings.max_document_chars},
        # One token list can hold no more ids than a request's token cap.
        ("EmbeddingsRequest", "input"): {
            "maxItems": settings.max_embedding_inputs, "maxLength": settings.max_document_chars,
            "maxIds": settings.max_embedding_tokens,
        },
    }


def install_openapi(app: FastAPI, settings: ServerSettings) -> None:
    """Generate the schema once, with the configured limits written in."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )
            _declare_limits(schema["components"]["schemas"], settings)
            _declare_tokenizers(schema["components"]["schemas"])
            if settings.api_keys:
                _declare_bearer(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


BEARER = "bearerAuth"


def _declare_bearer(schema: dict[str, Any]) -> None:
    """The key as a bearer scheme, on every operation that checks it (those that can answer
    401): /docs can then send it, and a fuzzer can test requests without it."""
    schema["components"]["securitySchemes"] = {BEARER: {
        "type": "http", "scheme": "bearer",
        "description": "One of the server's API keys (--api-key, EMBEDSTORE_API_KEYS).",
    }}
    for operations in schema["paths"].values():
        for operation in operations.values():
            if "401" in operation.get("responses", {}):
                operation["security"] = [{BEARER: []}]


def _declare_limits(schemas: dict[str, Any], settings: ServerSettings) -> None:
    for (model, prop), keywords in _limits(settings).items():
        _apply(schemas[model]["properties"][prop], keywords)


# The request bodies whose `tokenizer` a client may set.
_TOKENIZER_FIELDS = (("ContextRequest", "tokenizer"), ("ManyContextRequest", "tokenizer"))


def _declare_tokenizers(schemas: dict[str, Any]) -> None:
    """A tokenizer is a tiktoken encoding's name or an absolute folder path (then 403 unless
    under an allowed root): a bare or relative name is refused, as the route does."""
    from embedstore.retrieval.tokenizers import encoding_names

    for model, prop in _TOKENIZER_FIELDS:
        for variant in schemas[model]["properties"][prop]["anyOf"]:
            if variant.get("type") == "string":
                variant["anyOf"] = [
                    {"enum": sorted(encoding_names())},
                    {"pattern": "^/[^\\x00]*$", "description": "An absolute folder path."},
                ]


# Our keyword -> (the kind of node it bounds, the JSON-schema keyword written).
_KEYWORD_TARGET = {
    "maximum": ("integer", "maximum"),
    "maxLength": ("string", "maxLength"),
    "maxItems": ("array", "maxItems"),
    "maxIds": ("ids", "maxItems"),
}


def _kind(node: dict[str, Any]) -> str | None:
    """The node's type, with an array of integers (token ids) a kind of its own."""
    if node.get("type") == "array" and node["items"].get("type") == "integer":
        return "ids"
    return node.get("type")


def _apply(node: dict[str, Any], keywords: dict[str, int]) -> None:
    for variant in node.get("anyOf", []) + node.get("oneOf", []):
        _apply(variant, keywords)
    kind = _kind(node)
    for keyword, value in keywords.items():
        target, written = _KEYWORD_TARGET[keyword]
        if kind == target:
            node[written] = value
    if node.get("type") == "array":
        _apply(node["items"], keywords)
