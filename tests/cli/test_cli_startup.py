"""Commands that never encode or search must start without torch, transformers or faiss.

`--help`, `list` and `info` answer within 0.4 s (issue 9, bench/cli_latency.py):
they also leave out what only searching, encoding and writing need.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

HEAVY = ("torch", "transformers", "sentence_transformers", "faiss")
# What only search, context, index, watch and plot use; `list` and `info` read
# SQLite and stat the folder. (numpy still comes in with embedstore.store.db.)
SEARCH_SIDE = (
    "embedstore.retrieval.search", "embedstore.retrieval.context", "embedstore.encoders.query",
    "embedstore.chunking",
    "embedstore.ingest.indexer", "embedstore.plot.build", "filelock", "asyncio", "rich.syntax",
    "rich.progress",
)
PROBE = """
import sys
from typer.testing import CliRunner
from embedstore.cli.app import app
result = CliRunner().invoke(app, {args!r})
assert result.exit_code == 0, result.output
print(",".join(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["list"], ["info", "missing"], ["rm", "missing"]],
    ids=["help", "list", "info", "rm"],
)
def test_light_commands_import_no_model_or_index_library(args: list[str], tmp_path: Path) -> None:
    argv = [*args, "--store", str(tmp_path)] if args != ["--help"] else args
    code = PROBE.format(args=argv, heavy=HEAVY)
    if args[0] in ("info", "rm"):  # an unknown name is a clean error, still without torch
        code = code.replace("assert result.exit_code == 0", "assert result.exit_code == 1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_help_loads_neither_numpy_nor_the_store() -> None:
    code = PROBE.format(args=["--help"], heavy=("numpy", "embedstore.store", *SEARCH_SIDE))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("args", [["list"], ["info", "proj"]], ids=["list", "info"])
def test_list_and_info_of_a_collection_load_nothing_of_search_or_indexing(
    args: list[str], tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    repo = tmp_path / "proj"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha():\n    return 'first letter'\n")
    store = tmp_path / "store"
    index_folder(Store(store), repo, IndexOptions(encoder=FAKE_SPEC))
    code = PROBE.format(args=[*args, "--store", str(store)], heavy=HEAVY + SEARCH_SIDE)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


@pytest.mark.slow
def test_search_after_index_encodes_the_query_without_torch(tmp_path: Path) -> None:
    """`index` exports the model to ONNX once; `search` then never imports torch."""
    demo = Path(__file__).resolve().parents[2] / "examples" / "demo-repo"
    store = str(tmp_path / "store")
    indexed = CliRunner().invoke(app, ["index", str(demo), "--name", "demo", "--store", store])
    assert indexed.exit_code == 0, indexed.output
    args = ["search", "parse the config file and merge defaults", "--name", "demo",
            "--store", store, "-k", "1"]
    model_libraries = HEAVY[:3]  # FAISS is what search runs on
    code = PROBE.format(args=args, heavy=model_libraries).replace(
        "print(", "print(result.output)\nprint('loaded:' + "
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    output, _, loaded = done.stdout.rpartition("loaded:")
    assert "src/settings/loader.py" in output
    assert loaded.strip() == ""
