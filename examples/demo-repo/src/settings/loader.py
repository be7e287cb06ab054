"""Load application settings from TOML files."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, Any] = {"host": "127.0.0.1", "port": 8000, "debug": False}


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Recursively merge two dictionaries, values from override win."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_config(path: Path) -> dict[str, Any]:
    """Read the TOML config file at path and fill in missing keys from DEFAULTS."""
    with path.open("rb") as fh:
        user = tomllib.load(fh)
    return deep_merge(DEFAULTS, user)
