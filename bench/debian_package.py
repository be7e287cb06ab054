"""A Debian package's files, for the benchmark sets taken from Debian (nothing is installed)."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def unpacked(package: str) -> Iterator[tuple[Path, str]]:
    """The folder ``package``'s .deb unpacks to (`apt-get download`, then `dpkg-deb -x`),
    and the .deb's file name (its version); both gone after the block. Run `apt-get update`
    once first."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", package], cwd=tmp, check=True,
                       capture_output=True)
        deb = next(Path(tmp).glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(tmp) / "x")], check=True)
        yield Path(tmp) / "x", deb.name
