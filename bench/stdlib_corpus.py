"""The benchmark corpus: this Python's standard library ``Lib/`` without its tests."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

TEST_FOLDERS = ("test", "tests", "idle_test", "site-packages", "__pycache__")


def stdlib_held_out(dest: Path, lib: Path) -> Path:
    """The fifth of ``stdlib_copy(lib)``'s files that training never sees (``tune``'s split),
    copied to ``dest`` once; the repository folder inside it."""
    from embedstore.tuning.run import TuneReport, copy_held_out

    if not dest.exists():
        copy_held_out([stdlib_copy(lib)], dest, TuneReport("", ""))
    return dest / "0-Lib"


def stdlib_copy(dest: Path) -> Path:
    """Copy Lib/ (tests excluded) to ``dest`` once; reuse it on later runs."""
    if not dest.exists():
        src = Path(sysconfig.get_paths()["stdlib"])
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*TEST_FOLDERS), symlinks=True)
    return dest
