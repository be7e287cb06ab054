from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from embedstore.ingest.sources import ScanStats, walk_sources

TreeWriter = Callable[[Mapping[str, str | bytes]], Path]

CODE = "x = 1\n"


def kept_rel_paths(root: Path) -> list[str]:
    return [source.rel_path for source in walk_sources(root)]


def test_root_gitignore_patterns_follow_git_semantics(write_tree: TreeWriter) -> None:
    root = write_tree(
        {
            ".gitignore": (
                "# comment line\n"
                "*.log\n"
                "!keep.log\n"
                "/only_root.txt\n"
                "tmp/\n"
                "docs/*.tmp\n"
                "**/cache/*.txt\n"
                "notes/**/draft.md\n"
            ),
            "app.log": "noise\n",
            "deep/er/app.log": "noise\n",
            "keep.log": "wanted\n",
            "only_root.txt": "anchored\n",
            "sub/only_root.txt": "not anchored here\n",
            "tmp/scratch.py": CODE,
            "sub/tmp/scratch.py": CODE,
            "sub/tmp_file/tmp": "a file named tmp, not a folder\n",
            "docs/a.tmp": "slash in the middle anchors the pattern\n",
            "sub/docs/a.tmp": "so this one is kept\n",
            "x/y/cache/c.txt": "cached\n",
            "cache/c.txt": "cached\n",
            "cache/c.py": CODE,
            "notes/draft.md": "zero folders match **\n",
            "notes/a/b/draft.md": "nested draft\n",
            "notes/final.md": "kept\n",
        }
    )

    assert kept_rel_paths(root) == [
        ".gitignore",
        "cache/c.py",
        "keep.log",
        "notes/final.md",
        "sub/docs/a.tmp",
        "sub/only_root.txt",
        "sub/tmp_file/tmp",
    ]


def test_nested_gitignore_governs_only_its_own_subtree(write_tree: TreeWriter) -> None:
    root = write_tree(
        {
            ".gitignore": "*.log\n",
            "local.txt": "root file, untouched by pkg/.gitignore\n",
            "pkg/.gitignore": "/local.txt\n*.secret\n!important.log\n",
            "pkg/local.txt": "anchored to pkg/\n",
            "pkg/deeper/local.txt": "anchored pattern does not reach here\n",
            "pkg/deeper/key.secret": "hidden\n",
            "pkg/important.log": "re-included by the deeper file\n",
            "pkg/debug.log": "still ignored by the root file\n",
            "other/key.secret": "sibling folder: rule does not leak\n",
        }
    )

    assert kept_rel_paths(root) == [
        ".gitignore",
        "local.txt",
        "other/key.secret",
        "pkg/.gitignore",
        "pkg/deeper/local.txt",
        "pkg/important.log",
    ]


def test_a_file_inside_an_ignored_folder_cannot_be_re_included(write_tree: TreeWriter) -> None:
    # Git does not look inside an excluded folder, so "!logs/keep.txt" is moot.
    root = write_tree(
        {
            ".gitignore": "logs/\n!logs/keep.txt\n",
            "logs/keep.txt": "still ignored\n",
            "main.py": CODE,
        }
    )

    assert kept_rel_paths(root) == [".gitignore", "main.py"]


def test_embedstoreignore_excludes_and_overrides_gitignore(write_tree: TreeWriter) -> None:
    root = write_tree(
        {
            ".gitignore": "*.gen.py\n",
            ".embedstoreignore": "fixtures/\n!wanted.gen.py\n",
            "fixtures/big.json": "{}\n",
            "wanted.gen.py": CODE,
            "other.gen.py": CODE,
            "sub/.embedstoreignore": "*.md\n",
            "sub/README.md": "# ignored in sub\n",
            "README.md": "# kept at the root\n",
        }
    )

    assert kept_rel_paths(root) == [
        ".embedstoreignore",
        ".gitignore",
        "README.md",
        "sub/.embedstoreignore",
        "wanted.gen.py",
    ]


def test_git_info_exclude_at_the_root_is_honoured(write_tree: TreeWriter) -> None:
    root = write_tree(
        {
            ".git/info/exclude": "scratch/\n*.bak\n",
            "scratch/try.py": CODE,
            "main.py.bak": CODE,
            "main.py": CODE,
        }
    )

    assert kept_rel_paths(root) == ["main.py"]


def test_gitignore_outranks_git_info_exclude(write_tree: TreeWriter) -> None:
    root = write_tree(
        {
            ".git/info/exclude": "*.bak\n",
            ".gitignore": "!keep.bak\n",
            "keep.bak": CODE,
            "drop.bak": CODE,
        }
    )

    assert kept_rel_paths(root) == [".gitignore", "keep.bak"]


def test_ignored_folders_are_pruned_and_counted_once(
    write_tree: TreeWriter, listed_folders: list[str]
) -> None:
    root = write_tree(
        {
            ".gitignore": "data/\n*.tmp\n",
            "data/a/b.py": CODE,
            "data/c.py": CODE,
            "src/x.tmp": "t\n",
            "src/y.tmp": "t\n",
            "src/z.py": CODE,
        }
    )
    stats = ScanStats()

    rel_paths = [source.rel_path for source in walk_sources(root, stats=stats)]

    assert rel_paths == [".gitignore", "src/z.py"]
    assert sorted(listed_folders) == [".", "src"]
    assert stats.skipped["ignored"] == 3
    assert stats.skipped_total == 3
