"""--ray without a model: the default path stays ray-free, bad addresses fail in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.ingest.ray_encoder import LOCAL, ActorPlan, plan_actors, ray_cluster, rows_per_batch
from tests.fakes import FAKE_SPEC, FakeEncoder

PROBE = """
import sys
from typer.testing import CliRunner
from embedstore.cli.app import app
from tests.fakes import install_fake_encoder
install_fake_encoder()
result = CliRunner().invoke(app, {args!r})
assert result.exit_code == 0, result.output
print("ray" in sys.modules)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 'first letter'\n")
    return root


def test_the_default_index_path_never_imports_ray(repo: Path, tmp_path: Path) -> None:
    args = ["index", str(repo), "--encoder", FAKE_SPEC, "--store", str(tmp_path / "s")]
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True,
                          text=True, check=False, timeout=120, cwd=Path(__file__).parents[3])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(("address", "fragment"), [
    ("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1"),
    ("headnode", "--ray takes 'local' or the HOST:PORT"),
])
def test_a_bad_address_is_one_line(
    address: str, fragment: str, repo: Path, fake_encoder: FakeEncoder
) -> None:
    result = CliRunner().invoke(app, ["index", str(repo), "--encoder", FAKE_SPEC, "--ray", address])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0], lines
    assert fake_encoder.encoded == []


def test_missing_ray_names_the_extra(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    result = CliRunner().invoke(app, ["index", str(repo), "--encoder", FAKE_SPEC, "--ray", "local"])
    assert result.exit_code == 1
    assert "pip install 'embedstore[ray]'" in result.stderr


def test_a_local_clusters_workers_run_at_the_callers_priority() -> None:
    import ray

    @ray.remote
    def niceness() -> int:
        return os.nice(0)

    with ray_cluster(LOCAL):
        assert ray.get(niceness.remote()) == os.nice(0)


def test_actors_follow_the_cluster() -> None:
    assert plan_actors({"CPU": 16.0, "GPU": 4.0}) == ActorPlan(actors=4, num_cpus=1, num_gpus=1)
    assert plan_actors({"CPU": 6.0}) == ActorPlan(actors=6, num_cpus=1, num_gpus=0)
    assert plan_actors({}) == ActorPlan(actors=1, num_cpus=1, num_gpus=0)
    # A few batches per actor, never fewer rows than one encoder batch.
    assert rows_per_batch(1024, actors=2, batch_size=16, in_progress=8192) == 128
    assert rows_per_batch(100, actors=16, batch_size=16, in_progress=8192) == 16
    # A whole run's texts: the actors' batches together hold at most in_progress texts.
    assert rows_per_batch(10**6, actors=8, batch_size=16, in_progress=8192) == 1024
    assert rows_per_batch(10**6, actors=1024, batch_size=16, in_progress=8192) == 16
