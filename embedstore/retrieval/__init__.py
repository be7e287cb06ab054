"""Retrieval: from a query (words or code) to ranked units and packed context.

:mod:`search` ranks units of a :class:`~embedstore.store.collection.Collection`
(dense, lexical or both, fused by :mod:`fusion`, under :mod:`filters`);
:mod:`preview` picks the lines to show; :mod:`context` packs hits into a
token budget for a coding model's prompt. The store knows nothing of this layer.
"""
