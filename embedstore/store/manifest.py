"""collection.json: what a collection was built with."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from embedstore.errors import CorruptCollectionError
from embedstore.store.db import SCHEMA_VERSION as FORMAT_VERSION


@dataclass(frozen=True)
class Manifest:
    """Everything needed to reopen a collection and query it correctly.

    ``index_kind`` is what the user asked for (auto, flat, ivfpq); ``index``
    describes the index actually built (kind and parameters).
    """

    encoder: str
    encoder_revision: str | None
    dim: int
    pooling: str
    normalize: bool = True
    # Whether each chunk is embedded under a header of its path and context line.
    embed_header: bool = True
    index_kind: str = "auto"
    index: dict[str, Any] = field(default_factory=dict)
    source_root: str | None = None
    # How the last indexing run encoded: fp32, or the fast path it checked (bf16, fp16).
    precision: str | None = None
    format_version: int = FORMAT_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        try:
            data = json.loads(text)
            manifest = cls(**data)
        except (json.JSONDecodeError, TypeError) as exc:
            raise CorruptCollectionError(f"unreadable collection manifest: {exc}") from exc
        if manifest.format_version > FORMAT_VERSION:
            raise CorruptCollectionError(
                f"collection format {manifest.format_version} is newer than this embedstore "
                f"understands ({FORMAT_VERSION}); upgrade embedstore"
            )
        return manifest

    def with_index(self, index: dict[str, Any]) -> Manifest:
        return replace(self, index=index)
