"""Token-by-token decoding through the shared cache gives the full forward's states."""

from __future__ import annotations

import pytest
import torch

from embedstore.encoders.plt.cache import (
    PLTCache,
    decode_step,
    kv_cache_bytes,
    sequential_kv_bytes,
)
from tests.plt.tiny import tiny_config, tiny_model


@pytest.mark.parametrize("loops", [1, 2, 3])
@pytest.mark.parametrize("position", ["rope", "alibi", "learned"])
def test_incremental_decoding_equals_the_full_forward(loops: int, position: str) -> None:
    # 10 tokens with a window of 3: the window cache is trimmed for most of them.
    model = tiny_model(loops=loops, position=position)
    ids = torch.randint(0, 64, (2, 10))
    full = model(ids)
    cache = PLTCache(model.config)
    steps = [decode_step(model, ids[:, t], cache) for t in range(10)]
    for loop in range(loops):
        decoded = torch.stack([step[loop] for step in steps], dim=1)  # (B, T, D)
        torch.testing.assert_close(decoded, full.loop_states[loop], atol=1e-5, rtol=1e-4)


def test_cache_for_four_loops_is_loop_one_plus_three_windows() -> None:
    model = tiny_model(loops=4, window=3)
    cache = PLTCache(model.config)
    for token in torch.randint(0, 64, (20, 1)):
        decode_step(model, token, cache)
    config = model.config
    per_token = config.n_layers * 2 * config.n_kv_heads * config.head_dim * 4  # K and V, fp32
    loop_one, window = 20 * per_token, (3 + 1) * per_token
    assert cache.nbytes() == loop_one + 3 * window == kv_cache_bytes(config, 20)
    assert sequential_kv_bytes(config, 20) == 4 * loop_one


def test_window_cache_never_holds_more_than_w_plus_one_tokens() -> None:
    model = tiny_model(loops=2, window=3)
    cache = PLTCache(model.config)
    for token in torch.randint(0, 64, (9, 1)):
        decode_step(model, token, cache)
    keys = cache.windows[0][0].keys
    assert keys is not None and keys.shape[2] == 4
    assert kv_cache_bytes(tiny_config(loops=2, window=3), 2) == 2 * 2 * (2 * 2 * 2 * 8 * 4)
