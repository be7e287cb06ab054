"""Export a sentence-transformers encoder to ONNX once, for torch-free query encoding.

The export is an optimisation, never a requirement: a model that cannot be
exported, or whose export does not match torch on the probe texts (mean
cosine >= PARITY to the fp32 pipeline), keeps encoding queries with torch.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import torch

from embedstore.encoders.base import Encoder
from embedstore.encoders.onnx_model import (
    CONFIG_FILE,
    MODEL_FILE,
    TOKENIZER_FILE,
    ExportConfig,
    OnnxEncoder,
    export_folder,
)
from embedstore.encoders.precision import PARITY, PROBE, parity
from embedstore.encoders.sentence_transformer import PIPELINE_INPUTS, SentenceTransformerEncoder

log = logging.getLogger("embedstore.encoders")
# ONNX's operator set; 17 is read by every onnxruntime since 1.14.
OPSET = 17


# (model, pooling, store root) -> what ensure_exported found: a process tries once.
_ATTEMPTS: dict[tuple[str, str, Path], Path | None] = {}


def ensure_exported(encoder: Encoder, root: Path) -> Path | None:
    """The export folder of this encoder under a store's root, made when missing.

    None when the encoder cannot be exported (not a sentence-transformers
    model, an exporter error, a failed parity check, a read-only store).
    """
    key = (encoder.name, encoder.pooling, root)
    if key not in _ATTEMPTS:
        _ATTEMPTS[key] = _export_once(encoder, root)
    return _ATTEMPTS[key]


def _export_once(encoder: Encoder, root: Path) -> Path | None:
    if not isinstance(encoder, SentenceTransformerEncoder):
        return None
    folder = export_folder(root, encoder.name, encoder.pooling)
    if (folder / CONFIG_FILE).is_file():
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
    except OSError as exc:
        log.warning("no ONNX export of %s (%s): queries encode with torch", encoder.name, exc)
        return None
    try:
        config = export(encoder, staging)
        if config.parity < PARITY:
            log.warning("ONNX export of %s differs from torch (mean cosine %.5f < %s): "
                        "queries encode with torch", encoder.name, config.parity, PARITY)
            return None
        # A rename makes the folder appear whole; a racing exporter's folder wins.
        os.rename(staging, folder)
        return folder
    # The export only buys speed: no exporter failure may fail an index or a search.
    except Exception as exc:
        if (folder / CONFIG_FILE).is_file():
            return folder
        log.warning("no ONNX export of %s (%s): queries encode with torch", encoder.name, exc)
        return None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def export(encoder: SentenceTransformerEncoder, folder: Path) -> ExportConfig:
    """Write model.onnx, tokenizer.json and encoder.json into ``folder``; check parity."""
    example = encoder.tokenize(PROBE[:2])
    names = [n for n in PIPELINE_INPUTS if n in example]
    dynamic = {n: {0: "batch", 1: "tokens"} for n in names}
    with warnings.catch_warnings(), torch.no_grad():
        # The tracer warns about Python control flow on shapes that it freezes
        # harmlessly for this model family; the parity check is the real test.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            encoder.pipeline, tuple(example[n] for n in names), str(folder / MODEL_FILE),
            input_names=names, output_names=["vector"],
            dynamic_axes={**dynamic, "vector": {0: "batch"}}, opset_version=OPSET, dynamo=False,
        )
    _save_tokenizer(encoder, folder / TOKENIZER_FILE)
    config = ExportConfig(
        name=encoder.name, revision=encoder.revision, pooling=encoder.pooling, dim=encoder.dim,
        max_tokens=encoder.max_tokens, lowercase=encoder.lowercases, prompts=encoder.prompts,
        inputs=names, parity=0.0,
    )
    _write_config(folder, config)
    prompt = encoder.prompts.get("query", "")
    exact = encoder.encode_exact([prompt + t for t in PROBE])  # (n, d)
    exported = OnnxEncoder(folder).encode(PROBE, kind="query")  # (n, d)
    config = dataclasses.replace(config, parity=parity(exact, exported))
    _write_config(folder, config)
    return config


def _save_tokenizer(encoder: SentenceTransformerEncoder, path: Path) -> None:
    """The fast tokenizer, set to truncate at the model's limit and pad with its own token."""
    from tokenizers import Tokenizer

    hf = encoder.tokenizer
    tokenizer = Tokenizer.from_str(hf.backend_tokenizer.to_str())  # a copy: hf stays as it was
    tokenizer.enable_truncation(encoder.max_tokens)
    tokenizer.enable_padding(pad_id=hf.pad_token_id or 0, pad_token=hf.pad_token or "[PAD]")
    tokenizer.save(str(path))


def _write_config(folder: Path, config: ExportConfig) -> None:
    (folder / CONFIG_FILE).write_text(json.dumps(dataclasses.asdict(config), indent=2))
