"""`list` fits an 80-column terminal without cutting a value; `rm` asks first on a
terminal (issue 31; fake encoder, a real pty for `rm`)."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.cli.collections_cmd import _short_encoder
from embedstore.cli.console import out
from embedstore.encoders.registry import DEFAULT_ENCODER
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()
EMBEDSTORE = Path(sys.executable).with_name("embedstore")


@pytest.fixture
def store(tmp_path: Path, isolated_home: Path, fake_encoder: FakeEncoder) -> Path:
    root = tmp_path / "my-web-project"
    root.mkdir()
    (root / "app.py").write_text("def serve(port):\n    return port\n" * 40)
    done = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC])
    assert done.exit_code == 0, done.stderr
    # Named as by the default encoder (list never loads the encoder); the manifest's truth
    # is in the database.
    with sqlite3.connect(isolated_home / "my-web-project" / "meta.sqlite") as conn:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'manifest'").fetchone()
        conn.execute("UPDATE meta SET value = ? WHERE key = 'manifest'",
                     (json.dumps({**json.loads(text), "encoder": DEFAULT_ENCODER}),))
    return isolated_home


def test_list_on_an_80_column_terminal_cuts_nothing(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(out, "_force_terminal", True)
    monkeypatch.setattr(out, "_width", 80)
    result = runner.invoke(app, ["list", "--color", "never"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.rstrip("\n").splitlines()
    assert max(map(len, lines)) <= 80, result.stdout
    assert "…" not in result.stdout
    (row,) = [line for line in lines if line.startswith("my-web-project")]
    assert "minilm-l6-code" in row
    assert len(row.split()[-3]) == len("2026-12-02") and len(row.split()[-2]) == len("08:10")


def test_the_encoder_is_shown_by_its_own_name() -> None:
    assert _short_encoder(DEFAULT_ENCODER) == "minilm-l6-code"
    assert _short_encoder("sentence-transformers/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert _short_encoder("/home/me/models/tuned/") == "tuned"
    assert _short_encoder("unreadable: disk full") == "unreadable: disk full"


def rm_on_a_terminal(store: Path, answer: bytes, *args: str) -> tuple[int, str]:
    """`embedstore rm` with a pty as stdin (a real terminal), answering ``answer``."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(EMBEDSTORE), "rm", "my-web-project", "--store", str(store), *args],
        stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )
    os.close(follower)
    try:
        # Typed ahead: the terminal keeps it until the prompt reads it.
        os.write(leader, answer)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        os.close(leader)
    return proc.returncode, stdout.decode() + stderr.decode()


def test_rm_asks_on_a_terminal_and_keeps_the_collection_on_no(store: Path) -> None:
    code, printed = rm_on_a_terminal(store, b"n\n")
    assert code == 1 and "Delete collection 'my-web-project'" in printed
    assert "Not deleted." in printed
    assert (store / "my-web-project").is_dir()
    code, printed = rm_on_a_terminal(store, b"y\n")
    assert code == 0 and "Deleted collection my-web-project." in printed
    assert not (store / "my-web-project").exists()


def test_rm_yes_does_not_ask(store: Path) -> None:
    code, printed = rm_on_a_terminal(store, b"", "--yes")
    assert code == 0 and "Delete collection 'my-web-project'?" not in printed
    assert not (store / "my-web-project").exists()


def test_rm_in_a_script_does_not_ask(store: Path) -> None:
    result = runner.invoke(app, ["rm", "my-web-project"])  # stdin is no terminal here
    assert result.exit_code == 0 and not (store / "my-web-project").exists()
