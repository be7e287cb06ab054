"""The README's tour, run as written (issue 31): every line of its code block in a fresh
bash that has only done what the README says (`. .venv/bin/activate`), on a copy of the
demo repository named some-repo, with its own store. The long-running lines run as a
user runs them: `watch` until Ctrl-C, `serve` on a free port with the `curl` line against
it, `mcp` answering a client's requests on stdin. The block is read from README.md, so
the test fails when the README changes without the tour working."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ACTIVATE = ". .venv/bin/activate"
VENV_BIN = ROOT / ".venv" / "bin"
# Generous: the model loads in every command, on a shared 2-core machine.
WAIT_S = 300.0

pytestmark = pytest.mark.slow


def readme_section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def tour() -> list[str]:
    return [line[4:] for line in readme_section("A tour").splitlines() if line.startswith("    ")]


def command_of(line: str) -> str:
    """The line without its trailing `# comment`."""
    return re.sub(r"\s+# .*$", "", line)


def test_the_set_up_says_how_to_put_embedstore_on_the_path() -> None:
    assert f"    {ACTIVATE}" in readme_section("Set up").splitlines()
    assert (ROOT / ACTIVATE.split()[1]).is_file()


class Shell:
    """Each line in a new bash: from the repository root, activate as the README says,
    then work where some-repo is."""

    def __init__(self, work: Path, store: Path) -> None:
        self.work = work
        path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                               if Path(p) != VENV_BIN)
        self.env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        self.env.update(PATH=path, EMBEDSTORE_HOME=str(store), HF_HUB_OFFLINE="1",
                        NO_COLOR="1")

    def script(self, line: str, prelude: str = "") -> list[str]:
        return ["bash", "-c", f"cd {ROOT} && {ACTIVATE} && cd {self.work} && {prelude}{line}"]

    def run(self, line: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
        done = subprocess.run(self.script(line, prelude), env=self.env, text=True,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=WAIT_S)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        return done

    def start(self, line: str, **kwargs: object) -> subprocess.Popen[str]:
        """A long-running line, its shell replaced by it so that signals reach it."""
        return subprocess.Popen(self.script(f"exec {line}"), env=self.env, text=True,
                                **kwargs)  # type: ignore[call-overload]


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def test_every_line_of_the_tour_runs(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(ROOT / "examples" / "demo-repo", work / "some-repo")
    shell = Shell(work, tmp_path / "store")
    lines = tour()
    assert len(lines) >= 10, lines
    port = free_port()
    server: subprocess.Popen[str] | None = None
    try:
        for line in lines:
            command = command_of(line)
            if command.startswith("embedstore serve"):
                server = shell.start(f"{command} --port {port}", stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_for(lambda: answers(f"http://127.0.0.1:{port}/ready"), "serve")
            elif command.startswith("curl"):
                assert "localhost:8000" in command  # the port serve's default is
                done = shell.run(command.replace("localhost:8000", f"localhost:{port}"))
                assert "cache.py" in json.dumps(json.loads(done.stdout))
            elif command.startswith("embedstore watch"):
                run_watch(shell, command, tmp_path / "watch.err")
            elif command.startswith("embedstore mcp"):
                run_mcp(shell, command)
            elif command.startswith("vim -q"):
                # vim is interactive: a stand-in reads the quickfix list vim would open.
                done = shell.run(command, prelude='vim() { cat "$2"; }; ')
                assert re.search(r"^some-repo/\S+:\d+:1:", done.stdout, flags=re.M), done.stdout
            else:
                done = shell.run(command)
                if " > " in command:
                    assert (work / command.rsplit(" > ", 1)[1]).read_text().strip()
                elif command.startswith("embedstore search"):
                    assert done.stdout.strip(), line
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
    assert not (tmp_path / "store" / "some-repo").exists()  # the tour ends with rm


def run_watch(shell: Shell, command: str, log: Path) -> None:
    """`watch` until it says it is watching, then Ctrl-C."""
    with log.open("w") as stderr:
        watcher = shell.start(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=stderr)
        try:
            wait_for(lambda: "Watching" in log.read_text() or watcher.poll() is not None,
                     "watch")
            watcher.send_signal(signal.SIGINT)
            watcher.wait(timeout=60)
        finally:
            if watcher.poll() is None:
                watcher.kill()
    assert watcher.returncode == 0, log.read_text()
    assert "Stopped." in log.read_text()


def run_mcp(shell: Shell, command: str) -> None:
    """`mcp` as an agent starts it: initialize, then a search, then stdin closes."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "readme-tour", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "flush the cache", "k": 3}}},
    ]
    server = shell.start(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in server.stdout], daemon=True).start()
    replies: dict[object, dict[str, object]] = {}
    try:
        for request in requests:
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            while "id" in request and request["id"] not in replies:
                reply = json.loads(lines.get(timeout=WAIT_S))
                replies[reply.get("id")] = reply
        server.stdin.close()  # the agent has gone
        server.wait(timeout=WAIT_S)
    finally:
        if server.poll() is None:
            server.kill()
    assert "serverInfo" in json.dumps(replies[1]), replies
    assert "cache.py" in json.dumps(replies[2]), replies[2]
    assert server.returncode == 0, server.stderr.read() if server.stderr else ""
    # A client that leaves at once, while the model still loads, ends it cleanly too
    # (it aborted with SIGABRT: the interpreter ended under the loading thread).
    hasty = shell.start(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    stdout, stderr = hasty.communicate(
        "".join(json.dumps(r) + "\n" for r in [*requests[:2], listing]), timeout=WAIT_S)
    assert hasty.returncode == 0, stderr
    assert "serverInfo" in stdout
