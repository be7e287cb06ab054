"""Progress on a stderr that is not a terminal: plain lines, not a silent live bar."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

from embedstore import IndexOptions, Store, index_folder
from embedstore.cli.console import WholeLineConsole
from embedstore.cli.progress import RichProgress
from tests.fakes import FAKE_SPEC, FakeEncoder


def run_stages(*, log_every: float, enabled: bool = True) -> list[str]:
    log = io.StringIO()  # a file: not a terminal
    with RichProgress(WholeLineConsole(file=log), enabled=enabled, log_every=log_every) as ui:
        ui.start("encode", 1200)
        for _ in range(4):
            ui.advance("encode", 300)
        ui.finish("encode")
        ui.start("store")
        ui.finish("store")
    return log.getvalue().splitlines()


def test_a_log_gets_a_line_now_and_then_and_one_when_a_stage_ends() -> None:
    lines = run_stages(log_every=0)
    assert len(lines) == 6
    assert [line.split(" (")[0] for line in lines[:5]] == [
        f"Encoding chunks: {n}/1,200" for n in ("300", "600", "900", "1,200", "1,200")
    ]
    assert "300/1,200 (25%), " in lines[0] and not lines[3].endswith("done")
    assert lines[4].endswith("s, done") and "/s, " in lines[4]  # the stage's average rate
    assert re.fullmatch(r"Writing SQLite: \d+\.\ds, done", lines[5])  # counts nothing: time only
    assert not any("\x1b" in line or "\r" in line for line in lines)


def test_a_quick_stage_only_reports_its_end() -> None:
    lines = run_stages(log_every=10.0)
    assert len(lines) == 2 and lines[0].startswith("Encoding chunks: 1,200/1,200 (100%), ")


def test_nothing_when_disabled() -> None:
    assert run_stages(log_every=0, enabled=False) == []


def test_encoding_learns_its_total_as_files_are_chunked_and_shows_an_eta() -> None:
    log = io.StringIO()
    with RichProgress(WholeLineConsole(file=log), log_every=0) as ui:
        ui.start("encode", None)
        ui.add_total("encode", 600)
        ui.advance("encode", 300)
        ui.add_total("encode", 600)
        time.sleep(0.01)  # Rich measures a rate only over elapsed time
        ui.advance("encode", 300)
        ui.finish("encode")
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("Encoding chunks: 300/600 (50%), ")
    assert lines[1].startswith("Encoding chunks: 600/1,200 (50%), ")
    assert re.search(r", ETA (\d+h \d\dm|\d+m \d\ds|\d+s)$", lines[1]), lines[1]
    assert lines[-1].endswith(", done") and "ETA" not in lines[-1]


class Totals:
    """A Progress that keeps what each stage was told."""

    def __init__(self) -> None:
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}

    def start(self, stage: str, total: int | None = None) -> None:
        self.totals[stage], self.done[stage] = total or 0, 0

    def advance(self, stage: str, n: int = 1) -> None:
        self.done[stage] += n

    def add_total(self, stage: str, n: int) -> None:
        self.totals[stage] += n

    def finish(self, stage: str) -> None:
        pass


def test_an_index_run_tells_encoding_its_whole_total(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(30):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    store = Store(tmp_path / "store")
    ui = Totals()
    report = index_folder(store, root, IndexOptions(encoder=FAKE_SPEC), progress=ui)
    assert report.chunks_encoded == 30
    assert ui.totals["encode"] == ui.done["encode"] == 30
    (root / "m0.py").write_text("def f0(x):\n    return x - 1\n")
    again = Totals()
    index_folder(store, root, IndexOptions(encoder=FAKE_SPEC), progress=again)
    assert again.totals["encode"] == again.done["encode"] == 1  # only what is encoded
