"""RoPE scaling, ALiBi, sinusoidal and learned positions; the config's validation."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from embedstore.encoders.plt.config import PLTConfig, RopeScaling
from embedstore.encoders.plt.rope import rope_frequencies
from tests.plt.tiny import tiny_config, tiny_model


@pytest.mark.parametrize("kind", ["ntk", "yarn"])
def test_ntk_and_yarn_change_nothing_at_scale_factor_1(kind: str) -> None:
    plain = rope_frequencies(16, 10000.0, RopeScaling())
    scaled = rope_frequencies(16, 10000.0, RopeScaling(kind, 1.0, 64))
    torch.testing.assert_close(scaled[0], plain[0])
    assert scaled[1] == plain[1] == 1.0
    ids = torch.randint(0, 64, (2, 9))
    scaled_model = tiny_model(rope_scaling=RopeScaling(kind, 1.0, 64))
    torch.testing.assert_close(scaled_model(ids).hidden, tiny_model()(ids).hidden)


def test_ntk_stretches_the_lowest_frequency_by_the_factor_and_keeps_the_highest() -> None:
    plain, _ = rope_frequencies(16, 10000.0, RopeScaling())
    ntk, scale = rope_frequencies(16, 10000.0, RopeScaling("ntk", 4.0, 64))
    assert scale == 1.0
    assert ntk[0] == plain[0]
    torch.testing.assert_close(ntk[-1], plain[-1] / 4, rtol=1e-5, atol=0)


def test_yarn_interpolates_slow_dimensions_keeps_fast_ones_and_sharpens() -> None:
    plain, _ = rope_frequencies(64, 10000.0, RopeScaling())
    yarn, scale = rope_frequencies(64, 10000.0, RopeScaling("yarn", 4.0, 256))
    rotations = 256 * plain / (2 * math.pi)
    fast, slow = rotations > 32, rotations < 1
    assert fast.any() and slow.any()
    torch.testing.assert_close(yarn[fast], plain[fast])
    torch.testing.assert_close(yarn[slow], plain[slow] / 4)
    assert scale == pytest.approx(0.1 * math.log(4) + 1)


def test_learned_positions_refuse_inputs_beyond_their_table() -> None:
    model = tiny_model(position="learned", max_seq_len=8)
    model(torch.randint(0, 64, (1, 8)))
    with pytest.raises(ValueError, match="position table of 8 tokens"):
        model(torch.randint(0, 64, (1, 9)))


@pytest.mark.parametrize("position", ["rope", "alibi", "sinusoidal"])
def test_other_positions_extrapolate_beyond_max_seq_len(position: str) -> None:
    model = tiny_model(position=position, max_seq_len=8)
    assert torch.isfinite(model(torch.randint(0, 64, (1, 20))).hidden).all()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"position": "xpos"}, "valid: rope, alibi, sinusoidal, learned"),
        ({"init": "kaiming"}, "valid: normal, xavier"),
        ({"pooling": "median"}, "valid poolings: mean, cls, max, last, weighted_mean"),
        ({"n_heads": 3}, "not a multiple of n_heads"),
        ({"loops": 0}, "loops must be positive"),
        ({"tie_word_embeddings": True}, "needs lm_head"),
    ],
)
def test_bad_options_are_value_errors_that_list_the_valid_ones(
    overrides: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        tiny_config(**overrides)


def test_bad_rope_scaling_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="valid: none, ntk, yarn"):
        RopeScaling("linear")
    with pytest.raises(ValueError, match="at least 1"):
        RopeScaling("yarn", 0.5)


def test_config_round_trips_through_json(tmp_path: Path) -> None:
    config = tiny_config(rope_scaling=RopeScaling("yarn", 2.0, 128), proj_dim=16)
    config.save(tmp_path / "config.json")
    assert PLTConfig.load(tmp_path / "config.json") == config
    with pytest.raises(ValueError, match="unknown PLTConfig keys"):
        PLTConfig.from_dict({**config.to_dict(), "loop": 2})
