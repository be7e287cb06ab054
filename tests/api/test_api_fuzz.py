"""Schemathesis `--checks all` against a live server finds nothing (bounded for CI).

The long run is bench/fuzz_api.py; its numbers are in bench/results/fuzz.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.fuzz import fuzz_app, run_schemathesis
from tests.api.server import serving_in_thread

# Cases per operation, and a time budget in seconds: under 2 minutes in all on the
# 2-core development machine.
CI_EXAMPLES = 25
CI_SECONDS = 80


@pytest.mark.slow
def test_schemathesis_checks_all_find_no_failure(tmp_path: Path) -> None:
    with serving_in_thread(fuzz_app(tmp_path)) as url:
        run = run_schemathesis(url, max_examples=CI_EXAMPLES, max_time=CI_SECONDS)
    assert run.returncode == 0, run.output[-12000:]
    assert run.cases is not None and run.cases > 500, run.output[-2000:]
