"""The MCP server loads the query encoder and indexes in the background from its start
(issue 31: the first call over stdio waited 11 s for the model). Fake encoder, real SQLite
and FAISS; the time to a first answer over stdio is bench/mcp_replies.py's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from embedstore.api.collection_cache import CollectionCache
from embedstore.api.warmup import Warmup
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


def test_warmup_loads_each_models_encoder_and_passes_over_a_damaged_collection(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def load_config(path):\n    return path\n")
    store = Store()
    for name in ("broken", "first", "second"):
        index_folder(store, repo, IndexOptions(name=name, encoder=FAKE_SPEC))
    with open(store.root / "broken" / "meta.sqlite", "r+b") as fh:
        fh.write(b"\xde\xad\xbe\xef" * 4)
    queries: list[str] = []
    encode = FakeEncoder.encode

    def spy(self: FakeEncoder, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        if kwargs.get("kind") == "query":
            queries.extend(texts)
        return encode(self, texts, **kwargs)

    monkeypatch.setattr(FakeEncoder, "encode", spy)

    warmup = Warmup(store, CollectionCache(store))
    warmup.start()

    assert warmup.done.wait(60)
    assert warmup.encoders.is_set()
    # One encoding for the model both readable collections share, then one search each.
    assert queries == ["warm up"] * 3


def test_warmup_of_an_empty_store_ends_at_once(fake_encoder: FakeEncoder) -> None:
    warmup = Warmup(Store(), CollectionCache(Store()))
    warmup.run()
    assert warmup.done.is_set() and warmup.encoders.is_set()
    assert fake_encoder.encoded == []
