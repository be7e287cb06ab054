"""What people bring from rg and other tools: --version, -h, --color and NO_COLOR, plain
output in pipes, counts in JSON, stage times that add up (fake encoder, CliRunner)."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from embedstore import __version__
from embedstore.cli.app import app
from embedstore.cli.console import WholeLineConsole
from embedstore.ingest.run import IndexReport
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()
SOURCE = '''def load_data_file(path):
    """Read the data file at path and return its rows."""
    with open(path) as handle:
        return [row.split(",") for row in handle]


def unrelated(value):
    return value * 2
'''
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def invoke(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.py").write_text(SOURCE)
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.js").write_text("function x() {}\n")
    return root


@pytest.fixture
def indexed(repo: Path, fake_encoder: FakeEncoder) -> Path:
    invoke("index", str(repo), "--encoder", FAKE_SPEC)
    return repo


def sgr_codes(text: str) -> list[list[int]]:
    return [[int(p) for p in params.split(";") if p] for params in SGR.findall(text)]


def background_codes(text: str) -> list[int]:
    """The SGR parameters of `text` that paint a background (49, the terminal's own, is not)."""
    found = []
    for params in sgr_codes(text):
        i = 0
        while i < len(params):
            code = params[i]
            if code in (38, 48):  # extended colour: its arguments are not codes
                found += [code] if code == 48 else []
                i += 3 if params[i + 1:i + 2] == [5] else 5
                continue
            if 40 <= code <= 47 or 100 <= code <= 107:
                found.append(code)
            i += 1
    return found


# --- --version, -h


def test_version_prints_the_package_version() -> None:
    assert invoke("--version").stdout == f"embedstore {__version__}\n"


@pytest.mark.parametrize("command", [
    [], ["index"], ["search"], ["context"], ["list"], ["info"], ["rm"], ["eval"], ["serve"],
    ["plot"], ["tune"], ["watch"], ["mcp"], ["plt"], ["plt", "train"], ["plt", "inspect"],
])
def test_h_is_help_on_every_command(command: list[str]) -> None:
    short, long = invoke(*command, "-h"), invoke(*command, "--help")
    assert short.stdout == long.stdout and short.stdout.startswith("Usage: embedstore")


# --- colour


def test_a_pipe_gets_no_escape_codes_unless_colour_is_asked_for(indexed: Path) -> None:
    query = ["search", "load the data file", "-k", "1"]
    assert "\x1b[" not in invoke(*query).stdout
    assert "\x1b[" not in invoke("--color", "never", *query).stdout
    coloured = invoke("--color", "always", *query).stdout
    assert "\x1b[" in coloured
    assert SGR.sub("", coloured) == invoke(*query).stdout  # the same text, coloured


def test_code_blocks_paint_no_background(indexed: Path) -> None:
    coloured = invoke("--color", "always", "search", "load the data file", "-k", "2").stdout
    assert sgr_codes(coloured) and background_codes(coloured) == []


def test_lexical_text_output_marks_the_matched_terms(indexed: Path) -> None:
    def marked(*args: str) -> list[str]:
        out = invoke(*args, "search", "data file rows", "--mode", "lexical", "-k", "1").stdout
        # MATCH_STYLE, bold underline red: 1;4;31 before the terminal's background.
        return re.findall(r"\x1b\[1;4;31(?:;49)?m([^\x1b]*)\x1b\[0m", out)

    assert {"data", "file", "rows"} <= set(marked("--color", "always"))
    assert "load_" not in "".join(marked("--color", "always"))  # parts of a name, not all of it
    assert marked("--color", "never") == []
    assert marked() == []  # auto, into a pipe


def test_dense_text_output_marks_nothing(indexed: Path) -> None:
    out = invoke("--color", "always", "search", "data file rows", "--mode", "dense").stdout
    assert "\x1b[1;4;31" not in out


def console_with(mode: str, monkeypatch: pytest.MonkeyPatch, no_color: str | None) -> str:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    file = io.StringIO()
    console = WholeLineConsole(file=file, force_terminal=True)  # a terminal
    console.use_color(mode)  # type: ignore[arg-type]
    console.print("[red]alert[/red] [bold]bold[/bold]")
    return file.getvalue()


@pytest.mark.parametrize(("mode", "no_color", "coloured"), [
    ("auto", None, True), ("auto", "", True), ("auto", "1", False), ("always", "1", True),
    ("never", None, False),
])
def test_no_color_turns_auto_off_on_a_terminal_and_always_wins(
    mode: str, no_color: str | None, coloured: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed = console_with(mode, monkeypatch, no_color)
    assert SGR.sub("", printed) == "alert bold\n"
    assert ("\x1b[31m" in printed) is coloured
    assert ("\x1b[" in printed) is coloured  # off: not even bold


# --- list and info


def test_list_into_a_pipe_is_plain_columns(indexed: Path) -> None:
    lines = invoke("list").stdout.splitlines()
    assert not re.search(r"[\u2500-\u257f]", "\n".join(lines))  # no box drawing
    assert lines[0].split() == [
        "name", "files", "units", "chunks", "encoder", "index", "size", "indexed", "stale"]
    name, files, units, chunks, encoder, index, *_ = lines[1].split()
    assert (name, files, encoder, index) == ("proj", "1", FAKE_SPEC, "flat")
    assert units.isdigit() and chunks.isdigit()
    assert lines[1].index(FAKE_SPEC) == lines[0].index("encoder")  # aligned under its header
    assert all(line == line.rstrip() for line in lines)


def test_info_is_key_value_lines_without_python_reprs(indexed: Path) -> None:
    lines = invoke("info", "proj").stdout.splitlines()
    pairs = dict(line.split(": ", 1) for line in lines)
    assert len(pairs) == len(lines)
    assert pairs["encoder"] == FAKE_SPEC and pairs["dim"] == "64"
    assert pairs["index.kind"] == "flat"  # a nested value: one line per key
    assert pairs["normalize"] == "yes" and pairs["encoder_revision"] == "-"
    assert pairs["source_root"] == str(indexed.resolve())
    assert not [line for line in lines if re.search(r"[{}'\"]|None|True|False", line)]


# --- index


def test_index_json_counts_skipped_files_by_reason(repo: Path, fake_encoder: FakeEncoder) -> None:
    report = json.loads(invoke("index", str(repo), "--encoder", FAKE_SPEC, "--json").stdout)
    assert report["skipped"]["binary"] == 1 and report["skipped"]["vendored"] == 1
    assert sum(report["skipped"].values()) == 2
    assert all(isinstance(n, int) for n in report["skipped"].values())
    # Its seconds add up to its total, "other" included.
    assert "other" in report["seconds"]
    assert sum(report["seconds"].values()) == pytest.approx(report["total_seconds"], abs=0.005)


def test_index_summary_times_add_up_to_the_wall_time(repo: Path, fake_encoder: FakeEncoder) -> None:
    began = time.perf_counter()
    printed = invoke("index", str(repo), "--encoder", FAKE_SPEC).stdout.splitlines()
    wall = time.perf_counter() - began
    assert printed[0] == "proj: 1 files scanned, skipped 2 (vendored 1, binary 1)"
    timing = re.fullmatch(r".* \((.*); total ([\d.]+)s\)", printed[-1])
    assert timing, printed[-1]
    stages = {name: float(secs) for name, secs in re.findall(r"(\w+) ([\d.]+)s", timing[1])}
    assert list(stages) == [
        "load", "scan", "chunk", "encode", "store", "index", "record", "export", "other"]
    total = float(timing[2])
    assert sum(stages.values()) == pytest.approx(total, abs=1e-9)
    # Within the command's wall time as the caller saw it. No lower bound here: around the
    # command's body the runner parses and prints, which took 0.5 s under `stress --cpu 4`;
    # that the stages leave little unaccounted is the next test's.
    assert total <= wall + 0.05


def test_library_stage_times_leave_little_unaccounted(
    repo: Path, tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    from embedstore.ingest.indexer import IndexOptions, index_folder
    from embedstore.store.store import Store

    began = time.perf_counter()
    report = index_folder(Store(tmp_path / "s"), repo, IndexOptions(encoder=FAKE_SPEC))
    wall = time.perf_counter() - began
    assert wall - sum(report.seconds.values()) < 0.1 + 0.1 * wall, report.seconds


# --- watch


def test_watch_prints_only_runs_that_changed_something(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from embedstore.ingest import watch

    async def two_runs(*_: object, on_report: Callable[[IndexReport], None], **__: object) -> None:
        on_report(IndexReport(collection="proj", files_scanned=1, files_unchanged=1))
        on_report(IndexReport(collection="proj", files_scanned=1, files_changed=1,
                              chunks_encoded=2))

    monkeypatch.setattr(watch, "watch_folder", two_runs)
    result = invoke("watch", str(indexed))
    # The first run (nothing changed since `index`) and the first update print nothing.
    (line,) = result.stdout.splitlines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d proj: 1 changed, 0 new, 0 deleted; 2 chunks encoded, "
                        r"0 reused \(\d+\.\d s\)", line)
    assert "Watching" in result.stderr
