"""Which folders a scan leaves out whole, by a rule people can predict (issue 30).

Vendored folders follow GitHub Linguist's vendor.yml; build outputs are skipped only where
a build puts them (git tracks nothing in them, or, without git, next to a project file).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.ingest.sources import ScanStats, walk_sources
from embedstore.retrieval.search import search
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

TreeWriter = Callable[[Mapping[str, str | bytes]], Path]
CODE = "def f():\n    return 1\n"
PIP = Path(__file__).parents[3] / ".venv" / "lib" / "python3.11" / "site-packages" / "pip"


def scan(root: Path, *, include_vendored: bool = False) -> tuple[list[str], ScanStats]:
    stats = ScanStats()
    kept = walk_sources(root, stats=stats, include_vendored=include_vendored)
    return [source.rel_path for source in kept], stats


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_vendored_folders_follow_linguists_list_at_any_depth(write_tree: TreeWriter) -> None:
    root = write_tree({
        "pkg/core.py": CODE,
        "pkg/_vendor/six.py": CODE,
        "pkg/vendors/lib.js": CODE,
        "third-party/zlib/z.c": CODE,
        "src/Godeps/_workspace/dep.go": CODE,
        "src/Godeps/deps.json": "{}\n",
        "node_modules/left-pad/index.js": CODE,
    })

    kept, stats = scan(root)

    assert kept == ["pkg/core.py", "src/Godeps/deps.json"]
    assert stats.pruned == {
        "node_modules/": "vendored", "pkg/_vendor/": "vendored", "pkg/vendors/": "vendored",
        "src/Godeps/_workspace/": "vendored", "third-party/": "vendored",
    }
    everything, with_vendored = scan(root, include_vendored=True)
    assert len(everything) == 7 and with_vendored.pruned == {}


def test_without_git_an_output_folder_is_skipped_only_next_to_a_project_file(
    write_tree: TreeWriter,
) -> None:
    root = write_tree({
        "pyproject.toml": "[project]\nname = 'pkg'\n",
        "build/lib/pkg/core.py": CODE,  # what `pip wheel` left
        "dist/pkg.js": CODE,
        "pkg/operations/build/tracker.py": CODE,  # a package named build: source
        "pkg/target/aim.py": CODE,
        "web/package.json": "{}\n",
        "web/dist/app.js": CODE,
    })

    kept, stats = scan(root)

    assert kept == [
        "pkg/operations/build/tracker.py", "pkg/target/aim.py", "pyproject.toml",
        "web/package.json",
    ]
    assert stats.pruned == {"build/": "output", "dist/": "output", "web/dist/": "output"}


def test_in_git_an_output_folder_with_tracked_files_is_source(write_tree: TreeWriter) -> None:
    root = write_tree({
        "pyproject.toml": "[project]\n",
        "build/make_release.py": CODE,  # tracked: a project's build scripts
        "dist/bundle.js": CODE,  # untracked, not ignored: a build's output
        "pkg/dist/tracked.py": CODE,
        "vendor/lib.py": CODE,  # tracked, still vendored
    })
    git(root, "init", "-q")
    git(root, "add", "pyproject.toml", "build", "pkg", "vendor")

    kept, stats = scan(root)

    assert kept == ["build/make_release.py", "pkg/dist/tracked.py", "pyproject.toml"]
    assert stats.pruned == {"dist/": "output", "vendor/": "vendored"}


def test_the_report_names_skipped_folders_ten_then_counts(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "repo"
    for i in range(12):
        (root / f"m{i:02}" / "vendor").mkdir(parents=True)
        (root / f"m{i:02}" / "vendor" / "x.py").write_text(CODE)
    (root / "main.py").write_text(CODE)

    report = index_folder(Store(), root, IndexOptions(name="repo", encoder=FAKE_SPEC))

    (line,) = report.left_out()
    assert line.startswith("skipped folders: m00/vendor/ (vendored), m01/vendor/ (vendored)")
    assert line.endswith(
        "m09/vendor/ (vendored) and 2 more; --include-vendored keeps vendored ones"
    )


def test_include_vendored_is_kept_by_the_collection(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "repo"
    (root / "_vendor").mkdir(parents=True)
    (root / "_vendor" / "six.py").write_text(CODE)
    (root / "main.py").write_text(CODE)
    store = Store()

    with_vendored = IndexOptions(name="repo", encoder=FAKE_SPEC, include_vendored=True)
    assert index_folder(store, root, with_vendored).files_new == 2
    again = index_folder(store, root, IndexOptions(name="repo"))  # a plain re-run, or a watch
    assert again.nothing_changed and again.skipped_folders == {}
    dropped = index_folder(store, root, IndexOptions(name="repo", include_vendored=False))
    assert dropped.files_deleted == 1 and dropped.skipped_folders == {"_vendor/": "vendored"}


@pytest.mark.skipif(not PIP.is_dir(), reason="pip is not installed in the project's venv")
def test_pips_build_package_is_searchable_and_its_vendored_copies_are_not_indexed(
    fake_encoder: FakeEncoder,
) -> None:
    store = Store()
    report = index_folder(store, PIP, IndexOptions(name="pip", encoder=FAKE_SPEC))

    assert report.skipped_folders == {"_vendor/": "vendored"}
    hits = search(store.open("pip"), "BuildTracker", k=5, mode="lexical")
    assert hits[0].path == "_internal/operations/build/build_tracker.py"
    assert not [h for h in search(store.open("pip"), "requests", k=50) if "_vendor" in h.path]


def test_the_cli_summary_names_skipped_folders_and_the_flag_keeps_them(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    from typer.testing import CliRunner

    from embedstore.cli.app import app

    root = tmp_path / "repo"
    (root / "pkg" / "_vendor").mkdir(parents=True)
    (root / "pkg" / "_vendor" / "six.py").write_text(CODE)
    (root / "pkg" / "core.py").write_text(CODE)
    runner = CliRunner()

    first = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC])
    assert first.exit_code == 0, first.stderr
    assert ("skipped folders: pkg/_vendor/ (vendored); --include-vendored keeps vendored ones"
            in first.stdout.splitlines())
    kept = runner.invoke(app, ["index", str(root), "--include-vendored", "--json"])
    assert kept.exit_code == 0 and '"files_new": 1' in kept.stdout, kept.stdout
    assert "skipped folders" not in runner.invoke(app, ["index", str(root)]).stdout
    dropped = runner.invoke(app, ["index", str(root), "--skip-vendored", "--json"])
    assert '"files_deleted": 1' in dropped.stdout, dropped.stdout
