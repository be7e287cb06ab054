"""The ``plt:`` encoder family, light to import: the model loads on first use.

Registered in the registry as ``register_family("plt", load_plt)``.
"""

from __future__ import annotations

from pathlib import Path

from embedstore.encoders.base import Encoder


def load_plt(argument: str, pooling: str | None) -> Encoder:
    """``plt:DIR`` -> the PLT trained into DIR (by ``embedstore plt train``)."""
    from embedstore.encoders.plt.encoder import PLTEncoder

    folder = Path(argument).expanduser()
    return PLTEncoder.from_folder(folder, name=f"plt:{argument}", pooling=pooling)
