"""The encoder a store's queries go through: its ONNX export when there is one.

A query needs the same vector the model gives, fast and from a cold process.
The ONNX export gives it without importing torch; until a store has one, the
model itself encodes, and exports itself for the next query.
"""

from __future__ import annotations

from pathlib import Path

from embedstore.encoders.base import Encoder
from embedstore.encoders.onnx_model import load_exported
from embedstore.encoders.registry import load_encoder


def query_encoder(root: Path, spec: str, pooling: str) -> Encoder:
    """The encoder for queries against collections of ``spec`` in the store at ``root``."""
    exported = load_exported(root, spec, pooling)
    if exported is not None:
        return exported
    encoder = load_encoder(spec, pooling)
    from embedstore.encoders.onnx_export import ensure_exported  # torch is loaded by now

    ensure_exported(encoder, root)
    return encoder
