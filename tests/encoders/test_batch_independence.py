"""A text's vector depends on the text alone, never on what it was batched with
(issue 30 G8: an index's scores depended on its history, since a text re-encoded beside
longer ones came out padded and rounded differently)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np

from embedstore.encoders.base import budget_batches
from embedstore.encoders.registry import load_encoder

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def test_same_length_batches_hold_one_length_each_within_the_budget() -> None:
    lengths = [5, 9, 5, 9, 9, 2, 5]
    batches = budget_batches(lengths, 2, same_length=True)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len({lengths[i] for i in batch}) == 1
        assert len(batch) * lengths[batch[0]] <= 2 * max(lengths)
    assert [lengths[batch[0]] for batch in batches] == sorted(
        (lengths[batch[0]] for batch in batches), reverse=True)


def test_the_default_model_gives_a_text_the_same_vector_alone_and_in_company() -> None:
    encoder = load_encoder(None)
    source = (STDLIB / "textwrap.py").read_text()
    texts = ["def " + part[:700] for part in source.split("\ndef ")[1:9]]
    assert len(set(encoder.count_tokens(texts))) > 1  # so a padded batch would mix lengths

    together = encoder.encode(texts)  # (8, D): one call, texts of several lengths
    alone = np.stack([encoder.encode([text])[0] for text in texts])  # (8, D)

    np.testing.assert_array_equal(together, alone)
