"""pytest-benchmark setup for the meeple benchmarks (run: `pytest bench`, or `python bench/report.py`).

These tests live outside `testpaths = ["tests"]`, so the normal test suite never collects them; they
also carry the `bench` marker (`-m "not bench"` deselects them anywhere).

Every benchmark records in `benchmark.extra_info`:
  key, label        what is measured (the keys `meeple.bench.render` understands)
  plies             plies played in ONE round (every round plays the same seeded games), so
                    plies / stats[median] is plies per second
  games             games per round; plies_per_game
  state_size_bytes  sizeof of the C++ state (meeple games only)

Knobs (environment): MEEPLE_BENCH_TARGET seconds per round (default 0.1), MEEPLE_BENCH_ROUNDS
(default 10).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

try:
    import meeple  # noqa: F401
except ImportError:  # running from a checkout without PYTHONPATH=python
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

try:
    import pytest_benchmark  # noqa: F401
except ImportError:  # nothing here can run without it
    collect_ignore_glob = ["test_*.py"]

from meeple import bench as mbench  # noqa: E402

TARGET_SECONDS = float(os.environ.get("MEEPLE_BENCH_TARGET", "0.1"))
ROUNDS = int(os.environ.get("MEEPLE_BENCH_ROUNDS", "10"))


def pytest_configure(config):
    config.addinivalue_line("markers", "bench: performance benchmark (bench/, never in the test suite)")


def pytest_benchmark_update_machine_info(config, machine_info):
    machine_info["meeple"] = mbench.machine_info()


@pytest.fixture
def bench_settings():
    """(seconds per round, rounds), as MEEPLE_BENCH_TARGET and MEEPLE_BENCH_ROUNDS set them."""
    return TARGET_SECONDS, ROUNDS


@pytest.fixture
def measure_plies(benchmark):
    """measure_plies(key, label, work, **extra): times `work(n) -> plies` with n calibrated to
    ~MEEPLE_BENCH_TARGET s per round, ROUNDS rounds after one warm-up round."""

    def run(key, label, work, **extra):
        n = mbench.calibrate(work, TARGET_SECONDS)
        plies = benchmark.pedantic(work, args=(n,), rounds=ROUNDS, warmup_rounds=1, iterations=1)
        assert work(n) == plies, "a round must be deterministic so that plies/round is exact"
        benchmark.extra_info.update(key=key, label=label, plies=plies, games=n,
                                    plies_per_game=plies / n, **extra)
        return plies

    return run
