"""Ingestion: walk a folder (or take pushed documents), chunk, encode and store.

The stages of one write, in order: :mod:`scan` (what changed), :mod:`chunk`
(files -> units and the texts to embed), :mod:`encode` (parked, longest first)
and :mod:`commit` (one SQLite transaction, then the vector index);
:mod:`indexer` runs them. :mod:`freshness` and :mod:`watch` keep a collection
in step with its folder; :mod:`ray_encoder` and :mod:`ray_index` scale out.
"""
