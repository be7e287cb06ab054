"""Fetch the probe set: twelve projects no pinned set holds, to see how code-at-cursor
generalises before the unseen held-out repositories do.

    python bench/fetch_probe.py DEST [--commonjs | --second]
    python bench/completion.py --fast --set probe --repos DEST --language typescript

Four TypeScript npm packages that ship their sources, four Go modules and four Rust crates
from Debian's `-dev` packages (`apt-get update` once first), fetched the way
../shared/eval/fetch_repos.py fetches its sets (its functions, these pins). Each lands in
DEST/<name>/. Reading a miss here is reading a tuning set's: a change it suggests must
still gain where the standard sets tune it and hold on validation. Nothing is committed.

--commonjs fetches four JavaScript packages written in CommonJS instead (express, undici,
pino, fastify: `exports.f = function`, `require`), scored with TypeScript's group.

--second fetches a second probe of twelve, for when the first has been read too often to
say anything about unseen code: TanStack Form's core, ProseMirror's view, Svelte and Yjs
(the last two JavaScript with JSDoc), gin, go-cmp, yaml.v3 and go-toml v2, hyper, indexmap,
toml and petgraph.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

FETCH = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "fetch_repos.py"
PROBE = (
    "npm:zod@4.1.5", "npm:@reduxjs/toolkit@2.5.0", "npm:@tanstack/table-core@8.20.5",
    "npm:@trpc/client@11.0.0",
    "deb:golang-github-spf13-cobra-dev=1.6.1-1", "deb:golang-github-gorilla-websocket-dev=1.5.0-2",
    "deb:golang-github-google-uuid-dev=1.3.0-1",
    "deb:golang-github-go-playground-validator-v10-dev=10.4.1-4",
    "deb:librust-itertools-dev=0.10.3-1", "deb:librust-bytes-dev=1.2.1-1",
    "deb:librust-url-dev=2.3.1-1", "deb:librust-rayon-dev=1.6.1-1",
)
SECOND = (
    "npm:@tanstack/form-core@1.33.5", "npm:prosemirror-view@1.44.0", "npm:svelte@5.60.1",
    "npm:yjs@13.6.33",
    "deb:golang-github-gin-gonic-gin-dev=1.8.1-1", "deb:golang-github-google-go-cmp-dev=0.5.9-1",
    "deb:golang-gopkg-yaml.v3-dev=3.0.1-3", "deb:golang-github-pelletier-go-toml.v2-dev=2.0.6-1",
    "deb:librust-hyper-dev=0.14.19-1", "deb:librust-indexmap-dev=1.9.2-1",
    "deb:librust-toml-dev=0.5.11-1", "deb:librust-petgraph-dev=0.6.2-1",
)
COMMONJS = ("npm:express@4.21.2", "npm:undici@6.21.0", "npm:pino@9.5.0", "npm:fastify@5.2.0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dest", type=Path)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--commonjs", action="store_true",
                       help="the four CommonJS JavaScript packages instead")
    which.add_argument("--second", action="store_true", help="the second probe set instead")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("fetch_repos", FETCH)
    assert spec is not None and spec.loader is not None, f"no {FETCH}"
    shared = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shared)
    args.dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for pinned in COMMONJS if args.commonjs else SECOND if args.second else PROBE:
            kind, _, rest = pinned.partition(":")
            fetch = shared.fetch_npm if kind == "npm" else shared.fetch_deb
            fetch(rest, args.dest, Path(tmp))


if __name__ == "__main__":
    main()
