"""PLTConfig: everything that shapes a PLT, saved as config.json beside its weights."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from embedstore.encoders.pooling import get_pooling

POSITIONS = ("rope", "alibi", "sinusoidal", "learned")
ROPE_SCALINGS = ("none", "ntk", "yarn")
INITS = ("normal", "xavier")


def _check_choice(what: str, value: str, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise ValueError(f"unknown {what} {value!r}; valid: {', '.join(valid)}")


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")


def _check_keys(cls: type, data: dict[str, Any]) -> None:
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys {unknown}; valid keys: {sorted(known)}")


@dataclass(frozen=True)
class RopeScaling:
    """How RoPE reaches beyond the length it was trained on.

    ``ntk`` raises the base so low frequencies stretch while high ones stay;
    ``yarn`` interpolates low frequencies, keeps high ones, ramps in between,
    and sharpens attention. Both are exactly plain RoPE at ``factor`` 1.
    """

    kind: str = "none"
    factor: float = 1.0
    original_max_len: int = 256

    def __post_init__(self) -> None:
        _check_choice("rope_scaling kind", self.kind, ROPE_SCALINGS)
        if self.factor < 1:
            raise ValueError(f"rope_scaling factor must be at least 1, got {self.factor}")
        _check_positive(original_max_len=self.original_max_len)


@dataclass(frozen=True)
class PLTConfig:
    vocab_size: int
    d_model: int = 256
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int = 2
    ffn_size: int = 688
    loops: int = 2  # R: times the shared block stack is applied
    window: int = 64  # w: G-SWA's local branch sees w previous tokens plus the current one
    max_seq_len: int = 256  # longest input encoded whole (the learned table's length)
    position: str = "rope"
    rope_base: float = 10000.0
    rope_scaling: RopeScaling = field(default_factory=RopeScaling)
    emb_scale: float = 1.0  # a in CLP: a·Embed(x) + b·shift(h)
    hidden_scale: float = 1.0  # b in CLP
    scale_embeddings: bool = False  # token embeddings times sqrt(d_model)
    init: str = "normal"  # normal(0, 0.02) or xavier, for every weight matrix
    norm_eps: float = 1e-5
    lm_head: bool = False
    tie_word_embeddings: bool = False
    pooling: str = "last"  # the recommended pooling of the encoder
    proj_dim: int | None = None  # a projection after pooling (to a teacher's dimension)

    def __post_init__(self) -> None:
        _check_positive(
            vocab_size=self.vocab_size, d_model=self.d_model, n_layers=self.n_layers,
            n_heads=self.n_heads, n_kv_heads=self.n_kv_heads, ffn_size=self.ffn_size,
            loops=self.loops, window=self.window, max_seq_len=self.max_seq_len,
            rope_base=self.rope_base, norm_eps=self.norm_eps,
        )
        _check_choice("position", self.position, POSITIONS)
        _check_choice("init", self.init, INITS)
        get_pooling(self.pooling)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model} is not a multiple of n_heads {self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"n_heads {self.n_heads} is not a multiple of n_kv_heads {self.n_kv_heads}"
            )
        if self.position == "rope" and self.head_dim % 2:
            raise ValueError(f"RoPE rotates pairs of dimensions: head_dim {self.head_dim} is odd")
        if self.tie_word_embeddings and not self.lm_head:
            raise ValueError("tie_word_embeddings needs lm_head: there is no head to tie")
        if self.proj_dim is not None:
            _check_positive(proj_dim=self.proj_dim)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def out_dim(self) -> int:
        """The dimension of the encoder's vectors."""
        return self.proj_dim or self.d_model

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PLTConfig:
        _check_keys(cls, data)
        values = dict(data)
        if isinstance(values.get("rope_scaling"), dict):
            _check_keys(RopeScaling, values["rope_scaling"])
            values["rope_scaling"] = RopeScaling(**values["rope_scaling"])
        return cls(**values)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> PLTConfig:
        return cls.from_dict(json.loads(path.read_text()))
