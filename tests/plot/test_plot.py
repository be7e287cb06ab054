"""`embedstore plot`: the map's points, HTML, PNG, seeds, queries and cache (fake encoder)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.plot import cache, projection
from embedstore.plot.build import build_map
from embedstore.plot.colors import OTHER, PALETTE, color_groups, resolve_color_by
from embedstore.plot.png import PNG_SIZE, draw
from embedstore.plot.points import CollectionMap, MapPoint
from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.plot.corpus import indexed_store

runner = CliRunner()


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    return indexed_store(tmp_path)


def plot(store: Store, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["plot", "proj", "--store", str(store.root), *args])
    return result.exit_code, result.stdout, result.stderr


def unit_locations(store: Store) -> dict[int, str]:
    conn = store.open("proj").conn
    rows = conn.execute(
        "SELECT u.id, f.path, u.start_line, u.end_line "
        "FROM units u JOIN files f ON f.id = u.file_id"
    )
    return {r[0]: f"{r[1]}:{r[2]}-{r[3]}" for r in rows}


def figure_data(html: str) -> list[dict[str, Any]]:
    """The traces plotly embedded in the page: Plotly.newPlot("map", [traces], layout, ...)."""
    found = re.search(r'Plotly\.newPlot\(\s*"map",\s*', html)
    assert found, "no plotly figure in the HTML"
    traces, _ = json.JSONDecoder().raw_decode(html[found.end():])
    return traces  # type: ignore[no-any-return]


def unit_traces(traces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in traces if t.get("customdata")]


def test_html_holds_one_point_per_sampled_unit_and_their_locations(
    store: Store, tmp_path: Path
) -> None:
    everything = unit_locations(store)
    assert len(everything) == 31
    code, stdout, stderr = plot(store, "--out", str(tmp_path / "all.html"))
    assert code == 0, stderr
    assert "31 of 31 units, PCA" in stdout
    html = (tmp_path / "all.html").read_text()
    points = [tuple(d) for t in unit_traces(figure_data(html)) for d in t["customdata"]]
    assert sorted(loc for loc, _ in points) == sorted(everything.values())
    assert ("parsing/parse_0.py:5-15", "token_grammar_0") in points  # location and symbol
    assert re.search(r"plotly\.js v\d", html)  # the library is inlined...
    assert "<script src=" not in html  # ...and nothing is fetched: it works offline

    code, _, stderr = plot(store, "--out", str(tmp_path / "some.html"), "--limit", "12",
                           "--color-by", "kind")
    assert code == 0, stderr
    traces = unit_traces(figure_data((tmp_path / "some.html").read_text()))
    sampled = [d[0] for t in traces for d in t["customdata"]]
    assert len(sampled) == len(set(sampled)) == 12
    assert set(sampled) <= set(everything.values())
    assert {t["name"].split(" (")[0] for t in traces} <= {"function", "class", "section"}


def test_png_opens_with_the_right_size(store: Store, tmp_path: Path) -> None:
    code, _, stderr = plot(store, "--png", str(tmp_path / "map.png"), "--query", "socket retry")
    assert code == 0, stderr
    with Image.open(tmp_path / "map.png") as image:
        assert image.format == "PNG"
        assert image.size == PNG_SIZE
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 20  # points were drawn, not a blank canvas


@pytest.mark.parametrize("method", ["pca", "tsne"])
def test_same_seed_same_output(store: Store, tmp_path: Path, method: str) -> None:
    outputs = []
    for run in range(2):
        out = tmp_path / f"run{run}.html"
        # Without the cache: the second run computes again, it does not just read the first.
        code, _, stderr = plot(store, "--out", str(out), "--method", method, "--limit", "20",
                               "--seed", "7", "--query", "cache the file")
        assert code == 0, stderr
        outputs.append(out.read_bytes())
        for file in (store.root / "proj" / cache.CACHE_DIR).iterdir():
            file.unlink()
    assert outputs[0] == outputs[1]
    other = build_map(store.open("proj"), method=method, limit=20, seed=8).map
    first = build_map(store.open("proj"), method=method, limit=20, seed=7).map
    assert [p.id for p in other.points] != [p.id for p in first.points]  # the seed matters


def test_a_second_call_reads_the_cache_until_the_collection_changes(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real_project = projection.project

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[2])
        return real_project(*args, **kwargs)

    monkeypatch.setattr(projection, "project", counting)
    collection = store.open("proj")
    first = build_map(collection, method="tsne", limit=25, seed=1)
    second = build_map(collection, method="tsne", limit=25, seed=1)
    assert (first.cached, second.cached, calls) == (False, True, ["tsne"])
    assert second.map == first.map
    build_map(collection, method="tsne", limit=25, seed=2)  # another seed: another map
    assert len(calls) == 2

    # A write bumps the generation: the maps of the old one are stale and deleted.
    folder = collection.path / cache.CACHE_DIR
    assert len(list(folder.glob("g*.json"))) == 2
    extra = tmp_path / "proj" / "storage" / "extra.py"
    extra.write_text("def flush_everything(disk):\n    return disk.flush()\n" * 3)
    index_folder(store, tmp_path / "proj", IndexOptions(name="proj"))
    third = build_map(collection, method="tsne", limit=25, seed=1)
    assert not third.cached and third.map.generation > first.map.generation
    assert [f.name.split("-")[0] for f in folder.glob("g*.json")] == [
        f"g{third.map.generation}"
    ]


def test_the_cache_keeps_only_the_newest_maps(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 2)
    collection = store.open("proj")
    for seed in range(4):
        build_map(collection, limit=10, seed=seed)
    assert len(list((collection.path / cache.CACHE_DIR).glob("g*.json"))) == 2
    assert build_map(collection, limit=10, seed=3).cached
    assert not build_map(collection, limit=10, seed=0).cached


def test_queries_are_placed_with_the_points_axes_and_linked_to_their_hits(
    store: Store, tmp_path: Path
) -> None:
    collection = store.open("proj")
    plain = build_map(collection, method="pca").map
    marked = build_map(collection, method="pca", queries=["socket request", "disk cache"], k=3).map
    # PCA places queries on the axes of the units alone: the points do not move.
    assert marked.points == plain.points
    hits = [tuple(r.id for r in search(collection, q, 3)) for q in ("socket request", "disk cache")]
    assert [q.hits for q in marked.queries] == hits
    # The query sits where the PCA of the units puts its vector.
    units = db.vectors_for(collection.conn, np.array([p.id for p in plain.points]), 64)
    query = collection.encoder.encode(["socket request"], kind="query")
    xy, _ = projection.project(units, query, "pca", 0)
    assert marked.queries[0].x == pytest.approx(xy[-1, 0], abs=1e-4)

    code, _, stderr = plot(store, "--out", str(tmp_path / "q.html"), "--query", "socket request",
                           "-k", "3")
    assert code == 0, stderr
    traces = figure_data((tmp_path / "q.html").read_text())
    star = next(t for t in traces if t.get("name") == "query: socket request")
    lines = next(t for t in traces if t.get("mode") == "lines")
    ends = {(x, y) for x, y in zip(lines["x"], lines["y"], strict=True) if x is not None}
    by_id = {p.id: (p.x, p.y) for p in plain.points}
    assert ends == {(star["x"][0], star["y"][0])} | {by_id[h] for h in hits[0]}


def test_hits_outside_the_sample_become_points(store: Store) -> None:
    collection = store.open("proj")
    sample = projection.sample_ids(db.unit_ids(collection.conn), 5, 0).tolist()
    hits = [r.id for r in search(collection, "cache write disk", 4)]
    outside = sorted(set(hits) - set(sample))
    assert outside  # the case under test
    found = build_map(collection, method="tsne", limit=5, queries=["cache write disk"], k=4).map
    assert found.sampled == 5
    assert [p.id for p in found.points] == [*sample, *outside]
    assert list(found.queries[0].hits) == hits


def test_a_map_too_small_for_tsne_is_drawn_with_pca(store: Store, tmp_path: Path) -> None:
    code, stdout, stderr = plot(store, "--out", str(tmp_path / "m.html"), "--method", "tsne",
                                "--limit", "3")
    assert code == 0
    assert "too few for t-SNE: drawn with PCA" in stderr
    assert "3 of 31 units, PCA" in stdout


@pytest.mark.slow  # numba compiles UMAP's code on first use: about 15 s
def test_umap_when_installed(store: Store) -> None:
    pytest.importorskip("umap")
    first = build_map(store.open("proj"), method="umap", limit=20, seed=3).map
    for file in (store.root / "proj" / cache.CACHE_DIR).iterdir():
        file.unlink()
    again = build_map(store.open("proj"), method="umap", limit=20, seed=3).map
    assert first.method == "umap" and len(first.points) == 20
    assert first == again


def test_more_groups_than_colours_share_one_grey_other() -> None:
    points = [MapPoint(id=i, path=f"f{i % 25}/m.py", start_line=1, end_line=2, kind="function",
                       language="python", symbol=None, folder=f"f{i % 25}/", x=0.0, y=0.0)
              for i in range(25 * 2 + 3)]  # f0/..f2/ hold 3 points, the rest 2
    labels, colours = color_groups(points, "folder")
    assert list(colours)[:3] == ["f0/", "f1/", "f2/"]  # largest first, ties by name
    assert len(colours) == len(PALETTE) and list(colours)[-1] == OTHER
    assert labels.count(OTHER) == 2 * (25 - len(PALETTE) + 1)
    assert len(set(colours.values())) == len(colours)


def test_the_png_legend_keeps_folders_whose_names_start_with_an_underscore() -> None:
    """matplotlib leaves a label starting with "_" out of its legend; pip's "_internal/" is
    a folder like any other."""
    folders = ["_internal/", "_vendor/", "cli/"]
    points = tuple(MapPoint(id=i, path=f"{folders[i % 3]}m.py", start_line=1, end_line=2,
                            kind="function", language="python", symbol=None,
                            folder=folders[i % 3], x=float(i), y=float(i % 3))
                   for i in range(9))
    found = CollectionMap(collection="pip", method="pca", limit=9, seed=0, generation=1,
                          total_units=9, sampled=9, points=points)
    legend = draw(found, "folder").axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [f"{f} (3)" for f in folders]


@pytest.mark.parametrize(("args", "fragment"), [
    (["--method", "mds"], "valid methods: pca, tsne, umap"),
    (["--color-by", "size"], "valid choices: folder, language, kind, file"),
    (["--limit", "0"], "limit must be at least 1"),
    (["--seed", "-1"], "seed must be between 0 and"),
    (["--query", "  "], "the query is empty"),
])
def test_bad_options_fail_in_one_line(
    store: Store, tmp_path: Path, args: list[str], fragment: str
) -> None:
    code, _, stderr = plot(store, "--out", str(tmp_path / "m.html"), *args)
    assert_one_line_error(code, stderr, fragment)
    assert not (tmp_path / "m.html").exists()


def test_without_out_or_png_it_writes_name_map_html_here(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    code, stdout, stderr = plot(store)
    assert code == 0, stderr
    assert [p.name for p in here.iterdir()] == ["proj-map.html"]
    assert "Wrote proj-map.html: 31 of 31 units" in stdout
    assert len(unit_traces(figure_data((here / "proj-map.html").read_text()))) >= 3
    # With --png alone, only the PNG is written.
    code, _, stderr = plot(store, "--png", "only.png")
    assert code == 0, stderr
    assert sorted(p.name for p in here.iterdir()) == ["only.png", "proj-map.html"]


def test_color_by_file_gives_each_file_its_colour(store: Store, tmp_path: Path) -> None:
    code, _, stderr = plot(store, "--out", str(tmp_path / "files.html"), "--color-by", "file")
    assert code == 0, stderr
    traces = unit_traces(figure_data((tmp_path / "files.html").read_text()))
    for trace in traces:
        group = trace["name"].split(" (")[0]
        assert {d[0].rsplit(":", 1)[0] for d in trace["customdata"]} == {group}
    assert len(traces) == 7  # 3 folders x 2 Python files, and README.md


def test_one_folder_for_every_point_colours_by_file(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    for n in range(3):
        (flat / f"m{n}.py").write_text(f"def f{n}(x):\n    return x + {n}\n\n\n"
                                       f"def g{n}(y):\n    return y * {n}\n")
    store = Store(tmp_path / "flat-store")
    index_folder(store, flat, IndexOptions(name="flat", encoder=FAKE_SPEC))
    points = build_map(store.open("flat")).map.points
    assert {p.folder for p in points} == {"./"}
    assert resolve_color_by(points, "folder") == "file"
    assert resolve_color_by(points, "kind") == "kind"
    out = tmp_path / "flat.html"
    result = runner.invoke(app, ["plot", "flat", "--store", str(store.root), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    traces = unit_traces(figure_data(out.read_text()))
    assert sorted(t["name"].split(" (")[0] for t in traces) == ["m0.py", "m1.py", "m2.py"]
    # Several folders keep the folder colours.
    proj = indexed_store(tmp_path / "proj-store")
    assert resolve_color_by(build_map(proj.open("proj")).map.points, "folder") == "folder"


def test_missing_folder_bad_default_name_and_unknown_collection(
    store: Store, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["plot", "../up", "--store", str(store.root)])
    assert_one_line_error(result.exit_code, result.stderr, "invalid collection name '../up'")
    assert_one_line_error(*plot(store, "--png", str(tmp_path / "no" / "m.png"))[::2],
                          "does not exist")
    result = runner.invoke(app, ["plot", "ghost", "--store", str(store.root), "--out", "m.html"])
    assert_one_line_error(result.exit_code, result.stderr, "no collection named 'ghost'")


def test_umap_without_the_extra_says_how_to_get_it(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projection, "umap_installed", lambda: False)
    code, _, stderr = plot(store, "--out", str(tmp_path / "m.html"), "--method", "umap")
    assert_one_line_error(code, stderr, "pip install 'embedstore[umap]'")
    assert "umap" not in projection.available_methods()


def assert_one_line_error(code: int, stderr: str, fragment: str) -> None:
    assert code == 1
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error:") and fragment in lines[0], lines[0]
