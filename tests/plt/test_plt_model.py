"""The full-sequence forward: loop 1 is a plain causal transformer; CLP, window, gate."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from embedstore.encoders.plt.masks import attention_allowed
from embedstore.encoders.plt.model import PLTModel
from embedstore.encoders.plt.offset import shift_states
from tests.plt.tiny import tiny_config, tiny_model

POSITIONS = ["rope", "alibi", "sinusoidal", "learned"]


def reference_causal_transformer(model: PLTModel, ids: torch.Tensor) -> torch.Tensor:
    """Llama-style decoder written out by hand over the PLT's weights: (B, T) -> (B, T, D)."""
    config = model.config
    batch, seq_len = ids.shape
    heads, kv_heads, hd = config.n_heads, config.n_kv_heads, config.head_dim
    angles = torch.arange(seq_len).double()[:, None] / config.rope_base ** (
        torch.arange(0, hd, 2).double() / hd
    )
    cos, sin = angles.cos().float(), angles.sin().float()  # (T, hd/2)

    def rope(t: torch.Tensor) -> torch.Tensor:
        a, b = t[..., : hd // 2], t[..., hd // 2 :]
        return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)

    def rms(t: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + config.norm_eps) * weight

    def split(t: torch.Tensor, n: int) -> torch.Tensor:
        return t.view(batch, seq_len, n, hd).transpose(1, 2)

    causal = torch.ones(seq_len, seq_len).tril().bool()
    x = model.tok_emb.weight[ids]
    for block in model.blocks:
        attn = block.attn
        h = rms(x, block.attn_norm.weight)
        q = rope(split(h @ attn.q_proj.weight.T, heads))
        k = rope(split(h @ attn.k_proj.weight.T, kv_heads)).repeat_interleave(heads // kv_heads, 1)
        v = split(h @ attn.v_proj.weight.T, kv_heads).repeat_interleave(heads // kv_heads, 1)
        scores = (q @ k.transpose(-1, -2) / math.sqrt(hd)).masked_fill(~causal, float("-inf"))
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, seq_len, heads * hd)
        x = x + y @ attn.o_proj.weight.T
        h = rms(x, block.mlp_norm.weight)
        mlp = block.mlp
        gated = F.silu(h @ mlp.gate_proj.weight.T) * (h @ mlp.up_proj.weight.T)
        x = x + gated @ mlp.down_proj.weight.T
    return rms(x, model.norm.weight)


def test_one_loop_is_a_plain_causal_transformer_of_the_same_weights() -> None:
    model = tiny_model(loops=1)
    ids = torch.randint(0, 64, (3, 11))
    torch.testing.assert_close(model(ids).hidden, reference_causal_transformer(model, ids))


def test_more_loops_change_the_states_and_reuse_every_weight() -> None:
    one = tiny_model(loops=1)
    three = tiny_model(loops=3)
    assert {n: p.shape for n, p in one.named_parameters()} == {
        n: p.shape for n, p in three.named_parameters()
    }
    ids = torch.randint(0, 64, (2, 9))
    out = three(ids)
    assert len(out.loop_states) == 3 and len(out.gates) == 2
    torch.testing.assert_close(out.loop_states[0], one(ids).hidden)
    assert not torch.allclose(out.hidden, out.loop_states[0], atol=1e-3)


def test_shift_puts_zero_at_position_0_and_at_the_first_real_token() -> None:
    states = torch.arange(1.0, 13.0).view(2, 6, 1)  # (B, T, 1): 1..6 and 7..12
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    shifted = shift_states(states, mask).squeeze(-1)
    assert shifted[0].tolist() == [0, 1, 2, 3, 4, 5]
    # Left padding: the first real token (index 2) sees zero, not the padding's state.
    assert shifted[1].tolist() == [0, 0, 0, 9, 10, 11]


@pytest.mark.parametrize("window", [1, 3, 5])
def test_window_admits_exactly_w_previous_tokens_and_the_current_one(window: int) -> None:
    allowed = attention_allowed(10, window=window)[0, 0]  # (T, T)
    for i in range(10):
        assert allowed[i].nonzero().flatten().tolist() == list(range(max(0, i - window), i + 1))


def test_padding_never_enters_a_real_tokens_view() -> None:
    mask = torch.tensor([[0, 0, 1, 1, 1]])
    allowed = attention_allowed(5, mask, window=1)[0, 0]
    assert allowed[2:, :2].sum() == 0
    assert allowed[3].tolist() == [False, False, True, True, False]


def test_zero_initialised_gate_is_one_half() -> None:
    torch.manual_seed(0)
    model = PLTModel(tiny_config(loops=3)).eval()
    out = model(torch.randint(0, 64, (2, 7)))
    for gate in out.gates:
        assert gate.shape == (2, 2, 4, 7)  # (B, L, H, T)
        torch.testing.assert_close(gate, torch.full_like(gate, 0.5))


@pytest.mark.parametrize("position", POSITIONS)
def test_padding_on_either_side_leaves_the_real_tokens_states_alone(position: str) -> None:
    model = tiny_model(loops=3, position=position)
    ids = torch.randint(5, 64, (1, 7))
    alone = model(ids).hidden
    pad, ones, zeros = torch.zeros(1, 3, dtype=torch.long), torch.ones(1, 7), torch.zeros(1, 3)
    left = model(torch.cat((pad, ids), 1), torch.cat((zeros, ones), 1)).hidden
    right = model(torch.cat((ids, pad), 1), torch.cat((ones, zeros), 1)).hidden
    torch.testing.assert_close(left[:, 3:], alone)
    torch.testing.assert_close(right[:, :7], alone)


def test_tied_head_is_the_embedding_and_gives_logits() -> None:
    model = tiny_model(lm_head=True, tie_word_embeddings=True)
    assert model.lm_head is not None and model.lm_head.weight is model.tok_emb.weight
    out = model(torch.randint(0, 64, (2, 5)))
    assert model.logits(out.hidden).shape == (2, 5, 64)
    with pytest.raises(ValueError, match="no language-model head"):
        tiny_model().logits(out.hidden)


def test_embedding_scale_and_xavier_init() -> None:
    plain = tiny_model(init="xavier")
    scaled = tiny_model(init="xavier", scale_embeddings=True)
    ids = torch.arange(4).view(1, 4)
    positions = torch.arange(4).view(1, 4)
    expected = plain.embed(ids, positions) * math.sqrt(32)
    torch.testing.assert_close(scaled.embed(ids, positions), expected)
    bound = math.sqrt(6 / (32 + 32))  # xavier-uniform of a 32 x 32 matrix
    assert plain.blocks[0].attn.q_proj.weight.abs().max() <= bound


def test_pretrained_token_embeddings_start_the_table() -> None:
    model = tiny_model()
    same_width = torch.randn(64, 32)
    model.load_token_embeddings(same_width)
    # Rescaled, not rotated: the rows keep their directions.
    torch.testing.assert_close(
        F.normalize(model.tok_emb.weight, dim=-1), F.normalize(same_width, dim=-1)
    )
    wider = torch.randn(64, 48)
    model.load_token_embeddings(wider)
    assert model.tok_emb.weight.shape == (64, 32)
    with pytest.raises(ValueError, match="share a tokenizer"):
        model.load_token_embeddings(torch.randn(63, 32))
