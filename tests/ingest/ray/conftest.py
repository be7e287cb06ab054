from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from embedstore.ingest.ray_encoder import LOCAL_SYSTEM_CONFIG

# The small stdlib repo that the ONNX tests index, shared rather than copied.
from tests.encoders.test_onnx_query import small_repo

__all__ = ["small_repo"]


@pytest.fixture
def model_loads(tmp_path: Path) -> Path:
    """One line per model loaded by a worker of ``two_cpu_cluster``."""
    record = tmp_path / "model_loads"
    record.touch()
    return record


@pytest.fixture
def two_cpu_cluster(model_loads: Path) -> Iterator[None]:
    """This process's own Ray cluster: 2 CPUs, so two single-threaded model actors."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR, _system_config=LOCAL_SYSTEM_CONFIG,
             runtime_env={"worker_process_setup_hook": _counting_loads(model_loads)})
    yield
    ray.shutdown()


def _counting_loads(record: Path) -> Callable[[], None]:
    """A worker start-up hook that logs every model load of the actors to ``record``.

    Defined inside a function so that Ray ships it by value: the workers need not
    import the tests.
    """

    def hook() -> None:
        import embedstore.ingest.ray_encoder as module

        real = module.load_encoder

        def load(*args: Any, **kwargs: Any) -> Any:
            with record.open("a") as out:
                out.write(f"{args[0]}\n")
            return real(*args, **kwargs)

        module.load_encoder = load

    return hook
