from __future__ import annotations

import pytest
import torch

from embedstore.encoders.pooling import POOLINGS, get_pooling, resolve_pooling
from embedstore.encoders.sentence_transformer import recommended_pooling

# Two texts, 3 positions, 2 dims. Row 0: right padding (2 real tokens);
# row 1: left padding (2 real tokens).
STATES = torch.tensor(
    [
        [[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]],
        [[-50.0, 50.0], [2.0, -2.0], [4.0, 6.0]],
    ]
)
MASK = torch.tensor([[1, 1, 0], [0, 1, 1]])


def test_mean_ignores_padding() -> None:
    got = get_pooling("mean")(STATES, MASK)
    assert torch.allclose(got, torch.tensor([[2.0, 3.0], [3.0, 2.0]]))


def test_cls_takes_first_real_token_on_either_side() -> None:
    got = get_pooling("cls")(STATES, MASK)
    assert torch.allclose(got, torch.tensor([[1.0, 2.0], [2.0, -2.0]]))


def test_last_takes_last_real_token_with_right_and_left_padding() -> None:
    got = get_pooling("last")(STATES, MASK)
    assert torch.allclose(got, torch.tensor([[3.0, 4.0], [4.0, 6.0]]))


def test_max_ignores_padding() -> None:
    got = get_pooling("max")(STATES, MASK)
    assert torch.allclose(got, torch.tensor([[3.0, 4.0], [4.0, 6.0]]))


def test_weighted_mean_weights_later_tokens_more() -> None:
    got = get_pooling("weighted_mean")(STATES, MASK)
    # weights 1, 2 over the real tokens: (1*a + 2*b) / 3
    expected = torch.tensor([[(1 + 6) / 3, (2 + 8) / 3], [(2 + 8) / 3, (-2 + 12) / 3]])
    assert torch.allclose(got, expected)


def test_unknown_pooling_lists_valid_ones() -> None:
    with pytest.raises(ValueError, match="mean, cls, max, last, weighted_mean"):
        get_pooling("median")


def test_other_pooling_than_recommended_warns() -> None:
    with pytest.warns(UserWarning, match="recommended 'mean'"):
        assert resolve_pooling("cls", "mean", "model-x") == "cls"
    assert resolve_pooling(None, "mean", "model-x") == "mean"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"pooling_mode": "cls"}, "cls"),
        ({"pooling_mode": ["lasttoken"]}, "last"),
        ({"pooling_mode": "weightedmean"}, "weighted_mean"),
        ({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}, "cls"),
        ({"pooling_mode_mean_tokens": True}, "mean"),
    ],
)
def test_recommended_pooling_reads_new_and_legacy_configs(config: dict, expected: str) -> None:
    assert recommended_pooling(config) == expected
    assert expected in POOLINGS
