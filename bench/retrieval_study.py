"""How the retrieval defaults were chosen: unit vectors, lexical terms, fusion.

Builds (once, cached under bench/work/study/) the `embedstore eval` corpus and
collection of the standard library (the tuning set) and of each validation
package from ../shared/eval/fetch_repos.py (the confirmation set), then scores
variants offline from the same stored vectors and BM25 candidate lists:

    python bench/retrieval_study.py [--validation DIR] [--max-queries 1000]

Tight rule throughout (embedstore.evaluation.hit_rules): a hit must be the query's
function itself, not a class outline or merged run holding its `def` line.
Prints MRR@10 per variant for both sets and writes bench/results/retrieval_study.json.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.dataset import EvalQuery, build_corpus
from embedstore.evaluation.hit_rules import TIGHT, is_hit
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.lexical import STOP_WORDS, code_terms, index_terms
from embedstore.store.store import Store

WORK = Path(__file__).resolve().parent / "work" / "study"
RESULTS = Path(__file__).resolve().parent / "results"
CUTOFF = 10


def build(name: str, repo: Path, max_queries: int) -> tuple[Path, list[EvalQuery]]:
    """The corpus and collection of one repository, built once."""
    # The layout of `embedstore eval --work WORK`, so bench/eval_retrieval.py reuses it all.
    corpus = WORK / name / "corpus"
    queries_file = WORK / "queries" / f"{name}.json"
    if not queries_file.exists():
        queries = build_corpus(repo, corpus, seed=0, max_queries=max_queries)
        queries_file.parent.mkdir(parents=True, exist_ok=True)
        queries_file.write_text(json.dumps([q.__dict__ for q in queries]))
    queries = [EvalQuery(**q) for q in json.loads(queries_file.read_text())]
    store = Store(WORK / name / "store")
    index_folder(store, corpus, IndexOptions(name="with-header", index_kind="flat"))
    return WORK / name / "store" / "with-header", queries


@dataclass
class Repo:
    """One built repository, loaded for offline scoring."""

    name: str
    queries: list[EvalQuery]
    unit_path: list[str]
    unit_lines: np.ndarray  # (u, 2)
    unit_vectors: np.ndarray  # (u, d), as the index stores them
    whole_vectors: np.ndarray  # (u, d), split units encoded whole (the baseline)
    piece_unit: np.ndarray  # (c,) row of each chunk's unit
    piece_lines: np.ndarray  # (c, 2)
    piece_vectors: np.ndarray  # (c, d)
    piece_texts: list[str]
    query_vectors: np.ndarray  # (q, d)
    targets: list[int]  # row of the unit that is each query's function (tight rule)
    conn: sqlite3.Connection  # in-memory copy for lexical variants


def load(name: str, path: Path, queries: list[EvalQuery]) -> Repo:
    from embedstore.store import db
    from embedstore.store.collection import Collection

    collection = Collection(path)
    dim = collection.manifest.dim
    conn = collection.conn
    units = conn.execute(
        "SELECT u.id, f.path, u.start_line, u.end_line, u.symbol, u.text, u.vector "
        "FROM units u JOIN files f ON f.id = u.file_id ORDER BY u.id"
    ).fetchall()
    row_of = {u[0]: i for i, u in enumerate(units)}
    chunks = conn.execute(
        "SELECT unit_id, start_line, end_line, context, vector, text FROM chunks "
        "ORDER BY unit_id, start_line"
    ).fetchall()
    first_context: dict[int, str] = {}
    pieces_per_unit: dict[int, int] = {}
    for c in chunks:
        first_context.setdefault(c[0], c[3])
        pieces_per_unit[c[0]] = pieces_per_unit.get(c[0], 0) + 1
    unit_vectors = db.from_blobs([u[6] for u in units], dim)
    whole = unit_vectors.copy()
    split = [i for i, u in enumerate(units) if pieces_per_unit[u[0]] > 1]
    texts = [f"{units[i][1]}\n{first_context[units[i][0]]}\n{units[i][5]}" for i in split]
    cache = WORK / "whole" / f"{name}.npy"
    if cache.exists():
        encoded = np.load(cache)
    else:
        encoded = collection.encoder.encode(texts) if texts else np.zeros((0, dim), np.float32)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, encoded)
    whole[split] = encoded
    qcache = WORK / "qvec" / f"{name}.npy"
    if qcache.exists():
        qv = np.load(qcache)
    else:
        qv = collection.encoder.encode([q.query for q in queries], kind="query")
        qcache.parent.mkdir(parents=True, exist_ok=True)
        np.save(qcache, qv)
    by_path: dict[str, list[int]] = {}
    for i, u in enumerate(units):
        by_path.setdefault(u[1], []).append(i)
    targets = []
    for q in queries:
        hit = [i for i in by_path.get(q.path, [])
               if is_hit(TIGHT, q, units[i][1], units[i][2], units[i][3], units[i][5])]
        targets.append(hit[0] if hit else -1)
    mem = sqlite3.connect(":memory:")
    mem.execute("CREATE TABLE units "
                "(row INTEGER PRIMARY KEY, path TEXT, symbol TEXT, text TEXT, context TEXT)")
    mem.executemany("INSERT INTO units VALUES (?, ?, ?, ?, ?)",
                    [(i, u[1], u[4], u[5], first_context[u[0]]) for i, u in enumerate(units)])
    repo = Repo(
        name, queries, [u[1] for u in units], np.array([[u[2], u[3]] for u in units]),
        unit_vectors, whole, np.array([row_of[c[0]] for c in chunks]),
        np.array([[c[1], c[2]] for c in chunks]), db.from_blobs([c[4] for c in chunks], dim),
        [c[5] for c in chunks], qv, targets, mem,
    )
    collection.close()
    return repo


def rank_in(order: Sequence[int], target: int) -> int | None:
    for r, item in enumerate(order[:CUTOFF], start=1):
        if item == target:
            return r
    return None


def top(scores: np.ndarray, n: int) -> list[int]:
    part = np.argpartition(-scores, min(n, len(scores) - 1))[:n]
    return [int(i) for i in part[np.argsort(-scores[part], kind="stable")]]


# -- dense variants: (repo) -> per query ranked unit rows ---------------------------


def dense_units(repo: Repo, vectors: np.ndarray, n: int = 100) -> list[list[tuple[int, float]]]:
    scores = repo.query_vectors @ vectors.T  # (q, u)
    return [[(i, float(s[i])) for i in top(s, n)] for s in scores]


def dense_piece_max(repo: Repo, n: int = 100) -> list[list[tuple[int, float]]]:
    scores = repo.query_vectors @ repo.piece_vectors.T  # (q, c)
    out = []
    for s in scores:
        best = np.full(len(repo.unit_path), -2.0)
        np.maximum.at(best, repo.piece_unit, s)
        out.append([(i, float(best[i])) for i in top(best, n)])
    return out


def chunk_level_ranks(repo: Repo) -> list[int | None]:
    """v0.1 dense: pieces ranked on their own; a hit is a piece that is the function (tight)."""
    scores = repo.query_vectors @ repo.piece_vectors.T  # (q, c)
    ranks = []
    for q, s in zip(repo.queries, scores, strict=True):
        order = top(s, CUTOFF)
        rank = None
        for r, c in enumerate(order, start=1):
            unit = repo.piece_unit[c]
            a, b = repo.piece_lines[c]
            if is_hit(TIGHT, q, repo.unit_path[unit], int(a), int(b), repo.piece_texts[c]):
                rank = r
                break
        ranks.append(rank)
    return ranks


# -- lexical variants -----------------------------------------------------------------


@dataclass(frozen=True)
class LexicalVariant:
    terms: Callable[[str], list[str]]
    name_weight: float
    owner_weight: float
    own_name_only: bool = True


def lexical_lists(repo: Repo, v: LexicalVariant, n: int = 100) -> list[list[tuple[int, float]]]:
    from embedstore.chunking.units import own_name, owner_name

    mem = repo.conn
    mem.execute("DROP TABLE IF EXISTS fts")
    mem.execute("CREATE VIRTUAL TABLE fts USING fts5(name, owner, terms, "
                "tokenize=\"unicode61 tokenchars '_'\")")
    rows = []
    for row, path, symbol, text, context in mem.execute("SELECT * FROM units").fetchall():
        name = own_name(symbol) if v.own_name_only else (symbol or "")
        owner = owner_name(symbol) if v.own_name_only else ""
        rows.append((row, " ".join(v.terms(name)), " ".join(v.terms(owner)),
                     " ".join(v.terms(f"{path}\n{context}\n{text}"))))
    mem.executemany("INSERT INTO fts(rowid, name, owner, terms) VALUES (?, ?, ?, ?)", rows)
    out = []
    for q in repo.queries:
        terms = list(dict.fromkeys(v.terms(q.query)))
        if not terms:
            out.append([])
            continue
        match = " OR ".join(f'"{t}"' for t in terms)
        bm25 = f"bm25(fts, {v.name_weight}, {v.owner_weight}, 1.0)"
        found = mem.execute(
            f"SELECT rowid, -{bm25} FROM fts WHERE fts MATCH ? ORDER BY {bm25}, rowid LIMIT ?",
            (match, n),
        ).fetchall()
        out.append([(int(r), float(s)) for r, s in found])
    return out


# -- fusion variants ---------------------------------------------------------------------

Lists = list[tuple[int, float]]


def rrf(dense: Lists, lexical: Lists, k: float = 60, w: float = 1.0) -> list[int]:
    scores: dict[int, float] = {}
    for r, (i, _) in enumerate(dense, start=1):
        scores[i] = scores.get(i, 0) + 1 / (k + r)
    for r, (i, _) in enumerate(lexical, start=1):
        scores[i] = scores.get(i, 0) + w / (k + r)
    return [i for i, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def convex(dense: Lists, lexical: Lists, alpha: float) -> list[int]:
    """alpha * cosine + (1 - alpha) * BM25 / the query's best BM25 (theoretical-min 0)."""
    top_bm25 = lexical[0][1] if lexical else 1.0
    d = dict(dense)
    lx = {i: s / top_bm25 for i, s in lexical}
    floor = min(d.values()) if d else 0.0
    lx_floor = min(lx.values()) if len(lx) >= 100 else 0.0
    items = set(d) | set(lx)
    score = {i: alpha * d.get(i, floor) + (1 - alpha) * lx.get(i, lx_floor) for i in items}
    return [i for i, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))]


