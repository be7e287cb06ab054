"""/v1/collections/{name}/documents: upsert a batch, get and delete by id."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from starlette.exceptions import HTTPException

from embedstore.api.deps import CollectionDep, StateDep
from embedstore.api.schemas import DocumentOut, DocumentsUpsert
from embedstore.ingest.documents import Document, check_distinct
from embedstore.ingest.indexer import delete_documents, upsert_documents
from embedstore.store import db

router = APIRouter(prefix="/v1/collections/{name}/documents", tags=["documents"])


@router.post("")
def upsert(body: DocumentsUpsert, state: StateDep, collection: CollectionDep) -> dict[str, Any]:
    limits = state.settings
    if len(body.documents) > limits.max_batch_items:
        raise ValueError(
            f"at most {limits.max_batch_items} documents per request, got {len(body.documents)}"
        )
    for doc in body.documents:
        if len(doc.text) > limits.max_document_chars:
            raise ValueError(
                f"document {doc.id!r} has {len(doc.text):,} characters; "
                f"the limit is {limits.max_document_chars:,}"
            )
    docs = [Document(d.id, d.text, d.path, d.language, d.metadata) for d in body.documents]
    check_distinct(docs)
    return asdict(upsert_documents(state.store, collection.name, docs))


@router.get("/{doc_id}")
def get_document(doc_id: str, collection: CollectionDep) -> DocumentOut:
    found = db.document(collection.conn, doc_id)
    if found is None:
        raise HTTPException(404, f"no document {doc_id!r} in collection {collection.name!r}")
    record, content, metadata = found
    return DocumentOut(
        id=doc_id, path=record.path, language=record.language, text=content,
        metadata=json.loads(metadata),
    )


@router.delete("/{doc_id}")
def delete_document(doc_id: str, state: StateDep, collection: CollectionDep) -> dict[str, str]:
    if not delete_documents(state.store, collection.name, [doc_id]):
        raise HTTPException(404, f"no document {doc_id!r} in collection {collection.name!r}")
    return {"deleted": doc_id}
