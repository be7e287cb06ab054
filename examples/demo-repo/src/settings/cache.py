"""A small on-disk cache of downloaded files."""

from __future__ import annotations

import hashlib
from pathlib import Path


class FileCache:
    """Keeps bytes on disk under a folder, keyed by the hash of a URL."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self._open: dict[str, object] = {}

    def _key(self, url: str) -> Path:
        return self.folder / hashlib.sha256(url.encode()).hexdigest()

    def get(self, url: str) -> bytes | None:
        path = self._key(url)
        return path.read_bytes() if path.exists() else None

    def put(self, url: str, data: bytes) -> None:
        self._key(url).write_bytes(data)

    def close(self) -> None:
        """Release handles and forget what is open."""
        self._open.clear()
