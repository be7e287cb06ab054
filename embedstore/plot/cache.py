"""Finished maps kept in the collection folder (``map-cache/``), one JSON file per request.

A file is named by the database generation and a digest of everything else
that shapes the map, so any write to the collection makes its maps stale;
saving a map deletes the stale ones, and all but the MAX_ENTRIES newest.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from embedstore.atomic_files import replace_atomically
from embedstore.plot.points import CollectionMap

log = logging.getLogger("embedstore.plot")

CACHE_DIR = "map-cache"
# Part of every key: a change to the JSON layout must not read old files.
FORMAT = 1
# Maps kept per collection, the most recently saved.
MAX_ENTRIES = 16


def key(method: str, limit: int, seed: int, queries: Sequence[str], k: int) -> str:
    request = json.dumps([FORMAT, method, limit, seed, list(queries), k if queries else 0])
    return hashlib.sha256(request.encode()).hexdigest()[:24]


def _file(collection_path: Path, generation: int, key: str) -> Path:
    return collection_path / CACHE_DIR / f"g{generation}-{key}.json"


def load(collection_path: Path, generation: int, key: str) -> CollectionMap | None:
    """The map saved under this key for this generation, or None (missing or unreadable)."""
    file = _file(collection_path, generation, key)
    try:
        return CollectionMap.from_dict(json.loads(file.read_text()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:  # damaged: compute it again
        log.warning("ignoring unreadable map cache %s: %s", file, exc)
        return None


def save(collection_path: Path, generation: int, key: str, found: CollectionMap) -> None:
    """Store a map and drop those of older generations; a failure only costs the next call."""
    file = _file(collection_path, generation, key)
    try:
        file.parent.mkdir(exist_ok=True)
        replace_atomically(file, (json.dumps(found.to_dict()).encode(),))
        current = []
        for entry in file.parent.glob("g*.json"):
            if entry.name.startswith(f"g{generation}-"):
                current.append(entry)
            else:
                entry.unlink(missing_ok=True)
        # Every limit and seed is a key of its own: keep the folder's size bounded.
        current.sort(key=lambda entry: entry.stat().st_mtime, reverse=True)
        for entry in current[MAX_ENTRIES:]:
            entry.unlink(missing_ok=True)
    except OSError as exc:
        # A read-only store still draws maps, just not instantly the second time.
        log.warning("could not save the map cache %s: %s", file, exc)
