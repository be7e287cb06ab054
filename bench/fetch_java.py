"""Fetch Java code for the completion benchmark: Android projects that ship their sources on npm.

The shared eval sets hold no Java. Two npm packages carry a real Java code base each, and the
npm registry is one this machine reaches: Apache Cordova's Android framework
(``cordova-android``, 44 files) and Capacitor's Android runtime (``@capacitor/android``,
60 files). Each is taken with ``npm pack`` (nothing is installed) and only its ``.java``
files are kept, under ``DEST/<package>/``, so that every cursor is a Java one.

Neither is a tuning set: no weight was chosen on them. Run:
``python bench/fetch_java.py [--dest /work/data/java]``, then
``embedstore eval --task completion DEST/cordova-android DEST/capacitor-android``.
A package already there is kept. The downloads are never committed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

DEFAULT_DEST = Path("/work/data/java")
# npm package -> the folder it gets under DEST; versions pinned, so the cases are stable.
PACKAGES = {
    "cordova-android@15.1.0": "cordova-android",
    "@capacitor/android@8.5.2": "capacitor-android",
}


def fetch(package: str, folder: Path) -> int:
    """The package's .java files under ``folder``; how many."""
    with tempfile.TemporaryDirectory() as tmp:
        packed = subprocess.run(["npm", "pack", "--silent", package], cwd=tmp, check=True,
                                capture_output=True, text=True).stdout.split()[-1]
        with tarfile.open(Path(tmp) / packed) as archive:
            archive.extractall(tmp, filter="data")
        sources = sorted((Path(tmp) / "package").rglob("*.java"))
        for source in sources:
            target = folder / source.relative_to(Path(tmp) / "package")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return len(sources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args()
    for package, name in PACKAGES.items():
        folder = args.dest / name
        if folder.exists():
            print(f"{name}: kept")
            continue
        print(f"{name}: {fetch(package, folder)} .java files -> {folder}")


if __name__ == "__main__":
    main()
