"""Help words several commands share, kept in one place so that they cannot drift apart."""

from __future__ import annotations

# encoders.registry.DEFAULT_ENCODER, in words: `--help` must not import the registry.
DEFAULT_ENCODER = (
    "[default: minilm-l6-code, i.e. all-MiniLM-L6-v2 with the code adapter shipped in the "
    "package]"
)
