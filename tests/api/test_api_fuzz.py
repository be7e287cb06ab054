"""Schemathesis `--checks all` against a live server finds nothing (bounded for CI).

The long run is bench/fuzz_api.py; its numbers are in bench/results/fuzz.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.fuzz import FUZZ_KEY, fuzz_app, run_schemathesis
from tests.api.server import serving_in_thread

# Cases per operation, and a time budget in seconds per run: under 2 minutes for both
# runs on the 2-core development machine.
CI_EXAMPLES = 25
CI_SECONDS = 40


@pytest.mark.slow
@pytest.mark.parametrize("api_key", [None, FUZZ_KEY], ids=["open", "keyed"])
def test_schemathesis_checks_all_find_no_failure(tmp_path: Path, api_key: str | None) -> None:
    """With a key the schema declares a bearer scheme: ignored_auth then tests that every
    guarded operation refuses requests without it."""
    with serving_in_thread(fuzz_app(tmp_path, api_key)) as url:
        run = run_schemathesis(url, max_examples=CI_EXAMPLES, max_time=CI_SECONDS,
                               api_key=api_key)
    assert run.returncode == 0, run.output[-12000:]
    assert run.cases is not None and run.cases > 250, run.output[-2000:]
