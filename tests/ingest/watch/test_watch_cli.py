"""`embedstore watch` as a user runs it: a subprocess, the real default model, the demo repo."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.store import Store
from tests.ingest.watch.test_watch import wait_for

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo-repo"
NEW_FUNCTION = '''

def rotate_api_tokens(vault: dict[str, str]) -> None:
    """Replace every API token kept in the secrets vault with a freshly generated one."""
    for key in vault:
        vault[key] = generate_token()
'''


def search_top(store: Path, query: str) -> tuple[str, str | None]:
    collection = Store(store).open("demo-repo")
    try:
        hit = search(collection, query, k=1)[0]
    finally:
        collection.close()
    return hit.path, hit.symbol


def chunk_count(store: Path, path: str) -> int:
    collection = Store(store).open("demo-repo")
    try:
        return int(collection.conn.execute(
            "SELECT COUNT(*) FROM chunks c JOIN units u ON u.id = c.unit_id "
            "JOIN files f ON f.id = u.file_id WHERE f.path = ?", (path,),
        ).fetchone()[0])
    finally:
        collection.close()


@pytest.mark.slow
def test_watch_picks_up_an_edit_and_a_deletion_within_ten_seconds(tmp_path: Path) -> None:
    repo = tmp_path / "demo-repo"
    shutil.copytree(DEMO, repo)
    store = tmp_path / "store"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "embedstore", "watch", str(repo), "--store", str(store)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    stdout: list[str] = []
    stderr: list[str] = []
    readers = [
        threading.Thread(target=lambda: stdout.extend(process.stdout or []), daemon=True),
        threading.Thread(target=lambda: stderr.extend(process.stderr or []), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        wait_for(lambda: any("Watching" in line for line in stderr) or process.poll() is not None,
                 "the first index")
        assert process.poll() is None, "".join(stderr)
        assert search_top(store, "parse the config file and merge defaults")[0] == (
            "src/settings/loader.py"
        )
        with (repo / "src" / "settings" / "loader.py").open("a") as fh:
            fh.write(NEW_FUNCTION)
        query = "rotate the API tokens stored in the secrets vault"
        wait_for(lambda: search_top(store, query) == ("src/settings/loader.py",
                                                      "rotate_api_tokens"),
                 "the edit")
        assert chunk_count(store, "web/server.go") > 0
        (repo / "web" / "server.go").unlink()
        wait_for(lambda: chunk_count(store, "web/server.go") == 0, "the deletion")
        collection = Store(store).open("demo-repo")
        assert "web/server.go" not in db.files_by_path(collection.conn)
        collection.close()
        # Each update is one line on stdout, as it happens.
        wait_for(lambda: "demo-repo: 0 changed, 0 new, 1 deleted" in "".join(stdout),
                 "the deletion's line")
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    for reader in readers:
        reader.join(5)
    assert process.returncode == 0, "".join(stderr)
    assert "demo-repo: 1 changed, 0 new, 0 deleted" in "".join(stdout)
    assert "Stopped." in "".join(stderr)
