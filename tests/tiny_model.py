"""Build a tiny random BERT sentence-transformers folder on the fly.

No second pretrained model can be had offline, so tests that need a model
with another pooling or dimension make one (random weights, real formats).
"""

from __future__ import annotations

from pathlib import Path

WORDS = ["def", "class", "return", "file", "cache", "close", "open", "parse", "config", "the"]


def build_tiny_model(folder: Path, *, pooling: str = "cls", hidden: int = 32) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    torch.manual_seed(0)
    raw = folder / "raw"
    raw.mkdir(parents=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"abcdefghijklmnopqrstuvwxyz"]
    (raw / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(vocab_file=str(raw / "vocab.txt")).save_pretrained(raw)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=2 * hidden, max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(raw)
    transformer = Transformer(str(raw), max_seq_length=64)
    model = SentenceTransformer(modules=[transformer, Pooling(hidden, pooling_mode=pooling)])
    out = folder / "model"
    model.save(str(out))
    return out