def mrr(ranks: Sequence[int | None]) -> float:
    return sum(1 / r for r in ranks if r) / len(ranks)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--validation", type=Path,
                        default=Path(__file__).parent / "work" / "validation")
    parser.add_argument("--max-queries", type=int, default=1000)
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    sets = {"stdlib": [("stdlib", stdlib_copy(Path(__file__).parent / "work" / "stdlib"))]}
    sets["validation"] = [(p.name, p) for p in sorted(args.validation.iterdir()) if p.is_dir()]
    built = {
        label: [(name, *build(name, repo, args.max_queries)) for name, repo in repos]
        for label, repos in sets.items()
    }
    for label, items in built.items():
        print(label, sum(len(q) for _, _, q in items), "queries", flush=True)
    if args.build_only:
        return
    loaded = {label: [load(n, p, q) for n, p, q in items] for label, items in built.items()}
    table = {label: score_variants(repos) for label, repos in loaded.items()}
    report(table)


def without_stop_words(text: str) -> list[str]:
    return [t for t in code_terms(text) if t not in STOP_WORDS]


LEXICAL_VARIANTS = {
    "lex: plain terms": LexicalVariant(code_terms, 10, 2),
    "lex: +stop words": LexicalVariant(without_stop_words, 10, 2),
    "lex: +stop +plural (product)": LexicalVariant(index_terms, 10, 2),
    "lex: product, name 5": LexicalVariant(index_terms, 5, 2),
    "lex: product, name 3 owner 1": LexicalVariant(index_terms, 3, 1),
    "lex: v0.1 (qualified symbol 10x)": LexicalVariant(code_terms, 10, 0, own_name_only=False),
}
PRODUCT_LEXICAL = "lex: +stop +plural (product)"


