"""Peak memory of `embedstore serve` under the largest /v1/embeddings requests it accepts.

    python bench/embeddings_memory.py [--concurrent 4]

For each request shape, a fresh server (default model, CPU) on 127.0.0.1:
warm up with one short request, note its resident memory, send the request
(alone, then N copies at once), and read the process's peak resident memory
(VmHWM). Writes bench/results/embeddings_memory.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from embedstore.api.settings import ServerSettings  # noqa: E402
from tests.api.server import running_server  # noqa: E402

RESULTS = ROOT / "bench" / "results"
WORDS = ("def", "return", "self", "value", "data", "file", "path", "open", "close", "parse",
         "config", "merge")


def dense(chars: int, seed: int) -> str:
    """Code-like words: about 3 characters per token of the default model."""
    rng = random.Random(seed)
    text = " ".join(f"{rng.choice(WORDS)}{rng.randint(0, 99)}" for _ in range(chars // 6 + 1))
    return text[:chars]


def sparse(chars: int) -> str:
    """Few tokens over many characters: the tokenizer still reads every one."""
    return ("x" + " " * 99) * (chars // 100)


def shapes(limits: ServerSettings) -> dict[str, list[str]]:
    cap, chars = limits.max_embedding_tokens, limits.max_document_chars
    body_chars = limits.max_request_bytes - 1024
    per_input = min(chars, body_chars // 8)
    n = limits.max_embedding_inputs
    return {
        # ~3 chars per token, so just under the token cap in one input
        f"1 input, ~{cap:,} tokens": [dense(int(cap * 2.9), 1)],
        f"{n} inputs, {cap:,} tokens in all": [
            # Each input's own tokens: the cap's share less the 2 special tokens around it.
            dense(int((cap / n - 2) * 2.9), i) for i in range(n)
        ],
        f"8 inputs of {per_input:,} sparse characters (8 MB body)": [sparse(per_input)] * 8,
        "7 inputs of 980k characters (issue 10's F9; now refused)": [dense(980_000, 7)] * 7,
    }


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measure(name: str, texts: list[str], concurrent: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as store, running_server(Path(store)) as server:
        pid = server.process.pid
        with httpx.Client(base_url=server.url, timeout=600) as client:
            client.post("/v1/embeddings", json={"input": "warm up"}).raise_for_status()
            baseline = status_kb(pid, "VmRSS")

            def send(_: int) -> int:
                return client.post("/v1/embeddings", json={"input": texts}).status_code

            alone = send(0)
            peak_alone = status_kb(pid, "VmHWM")
            with ThreadPoolExecutor(concurrent) as pool:
                together = sorted(set(pool.map(send, range(concurrent))))
            peak_together = status_kb(pid, "VmHWM")
            after = status_kb(pid, "VmRSS")
    row = {
        "request": name, "status": alone, "status_concurrent": together,
        "body_mb": round(len(json.dumps({"input": texts})) / 1e6, 1),
        "rss_before_mb": baseline // 1024, "peak_alone_mb": peak_alone // 1024,
        f"peak_{concurrent}_at_once_mb": peak_together // 1024, "rss_after_mb": after // 1024,
    }
    print(row, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=4)
    args = parser.parse_args()
    limits = ServerSettings()
    rows = [measure(name, texts, args.concurrent) for name, texts in shapes(limits).items()]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "embeddings_memory.json").write_text(json.dumps(rows, indent=2) + "\n")
    keys = list(rows[0])
    lines = [
        "# Peak memory of `embedstore serve` under /v1/embeddings",
        "",
        f"Default limits: {limits.max_embedding_tokens:,} tokens per request, "
        f"{limits.max_document_chars:,} characters per input, "
        f"{limits.max_embedding_inputs:,} inputs, "
        f"{limits.max_request_bytes:,} bytes per body. CPU, default model.",
        "",
        "| " + " | ".join(keys) + " |",
        "| " + " | ".join("---" for _ in keys) + " |",
        *("| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows),
        "",
    ]
    (RESULTS / "embeddings_memory.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
