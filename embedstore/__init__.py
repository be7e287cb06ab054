"""embedstore: semantic code and document retrieval over FAISS and SQLite.

The public Python API::

    from embedstore import Store, index_folder, search, context

    store = Store()                        # ~/.local/share/embedstore, or $EMBEDSTORE_HOME
    index_folder(store, "./repo")          # create or update the collection "repo"
    hits = search(store.open("repo"), "retry with backoff", k=5)

Names load on first use, so that ``embedstore --help`` never pays for torch.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("embedstore")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

# Public name -> the module that defines it.
_EXPORTS = {
    "Store": "embedstore.store.store",
    "Collection": "embedstore.store.collection",
    "IndexOptions": "embedstore.ingest.run",
    "IndexReport": "embedstore.ingest.run",
    "index_folder": "embedstore.ingest.indexer",
    "upsert_documents": "embedstore.ingest.indexer",
    "delete_documents": "embedstore.ingest.indexer",
    "Document": "embedstore.ingest.documents",
    "SearchFilters": "embedstore.retrieval.filters",
    "SearchResult": "embedstore.retrieval.search",
    "search": "embedstore.retrieval.search",
    "RagContext": "embedstore.retrieval.context",
    "context": "embedstore.retrieval.context",
    "context_for_code": "embedstore.retrieval.code_context",
    "PROMPT_FORMATS": "embedstore.retrieval.prompt_formats",
    "render_prompt": "embedstore.retrieval.prompt_formats",
    "llama_infill_body": "embedstore.retrieval.prompt_formats",
    "EmbedstoreError": "embedstore.errors",
    "UserInputError": "embedstore.errors",
    "CollectionNotFoundError": "embedstore.errors",
}

__all__ = [
    "PROMPT_FORMATS", "Collection", "CollectionNotFoundError", "Document", "EmbedstoreError",
    "IndexOptions", "IndexReport", "RagContext", "SearchFilters", "SearchResult", "Store",
    "UserInputError", "__version__", "context", "context_for_code", "delete_documents",
    "index_folder", "llama_infill_body", "render_prompt", "search", "upsert_documents",
]

if TYPE_CHECKING:
    from embedstore.errors import CollectionNotFoundError, EmbedstoreError, UserInputError
    from embedstore.ingest.documents import Document
    from embedstore.ingest.indexer import delete_documents, index_folder, upsert_documents
    from embedstore.ingest.run import IndexOptions, IndexReport
    from embedstore.retrieval.code_context import context_for_code
    from embedstore.retrieval.context import RagContext, context
    from embedstore.retrieval.filters import SearchFilters
    from embedstore.retrieval.prompt_formats import (
        PROMPT_FORMATS,
        llama_infill_body,
        render_prompt,
    )
    from embedstore.retrieval.search import SearchResult, search
    from embedstore.store.collection import Collection
    from embedstore.store.store import Store


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'embedstore' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