def ids(lists: list[Lists]) -> list[list[int]]:
    return [[i for i, _ in ranked] for ranked in lists]


def score_variants(repos: list[Repo]) -> dict[str, list[int | None]]:
    """Per variant, every query's rank over the repositories of one set, in order."""
    rows: dict[str, list[int | None]] = {}

    def add(name: str, orders: Callable[[Repo], list[list[int]]]) -> None:
        rows[name] = []
        for repo in repos:
            rows[name] += [rank_in(o, t) for o, t in zip(orders(repo), repo.targets, strict=True)]

    rows["dense: v0.1 pieces"] = [r for repo in repos for r in chunk_level_ranks(repo)]
    dense = {repo.name: dense_units(repo, repo.unit_vectors) for repo in repos}
    add("dense: unit mean (product)", lambda repo: ids(dense[repo.name]))
    add("dense: whole-function (baseline)",
        lambda repo: ids(dense_units(repo, repo.whole_vectors)))
    add("dense: unit max piece", lambda repo: ids(dense_piece_max(repo)))
    lexical: dict[str, dict[str, list[Lists]]] = {}
    for name, variant in LEXICAL_VARIANTS.items():
        lexical[name] = {repo.name: lexical_lists(repo, variant) for repo in repos}
        add(name, lambda repo, name=name: ids(lexical[name][repo.name]))  # type: ignore[misc]

    def pairs(repo: Repo) -> list[tuple[Lists, Lists]]:
        return list(zip(dense[repo.name], lexical[PRODUCT_LEXICAL][repo.name], strict=True))

    for k in (10, 30, 60):
        for w in (1.0, 0.5):
            add(f"hybrid: rrf k={k} w_lex={w}",
                lambda repo, k=k, w=w: [rrf(d, x, k, w) for d, x in pairs(repo)])  # type: ignore[misc]
    for alpha in (0.5, 0.6, 0.7, 0.8, 0.9):
        add(f"hybrid: convex a={alpha}",
            lambda repo, a=alpha: [convex(d, x, a) for d, x in pairs(repo)])  # type: ignore[misc]
    return rows


def report(table: dict[str, dict[str, list[int | None]]]) -> None:
    labels = list(table)
    print(f"{'variant':40s} " + " ".join(f"{label:>12s}" for label in labels))
    for name in table[labels[0]]:
        cells = " ".join(f"{100 * mrr(table[label][name]):12.1f}" for label in labels)
        print(f"{name:40s} {cells}")
    for label in labels:
        base = reciprocal_ranks(table[label]["dense: unit mean (product)"], CUTOFF)
        for name, ranks in table[label].items():
            d, lo, hi = (100 * x for x in
                         paired_bootstrap_ci(reciprocal_ranks(ranks, CUTOFF), base))
            print(f"{label:10s} {name:40s} vs dense-mean {d:+6.1f} [{lo:+.1f}, {hi:+.1f}]")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "retrieval_study.json").write_text(json.dumps(
        {label: {name: {"mrr@10": 100 * mrr(r), "queries": len(r)} for name, r in rows.items()}
         for label, rows in table.items()}, indent=2))


if __name__ == "__main__":
    main()
