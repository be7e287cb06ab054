"""Screenshots of the search page for docs/page.md: the results and a file at 1280x900, the
results on a phone (390x844), in Debian's chromium against `embedstore serve` (real model).

    python bench/page_screenshots.py [--repo DIR] [--query TEXT] [--store DIR] [--out DIR]

The repository is indexed into --store (a temporary folder unless given; an existing
collection there is reused). The PNGs are reduced to 64 colours, so the three stay small.
The committed ones: --repo /work/data/val/flask --query "register a blueprint on the app".
"""

from __future__ import annotations

import argparse
import sys
import sysconfig
import tempfile
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from embedstore.ingest.indexer import IndexOptions, index_folder  # noqa: E402
from embedstore.store.store import Store  # noqa: E402
from tests.api.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.api.server import running_server  # noqa: E402

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
COLOURS = 64


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    parser.add_argument("--repo", type=Path, default=stdlib / "email")
    parser.add_argument("--query", default="parse a message header")
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("chromium is not installed: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(args.store or Path(scratch) / "store")
        name = args.repo.resolve().name
        if not store.exists(name):
            index_folder(store, args.repo, IndexOptions(name=name))
        with running_server(store.root) as server:
            url = f"{server.url}/?{urlencode({'q': args.query, 'collection': name})}"
            args.out.mkdir(parents=True, exist_ok=True)
            shots = take(url, args.out)
    for shot in shots:
        shrink(shot)
        print(f"{shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot}: "
              f"{shot.stat().st_size / 1024:.0f} KB")


def take(url: str, out: Path) -> list[Path]:
    from playwright.sync_api import expect, sync_playwright

    shots = [out / "results.png", out / "file.png", out / "phone.png"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=DESKTOP)
            page.goto(url)
            expect(page.locator(".hit").first).to_be_visible()
            page.screenshot(path=str(shots[0]))
            page.locator(".hit .location a.primary").first.click()
            expect(page.locator("#file-code .line").first).to_be_visible()
            page.screenshot(path=str(shots[1]))
            phone = browser.new_page(viewport=PHONE)
            phone.goto(url)
            expect(phone.locator(".hit").first).to_be_visible()
            phone.screenshot(path=str(shots[2]))
        finally:
            browser.close()
    return shots


def shrink(png: Path) -> None:
    """A palette of COLOURS: a page of flat colours and text loses little."""
    from PIL import Image

    with Image.open(png) as image:
        reduced = image.convert("RGB").quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)
    reduced.save(png, optimize=True)


if __name__ == "__main__":
    main()
