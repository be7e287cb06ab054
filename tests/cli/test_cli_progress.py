"""Progress on a stderr that is not a terminal: plain lines, not a silent live bar."""

from __future__ import annotations

import io
import re

from embedstore.cli.console import WholeLineConsole
from embedstore.cli.progress import RichProgress


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
