"""`embedstore ... | cat`: real processes, stdout and stderr pipes, the real default model."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A line far wider than the 80 columns Rich assumes off a terminal.
LONG_LINE = (
    '    header = "folder                                   size      files    '
    'last modified          owner"'
)
REPORT = f'''def format_disk_usage_report(entries):
    """Format a disk usage report: one line per folder, the largest first."""
    rows = sorted(entries, key=lambda e: e.size, reverse=True)
{LONG_LINE}
    return "\\n".join([header, *(f"{{e.path:<40}} {{e.size:>9}} {{e.files:>8}}" for e in rows)])
'''
QUERY = "format a disk usage report with one line per folder"
Indexed = tuple[Path, subprocess.CompletedProcess[str]]
VIMGREP = re.compile(r"(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+):(?P<text>.*)")


def embedstore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "embedstore", *args], cwd=cwd, capture_output=True, text=True,
        check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    """The store, and the `embedstore index` run that made it with stderr a pipe."""
    root = tmp_path_factory.mktemp("pipes")
    repo = root / "repo"
    repo.mkdir()
    (repo / "report.py").write_text(REPORT)
    shutil.copy(STDLIB / "shlex.py", repo / "shlex.py")
    return root / "store", embedstore("index", str(repo), "--store", str(root / "store"))


def search(store: Path, *args: str, cwd: Path | None = None) -> list[str]:
    done = embedstore("search", QUERY, "--store", str(store), *args, cwd=cwd)
    return done.stdout.splitlines()


def test_index_logs_each_stage_as_a_plain_line(indexed: Indexed) -> None:
    _, run = indexed
    assert "\r" not in run.stderr and "\x1b" not in run.stderr  # no live bar redrawn in a log
    stages = [line for line in run.stderr.splitlines() if line.endswith(", done")]
    assert [line.split(":")[0] for line in stages] == [
        "Scanning files", "Chunking files", "Encoding chunks", "Writing SQLite", "Building index"
    ]
    # Encoding starts while files are still being chunked: its total grows as files are.
    assert re.fullmatch(r"Encoding chunks: ([\d,]+)/\1 \(100%\), [\d.,]+/s, [\d.]+s, done",
                        stages[2]), stages[2]


def test_search_into_a_pipe_keeps_long_lines_whole_and_unpadded(
    indexed: Indexed
) -> None:
    store, _ = indexed
    lines = search(store, "-k", "3", cwd=store.parent / "repo")  # paths from the current folder
    assert re.fullmatch(r"1\. report\.py:1-5  score \d\.\d{3} \(\S+\)  format_disk_usage_report",
                        lines[0])
    assert any(line.endswith(LONG_LINE) for line in lines)  # not cut at 80 columns
    # Only the number of an empty source line is followed by its separating space.
    gutter = re.compile(r". +\d+ ")
    assert not [line for line in lines if line != line.rstrip() and not gutter.fullmatch(line)]


def test_vimgrep_lines_name_real_files_and_lines_from_the_current_folder(
    indexed: Indexed, tmp_path: Path
) -> None:
    store, _ = indexed
    lines = search(store, "-k", "5", "--format", "vimgrep", cwd=tmp_path)
    assert len(lines) == 5
    for line in lines:
        hit = VIMGREP.fullmatch(line)
        assert hit, line
        path = tmp_path / hit["path"]
        assert hit["path"].startswith("../") and path.is_file()
        assert hit["column"] == "1"
        assert path.read_text().splitlines()[int(hit["line"]) - 1] == hit["text"]
    assert lines[0].endswith("report.py:1:1:def format_disk_usage_report(entries):")


def test_jsonl_is_one_object_per_line(indexed: Indexed) -> None:
    store, _ = indexed
    lines = search(store, "-k", "4", "--format", "jsonl")
    hits = [json.loads(line) for line in lines]
    assert len(hits) == 4 and hits[0]["path"] == "report.py"
    assert hits[0]["text"] == REPORT.rstrip("\n")
    assert all({"path", "start_line", "end_line", "score", "text"} <= set(hit) for hit in hits)


def test_a_reader_that_stops_after_one_line_does_not_lose_the_index_run(tmp_path: Path) -> None:
    # `embedstore index repo 2>&1 | head -1`: the pipe closes after the first progress line.
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "report.py").write_text(REPORT)
    store = tmp_path / "store"
    command = [sys.executable, "-m", "embedstore", "index", str(repo), "--store", str(store)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as child:
        assert child.stdout is not None
        first = child.stdout.readline()
        child.stdout.close()
        code = child.wait(timeout=600)
    assert first.startswith(b"Scanning files")
    assert code == 0
    listed = json.loads(embedstore("list", "--json", "--store", str(store)).stdout)
    assert [(c["name"], c["files"]) for c in listed["collections"]] == [("repo", 1)]
