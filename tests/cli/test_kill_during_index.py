"""kill -9 in the middle of encoding leaves the collection usable and resumable."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

STDLIB = Path(sysconfig.get_paths()["stdlib"])
V1_MODULES = {"__init__.py", "base64mime.py", "charset.py", "encoders.py", "errors.py",
              "iterators.py"}


def embedstore(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "embedstore", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def parked(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0])


def search_paths(env: dict[str, str]) -> list[str]:
    proc = embedstore("search", "parse an email message header", "--name", "mail", "-k", "5",
                      "--json", env=env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return [r["path"] for r in json.loads(out)["results"]]


@pytest.mark.slow
def test_kill_9_during_encoding(tmp_path: Path) -> None:
    repo = tmp_path / "mail"
    shutil.copytree(STDLIB / "email", repo, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "EMBEDSTORE_HOME": str(tmp_path / "store"), "HF_HUB_OFFLINE": "1"}
    db = tmp_path / "store" / "mail" / "meta.sqlite"

    # Version 1: a small slice of the package (its mime/ and a few short modules, some 100
    # texts), indexed completely.
    late = sorted(p for p in repo.glob("*.py") if p.name not in V1_MODULES)
    held = tmp_path / "held"
    held.mkdir()
    for p in late:
        p.rename(held / p.name)
    first = embedstore("index", str(repo), "--json", env=env)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    v1_chunks = json.loads(out)["chunks_total"]
    v1_hits = search_paths(env)

    # Version 2: the whole package, some 660 new texts: more than one parked group
    # (embedstore.ingest.encode.PARK_EVERY), so the run parks some and is killed while it
    # encodes the rest.
    for p in late:
        (held / p.name).rename(p)
    proc = embedstore("index", str(repo), env=env)
    deadline = time.monotonic() + 300
    while not (db.exists() and parked(db) > 0):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == v1_chunks
    assert search_paths(env) == v1_hits  # searchable exactly as before the run

    resumed = embedstore("index", str(repo), "--json", env=env)
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    report = json.loads(out)
    assert report["chunks_reused"] > 0  # the parked vectors were not encoded again
    assert report["chunks_total"] > v1_chunks
    assert parked(db) == 0
