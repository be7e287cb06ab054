"""Fetch Java code for the completion benchmark: Android projects that ship their sources on npm.

The shared eval sets hold no Java. Two npm packages carry a real Java code base each, and the
npm registry is one this machine reaches: Apache Cordova's Android framework
(``cordova-android``, 44 files) and Capacitor's Android runtime (``@capacitor/android``,
60 files). Each is taken with ``npm pack`` (nothing is installed) and only its ``.java``
files are kept, under ``DEST/<package>/``, so that every cursor is a Java one.

Neither is a tuning set: no weight was chosen on them. Run:
``python bench/fetch_java.py [--dest /work/data/java]``, then
``embedstore eval --task completion DEST/cordova-android DEST/capacitor-android``.

Java's tuning set is its standard library, as Python's is: ``--jdk DIR`` takes five modules
of the JDK 17 sources from Debian's ``openjdk-17-source`` (``apt-get download``; its
``lib/src.zip``), each a folder of DIR (``JDK_MODULES``). A package or module already there
is kept. The downloads are never committed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path

from debian_package import unpacked

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


JDK_PACKAGE = "openjdk-17-source"
JDK_MODULES = ("java.net.http", "jdk.httpserver", "java.logging", "jdk.jshell", "java.sql")


def fetch_jdk(dest: Path) -> None:
    """``JDK_MODULES`` of the Debian package's ``src.zip``, each under ``dest/<module>/``."""
    wanted = [m for m in JDK_MODULES if not (dest / m).exists()]
    if not wanted:
        print("JDK modules: kept")
        return
    with (unpacked(JDK_PACKAGE) as (files, _),
          zipfile.ZipFile(next(files.rglob("src.zip"))) as archive):
        for member in archive.namelist():
            module = member.split("/", 1)[0]
            if module in wanted and member.endswith(".java"):
                archive.extract(member, dest)
    for module in wanted:
        print(f"{module}: {sum(1 for _ in (dest / module).rglob('*.java'))} .java files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    parser.add_argument("--jdk", type=Path, help="also fetch the JDK modules into this folder")
    args = parser.parse_args()
    if args.jdk is not None:
        fetch_jdk(args.jdk)
    for package, name in PACKAGES.items():
        folder = args.dest / name
        if folder.exists():
            print(f"{name}: kept")
            continue
        print(f"{name}: {fetch(package, folder)} .java files -> {folder}")


if __name__ == "__main__":
    main()
