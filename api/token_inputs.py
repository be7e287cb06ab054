"""Token-id inputs of /v1/embeddings, encoded as given.

OpenAI's API takes each input as text or as token ids. Here the ids are those of
the served model's own tokenizer without special tokens (what
``tokenizer(text, add_special_tokens=False)`` gives), never tiktoken's: the model
cannot read another tokenizer's ids, and mapping them back to text would only
guess. They are framed as the model frames a text (its special tokens, the
document prompt), cut at its length limit like a text, and run through the same
pipeline in the same precision, so ids and their text give the same vector.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from embedstore.api.errors import InvalidRequestError

# Inputs per model call: a batch of 256-token rows stays small on a CPU.
BATCH_SIZE = 32
# Any ordinary text: tokenised once to see which special tokens frame a text.
_PROBE = "a"


@runtime_checkable
class TokenModel(Hashable, Protocol):
    """An encoder that takes token ids: a sentence-transformers model does.
    Hashable, as encoders are by identity: each one's Frame is cached."""

    @property
    def max_tokens(self) -> int: ...

    @property
    def prompts(self) -> dict[str, str]: ...

    @property
    def tokenizer(self) -> Any: ...

    def encode_ids(self, rows: list[list[int]], *, batch_size: int = 32) -> np.ndarray: ...


@dataclass(frozen=True)
class Frame:
    """What surrounds a text's own ids when the model encodes it."""

    prefix: list[int]  # leading special tokens, e.g. [CLS]
    prompt: list[int]  # the model's document prompt, if it has one
    suffix: list[int]  # trailing special tokens, e.g. [SEP]
    vocabulary: int

    @property
    def special(self) -> int:
        """Special tokens added to each input: counted like a text's."""
        return len(self.prefix) + len(self.suffix)

    def row(self, ids: list[int], max_tokens: int) -> list[int]:
        """The ids as the model reads them: framed, and cut at the end like a long text."""
        body = (self.prompt + ids)[: max(max_tokens - self.special, 0)]
        return self.prefix + body + self.suffix


def token_model(encoder: object, spec: str) -> TokenModel:
    """The encoder, if it can take token ids; an InvalidRequestError (400) saying so
    otherwise."""
    if not isinstance(encoder, TokenModel):
        raise InvalidRequestError(
            f"model {spec} takes text only; send `input` as a string or a list of strings",
            "input",
        )
    return encoder


# Once per loaded model: the tokenizer's settings are shared state, which a call changes
# while the batcher's thread may be using it.
@functools.lru_cache(maxsize=8)
def frame_of(model: TokenModel) -> Frame:
    tokenizer = model.tokenizer
    probe = tokenizer(_PROBE, return_special_tokens_mask=True)
    ids, special = probe["input_ids"], probe["special_tokens_mask"]
    first = special.index(0)  # the probe's first own token
    last = len(special) - special[::-1].index(0)  # one past its last
    prompt = model.prompts.get("document", "")
    return Frame(
        prefix=ids[:first],
        prompt=tokenizer(prompt, add_special_tokens=False)["input_ids"] if prompt else [],
        suffix=ids[last:],
        vocabulary=len(tokenizer),
    )


def check_vocabulary(frame: Frame, inputs: list[list[int]], spec: str) -> None:
    for i, ids in enumerate(inputs):
        outside = next((t for t in ids if t >= frame.vocabulary), None)
        if outside is not None:
            raise InvalidRequestError(
                f"input {i}: token id {outside} is outside the vocabulary of {spec} "
                f"(0..{frame.vocabulary - 1}); token ids must come from this model's own "
                "tokenizer, not tiktoken: send text instead (LangChain's OpenAIEmbeddings: "
                "check_embedding_ctx_length=False)", f"input.{i}"
            )


def encode_ids(model: TokenModel, frame: Frame, inputs: list[list[int]]) -> np.ndarray:
    """(n,) token-id lists -> float32 (n, dim) unit rows, as their texts would encode."""
    rows = [frame.row(ids, model.max_tokens) for ids in inputs]
    return model.encode_ids(rows, batch_size=BATCH_SIZE)
