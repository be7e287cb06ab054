"""Real uvicorn servers on 127.0.0.1 for end-to-end API tests: `embedstore serve` in a
subprocess (the real default model), or an app in a thread (a test's fake encoder)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

# How long a test waits for a server to start, or for one request's answer: a bound for a
# stuck server, not a speed target (those are bench/'s). Under a load of 8-15 on 2 cores,
# creating a collection (the encoder loaded to learn its dimension) took over 30 s.
START_TIMEOUT_S = 600
REQUEST_TIMEOUT_S = 300
# The precision a served model runs at, and what a test encodes its expected vectors with.
# `auto` takes bf16 when a speed check at load finds it faster, which load on the machine
# can flip from one process to the next; the two paths differ by 1e-3.
SERVED_PRECISION = "fp32"


@dataclass
class Server:
    url: str
    store: Path
    process: subprocess.Popen[str]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(
    store: Path, *args: str, timeout: float = START_TIMEOUT_S
) -> Iterator[Server]:
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDSTORE_HOME": str(store),
           "EMBEDSTORE_PRECISION": SERVED_PRECISION}
    process = subprocess.Popen(
        [sys.executable, "-m", "embedstore", "serve", "--port", str(port), *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                output = process.stdout.read() if process.stdout else ""
                raise RuntimeError(f"server exited: {output}")
            try:
                if httpx.get(f"{url}/health", timeout=2).json().get("ready"):
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("server did not become ready")
            time.sleep(0.3)
        yield Server(url, store, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def serving_in_thread(app: FastAPI, timeout: float = START_TIMEOUT_S) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 in this process, so a test's fake encoder serves.

    The subprocess server above runs the real default model; this one runs
    whatever ``app`` was built with.
    """
    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the in-process server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
