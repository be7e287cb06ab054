"""Schemathesis `--checks all` against a live server finds nothing (bounded for CI).

The long run is bench/fuzz_api.py; its numbers are in bench/results/fuzz.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.fuzz import FUZZ_KEY, engine_crashed, fuzz_app, run_schemathesis
from tests.api.server import serving_in_thread

# Cases per operation: a smoke run of every check, bounded by its cases, never by time (on a
# loaded machine a time budget ended it after a case or two); bench/fuzz_api.py runs 5 min.
CI_EXAMPLES = 5


@pytest.mark.slow
@pytest.mark.parametrize("api_key", [None, FUZZ_KEY], ids=["open", "keyed"])
def test_schemathesis_checks_all_find_no_failure(tmp_path: Path, api_key: str | None) -> None:
    """With a key the schema declares a bearer scheme: ignored_auth then tests that every
    guarded operation refuses requests without it."""
    with serving_in_thread(fuzz_app(tmp_path, api_key)) as url:
        run = run_schemathesis(url, max_examples=CI_EXAMPLES, api_key=api_key)
    assert run.returncode == 0, run.output[-12000:]
    assert run.cases is not None and run.cases >= 24, run.output[-2000:]


_ENGINE_CRASH = """Runtime Error

tuple index out of range

    Traceback (most recent call last):
      File "/x/site-packages/schemathesis/engine/run/unit/_hypothesis_executor.py", line 51
        test_function(ctx=ctx, scenario=scenario, errors=errors, pending_events=pending_events)
      File "/x/site-packages/hypothesis/internal/conjecture/optimiser.py", line 124
        node = self.current_data.nodes[i]
    IndexError: tuple index out of range
"""

_SERVER_BUG = _ENGINE_CRASH.replace(
    "/x/site-packages/hypothesis/internal/conjecture/optimiser.py", "/x/embedstore/api/app.py")


def test_only_a_crash_inside_hypothesis_counts_as_the_engine_crashing() -> None:
    assert engine_crashed(_ENGINE_CRASH)
    assert not engine_crashed(_SERVER_BUG)
    assert not engine_crashed(_ENGINE_CRASH + "\nFailures:\n  ❌ Server error: 1\n")
    assert not engine_crashed("Test cases:\n  10 generated, 10 passed\n")
