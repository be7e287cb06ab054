"""Fetch Rust's standard library sources: the Rust tuning set of the completion benchmark.

Python's tuning set is its standard library, and Java's is the JDK's (``fetch_java.py --jdk``).
Rust's is the same kind of code: three crates of the standard library (``alloc``, ``core``,
``std``) from Debian's ``rust-src`` package (``apt-get download``; run ``apt-get update``
once first; nothing is installed, the .deb is only unpacked). Each lands under
``DEST/<crate>/`` with its ``Cargo.toml``, so that every file has its crate and module path.
A crate already there is kept; the download is never committed. Run:

    python bench/fetch_rust_std.py [--dest /work/data/rstd]
    python bench/completion.py --set train-multi --repos /work/data/rstd --language rust --fast

Unlike the training sets, these crates' own types are the standard library's (`Vec`,
`Option`), whose members code-at-cursor leaves to the model; and a third of `std` is
platform code (`sys/windows`, `sys/unix`) that maps one platform's constants onto another's.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from debian_package import unpacked

DEFAULT_DEST = Path("/work/data/rstd")
PACKAGE = "rust-src"
CRATES = ("alloc", "core", "std")


def fetch(dest: Path) -> None:
    wanted = [c for c in CRATES if not (dest / c).exists()]
    if not wanted:
        print("standard library crates: kept")
        return
    with unpacked(PACKAGE) as (files, deb):
        library = next(files.rglob("library/core/Cargo.toml")).parent.parent
        for crate in wanted:
            shutil.copytree(library / crate, dest / crate)
            print(f"{crate}: {sum(1 for _ in (dest / crate).rglob('*.rs'))} .rs files "
                  f"({deb}) -> {dest / crate}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    fetch(parser.parse_args().dest)


if __name__ == "__main__":
    main()
