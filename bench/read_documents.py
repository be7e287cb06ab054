"""How fast the document readers read: PDF pages (and HTML pages) per second of one core.

    python bench/read_documents.py [PDF or HTML files or folders ...]

Reads each file with its reader (embedstore.chunking.readers.read_document, as the index's
scan does: text, sections, locations) in this one process, and divides by the process's CPU
seconds, so the figure is per core and holds on a busy machine. By default it reads the
Debian manuals bench/fetch_documents.py unpacks (gnuplot's and liboctave's PDFs, the Python
documentation's HTML).
Writes bench/results/read_documents.md and .json. The issue's bar: >= 20 PDF pages/s per core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import pypdfium2

from embedstore.chunking.readers import read_document, reader_for

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DOCS = Path("/work/data/docs")  # bench/fetch_documents.py's default destination
DEFAULTS = [DOCS / "manuals-pdf", DOCS / "python-html"]
TARGET_PDF_PAGES_PER_CORE_S = 20


def documents(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        found += [p for p in candidates if p.is_file() and reader_for(p.name) is not None]
    return found


def pages_of(path: Path, data: bytes) -> int:
    """A PDF's pages; one page for any other document."""
    if path.suffix.lower() != ".pdf":
        return 1
    pdf = pypdfium2.PdfDocument(data)
    try:
        return len(pdf)
    finally:
        pdf.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULTS)
    args = parser.parse_args()
    by_format: dict[str, dict[str, float]] = {}
    for path in documents(args.paths):
        data = path.read_bytes()
        kind = path.suffix.lower().lstrip(".")
        began_cpu, began_wall = time.process_time(), time.perf_counter()
        rendered = read_document(path.name, data)
        cpu, wall = time.process_time() - began_cpu, time.perf_counter() - began_wall
        row = by_format.setdefault(kind, {"files": 0, "pages": 0, "sections": 0, "bytes": 0,
                                          "cpu_s": 0.0, "wall_s": 0.0})
        row["files"] += 1
        row["pages"] += pages_of(path, data)
        row["sections"] += len(rendered.sections)
        row["bytes"] += len(data)
        row["cpu_s"] += cpu
        row["wall_s"] += wall
    for row in by_format.values():
        row["pages_per_core_s"] = round(row["pages"] / row["cpu_s"], 1) if row["cpu_s"] else 0.0
        row["cpu_s"], row["wall_s"] = round(row["cpu_s"], 3), round(row["wall_s"], 3)
    machine = f"{platform.machine()}, {os.cpu_count()} cpus, {platform.python_version()}"
    report = {"machine": machine, "inputs": [str(p) for p in args.paths], "formats": by_format,
              "target_pdf_pages_per_core_s": TARGET_PDF_PAGES_PER_CORE_S}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "read_documents.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Reading documents: pages per second of one core",
        "",
        f"`python bench/read_documents.py` on {machine}; inputs: "
        + ", ".join(f"`{p}`" for p in args.paths) + ". Each file read by its reader "
        "(text, sections, locations) in one process; pages / CPU seconds of that process. "
        "For HTML a page is a file.",
        "",
        "| format | files | pages | sections | MB | CPU s | wall s | pages/s per core |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind, row in sorted(by_format.items()):
        lines.append(
            f"| {kind} | {row['files']:.0f} | {row['pages']:.0f} | {row['sections']:.0f} | "
            f"{row['bytes'] / 1e6:.1f} | {row['cpu_s']} | {row['wall_s']} | "
            f"{row['pages_per_core_s']} |"
        )
    pdf = by_format.get("pdf")
    if pdf:
        verdict = "meets" if pdf["pages_per_core_s"] >= TARGET_PDF_PAGES_PER_CORE_S else "misses"
        lines += ["", f"PDF: {pdf['pages_per_core_s']} pages/s per core, which {verdict} the "
                      f"target of {TARGET_PDF_PAGES_PER_CORE_S}."]
    (RESULTS / "read_documents.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
