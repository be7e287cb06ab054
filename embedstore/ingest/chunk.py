"""Stage 2, chunk: a file's units, and the texts the encoder embeds for them."""

from __future__ import annotations

import hashlib
import queue
from collections.abc import Sequence
from dataclasses import dataclass

from embedstore.chunking import chunk_file
from embedstore.chunking.readers import chunk_document
from embedstore.chunking.symbols import FileSymbols, extract_symbols
from embedstore.chunking.types import Chunk, chunk_body
from embedstore.chunking.units import group_units, own_name, owner_name
from embedstore.encoders.base import Encoder
from embedstore.ingest.run import Run
from embedstore.ingest.sources import SourceFile
from embedstore.lexical import index_terms
from embedstore.store import db

# An embedded text's header (its path) may take at most this share of the encoder's budget.
PATH_SHARE = 4
# What stands for the folders left out of a path shortened to fit its share.
ELIDED = ".../"


@dataclass
class FileWork:
    source: SourceFile
    units: list[db.NewUnit]
    texts: dict[str, str]  # embedded text by its hash
    symbols: FileSymbols


def embedding_text(rel_path: str, chunk: Chunk, *, header: bool = True) -> str:
    """What the encoder sees: the path and the chunk's context line, then its code.

    The header lets "close the file cache" find a method `close` of `FileCache`
    in `cache.py`; `embedstore eval --header-ablation` measures what it buys.
    """
    return f"{rel_path}\n{chunk_body(chunk)}" if header else chunk.text


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_all(
    run: Run, todo: Sequence[SourceFile], out: queue.SimpleQueue[FileWork | BaseException | None]
) -> None:
    """The chunking worker: one FileWork per file into ``out``, then None (or the error).

    A file that cannot be chunked is left out and named in ``run.report.unchunkable``: one
    file must not cost the run. An error outside a file's own chunking (the encoder's
    tokenizer failing on the paths) still fails the run.
    """
    try:
        # Progress only: chunking runs alongside encoding, and chunk_and_encode times the
        # part of it that the run waited for.
        run.ui.start("chunk", len(todo))
        # The path heads every embedded text, so each file's budget is what it leaves.
        path_tokens = run.encoder.count_tokens([s.rel_path for s in todo])
        for source, used in zip(todo, path_tokens, strict=True):
            try:
                shown = header_path(source.rel_path, used, run.encoder)
                out.put(chunk_source(run, source, shown))
            except Exception as exc:  # whatever a chunker's flaw, it costs one file only
                run.report.unchunkable[source.rel_path] = str(exc) or type(exc).__name__
            run.ui.advance("chunk")
        run.ui.finish("chunk")
    except BaseException as exc:  # handed to the encoding thread, which raises it
        out.put(exc)
        return
    out.put(None)


@dataclass(frozen=True)
class HeaderPath:
    """The path as an embedded text's header shows it, and its tokens (specials included)."""

    text: str
    tokens: int


def header_path(rel_path: str, tokens: int, encoder: Encoder) -> HeaderPath:
    """``rel_path`` itself when it takes at most 1/PATH_SHARE of the encoder's budget; else
    ".../" and its last segments (the last characters of its name, if need be) within that.

    Only overlong paths change: every other file keeps its embedded texts, hence its
    vectors' cache keys. The most segments that fit are found by bisection, since a path
    may be thousands of characters deep.
    """
    cap = encoder.max_tokens // PATH_SHARE
    if tokens <= cap:
        return HeaderPath(rel_path, tokens)
    *folders, name = rel_path.split("/")

    def fitting(candidates: Sequence[str]) -> HeaderPath | None:
        """The longest of ``candidates`` (shortest first) that fits the cap, if any."""
        best, low, high = None, 0, len(candidates) - 1
        while low <= high:
            middle = (low + high) // 2
            (count,) = encoder.count_tokens([candidates[middle]])
            if count <= cap:
                best, low = HeaderPath(candidates[middle], count), middle + 1
            else:
                high = middle - 1
        return best

    by_segments = [ELIDED + "/".join([*folders[len(folders) - kept :], name])
                   for kept in range(len(folders))]
    by_characters = [ELIDED + name[len(name) - kept :] for kept in range(1, len(name))]
    return fitting(by_segments) or fitting(by_characters) or HeaderPath(ELIDED + name[-1:], cap)


def chunk_source(run: Run, source: SourceFile, shown: HeaderPath) -> FileWork:
    """A file's units, and its embedded texts (headed by ``shown``) by their hash."""
    count = run.encoder.count_tokens
    budget = run.encoder.max_tokens - shown.tokens
    document = source.document
    if document is None:
        chunks = chunk_file(source.text, source.language, max_tokens=budget, count_tokens=count)
    else:
        chunks = chunk_document(document, max_tokens=budget, count_tokens=count)
    lines = source.text.split("\n")
    units = []
    texts: dict[str, str] = {}
    for plan in group_units(chunks):
        rows = []
        for c in plan.chunks:
            embedded = embedding_text(shown.text, c, header=run.manifest.embed_header)
            digest = text_hash(embedded)
            texts[digest] = embedded
            rows.append(db.NewChunk(c.start_line, c.end_line, c.context, c.text, digest))
        whole = "\n".join(lines[plan.start_line - 1 : plan.end_line])
        header = f"{source.rel_path}\n{plan.chunks[0].context}"
        units.append(db.NewUnit(
            plan.start_line, plan.end_line, plan.kind, plan.symbol, whole, rows,
            name_terms=" ".join(index_terms(own_name(plan.symbol))),
            owner_terms=" ".join(index_terms(owner_name(plan.symbol))),
            # What the unit embeds, not every line it spans: a class over budget embeds
            # its outline, and its methods' code is theirs to be found by.
            terms=" ".join(index_terms(f"{header}\n" + "\n".join(c.text for c in plan.chunks))),
            location=None if document is None else document.location_at(plan.start_line),
            language=None if document is None else document.language_at(plan.start_line),
        ))
    return FileWork(source, units, texts, extract_symbols(source.text, source.language))
