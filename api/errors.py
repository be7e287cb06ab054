"""Every error leaves the API as JSON: {"error": {"code", "message", "type", "param"}}.

``type`` and ``param`` are OpenAI's fields, so that its clients read these errors as theirs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match, Route

from embedstore.errors import (
    CollectionExistsError,
    CollectionLockedError,
    CollectionNotFoundError,
    CorruptCollectionError,
    DocumentConflictError,
    EmbedstoreError,
    EncoderLoadError,
    EncoderMismatchError,
    IndexTooSmallError,
    OutdatedCollectionError,
    StorageError,
    TokenizerNotFoundError,
    UserInputError,
)

log = logging.getLogger("embedstore.api")

# Routes in OpenAI's shape: their input errors answer as OpenAI's do, 400 naming the field,
# so that its clients raise BadRequestError (422 made them raise UnprocessableEntityError).
OPENAI_ROUTES = frozenset({"/v1/embeddings"})


class InvalidRequestError(UserInputError):
    """Bad input to a route in OpenAI's shape: 400 ``invalid_request_error`` with ``param``,
    the field at fault."""

    def __init__(self, message: str, param: str | None) -> None:
        super().__init__(message)
        self.param = param


# Most specific first: the first matching class decides the status.
_STATUS: list[tuple[type[Exception], int, str]] = [
    (InvalidRequestError, 400, "invalid"),
    (CollectionNotFoundError, 404, "not_found"),
    (CollectionExistsError, 409, "conflict"),
    (DocumentConflictError, 409, "conflict"),
    (EncoderMismatchError, 409, "encoder_mismatch"),
    (CollectionLockedError, 409, "locked"),
    (IndexTooSmallError, 409, "index_too_small"),
    (OutdatedCollectionError, 409, "outdated"),
    (UserInputError, 400, "bad_request"),
    # The model named does not exist here (or cannot be loaded): like /v1/embeddings' 404.
    (EncoderLoadError, 404, "model_not_found"),
    (TokenizerNotFoundError, 404, "tokenizer_not_found"),
    (ValueError, 422, "invalid"),
    # The server's own files: a request cannot fix them, the message says what will.
    (CorruptCollectionError, 500, "damaged"),
    (StorageError, 500, "storage"),
    (EmbedstoreError, 500, "internal"),
]


def error_response(
    status: int, code: str, message: str, param: str | None = None
) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse(
        {"error": {"code": code, "message": message, "type": kind, "param": param}},
        status_code=status,
    )


def _library_error(request: Request, exc: Exception) -> JSONResponse:
    for cls, status, code in _STATUS:
        if isinstance(exc, cls):
            if status >= 500:
                log.error("request %s failed: %s", request.url.path, exc)
            return error_response(status, code, str(exc), getattr(exc, "param", None))
    return _unexpected(request, exc)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    errors = cast(RequestValidationError, exc).errors()  # registered for this class only
    route = request.scope.get("route")
    status = 400 if getattr(route, "path", None) in OPENAI_ROUTES else 422
    for err in errors:
        if err.get("type") == "json_invalid":
            reason = err.get("ctx", {}).get("error", "")
            return error_response(status, "invalid",
                                  f"the request body is not valid JSON: {reason}")
    # Where each came from (body, query, path) is left out of its location.
    message, param = describe_invalid([{**err, "loc": err.get("loc", ())[1:]} for err in errors])
    return error_response(status, "invalid", message, param)


def describe_invalid(errors: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """One line, "field: what is wrong; ...", and the first field at fault, from pydantic's
    errors (also the MCP tools' arguments').

    A location such as ``documents.0.id`` leaves out the labels pydantic gives union members
    ("list[constrained-str]"): field names are identifiers, and those labels are not.
    """
    parts = []
    fields = []
    for err in errors:
        where = ".".join(
            str(p) for p in err.get("loc", ()) if isinstance(p, int) or str(p).isidentifier()
        )
        fields.append(where)
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else err.get("msg", ""))
    return "; ".join(parts) or "invalid request", next(filter(None, fields), None)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    http = cast(HTTPException, exc)  # registered for this class only
    code = {
        401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
        413: "too_large",
    }
    response = error_response(
        http.status_code, code.get(http.status_code, "error"), str(http.detail)
    )
    if http.status_code == 405:
        # Starlette names the methods of the first route matching the path only.
        response.headers["Allow"] = ", ".join(_allowed_methods(request))
    return response


def _allowed_methods(request: Request) -> list[str]:
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match != Match.NONE:  # PARTIAL: the path matches, the method does not
                methods |= route.methods
    return sorted(methods)


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s", request.url.path, exc_info=exc)
    return error_response(500, "internal", "internal server error; see the server log")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(EmbedstoreError, _library_error)
    app.add_exception_handler(ValueError, _library_error)
    app.add_exception_handler(Exception, _unexpected)
