"""Bear-off benchmarks: builds and batch lookups, each asserting a known answer before timing.

Run: python -m pytest benchmarks/bench_bearoff.py --benchmark-enable
(the N = 10 two-sided builds are marked slow: add -m "not slow" to leave them out).
Run as smoke tests (timers disabled, as in CI) the big builds check their known answers at
smaller sizes: one-sided 15x7 for 15x9, two-sided N = 7 for N = 10.
Targets: one-sided 15x6 build <= 1 s, two-sided 6x6 <= 3 s (Fevga and Gioul alike), batch
lookups >= 10 million/s.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fevga.bearoff import OneSidedDB, TwoSidedDB

SIX = (0, 0, 0, 0, 0, 1)
LOOKUPS = 2_000_000


def _median(benchmark: Any) -> float | None:
    stats = getattr(benchmark, "stats", None)
    return None if stats is None else float(stats.stats.median)


def test_one_sided_build_15x6(benchmark: Any) -> None:
    db = OneSidedDB.build(6, 15)
    assert db.mean_rolls((15,)) == pytest.approx(float(Fraction(1953839, 279936)), rel=1e-14)
    built = benchmark.pedantic(OneSidedDB.build, args=(6, 15), rounds=7, iterations=1, warmup_rounds=1)
    assert built.mean_rolls(SIX) == 1.25
    median = _median(benchmark)
    if median is not None:
        benchmark.extra_info["entries"] = len(db)
        assert median <= 1.0


def _big(benchmark: Any, full: int, smoke: int) -> int:
    """The size of a big build: `full` when timed, `smoke` when the timers are disabled."""
    return smoke if benchmark.disabled else full


def test_one_sided_build_15x9(benchmark: Any) -> None:
    points = _big(benchmark, 9, 7)
    db = benchmark.pedantic(OneSidedDB.build, args=(points, 15), rounds=1, iterations=1)
    assert db.mean_rolls(SIX) == 1.25
    assert len(db) == math.comb(points + 15, 15)  # 1,307,504 at 9 points
    benchmark.extra_info["pool_values"] = int(db._a["dist_pool"].size)


def test_gioul_one_sided_build_15x6(benchmark: Any) -> None:
    """Gioul: every double a chain (the same builder, game="gioul")."""
    built = benchmark.pedantic(OneSidedDB.build, args=(6, 15), kwargs={"game": "gioul"}, rounds=7, iterations=1,
                               warmup_rounds=1)
    assert built.mean_rolls(SIX) == pytest.approx(11 / 9, abs=1e-15)  # misses only 1-2, 1-3, 1-4, 2-3
    assert built.distribution((0, 0, 0, 0, 0, 4))[1] == pytest.approx(6 / 36, abs=1e-15)  # any chain clears 4
    median = _median(benchmark)
    if median is not None:
        benchmark.extra_info["pool_values"] = int(built._a["dist_pool"].size)
        assert median <= 1.0


def test_gioul_one_sided_build_15x9(benchmark: Any) -> None:
    db = benchmark.pedantic(OneSidedDB.build, args=(_big(benchmark, 9, 7), 15), kwargs={"game": "gioul"}, rounds=1,
                            iterations=1)
    assert db.mean_rolls(SIX) == pytest.approx(11 / 9, abs=1e-15)
    benchmark.extra_info["pool_values"] = int(db._a["dist_pool"].size)


def test_gioul_two_sided_build_6(benchmark: Any) -> None:
    built = benchmark.pedantic(TwoSidedDB.build, args=(6,), kwargs={"game": "gioul"}, rounds=5, iterations=1,
                               warmup_rounds=1)
    assert built.win_probability(SIX, SIX) == pytest.approx(67 / 81, abs=1e-15)
    median = _median(benchmark)
    if median is not None:
        assert median <= 3.0


def test_two_sided_build_6(benchmark: Any) -> None:
    ts = TwoSidedDB.build(6)
    assert ts.win_probability(SIX, SIX) == pytest.approx(0.8125, abs=1e-15)
    built = benchmark.pedantic(TwoSidedDB.build, args=(6,), rounds=5, iterations=1, warmup_rounds=1)
    assert built.equity(SIX, SIX) == pytest.approx(0.625, abs=1e-15)
    median = _median(benchmark)
    if median is not None:
        assert median <= 3.0


@pytest.fixture(scope="module")
def lookup_data() -> tuple[OneSidedDB, TwoSidedDB, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2026)
    a = rng.multinomial(6, [1 / 7] * 7, size=LOOKUPS)[:, :6].astype(np.uint8)
    b = rng.multinomial(6, [1 / 7] * 7, size=LOOKUPS)[:, :6].astype(np.uint8)
    a[0], b[0] = SIX, SIX
    return OneSidedDB.build(6, 15), TwoSidedDB.build(6), a, b


def test_one_sided_batch_lookups(benchmark: Any, lookup_data: Any) -> None:
    db, _, a, _ = lookup_data
    means = db.mean_rolls_batch(a)
    assert means[0] == 1.25
    benchmark.pedantic(db.mean_rolls_batch, args=(a,), rounds=10, iterations=1, warmup_rounds=1)
    median = _median(benchmark)
    if median is not None:
        rate = LOOKUPS / median
        benchmark.extra_info["lookups_per_second"] = rate
        assert rate >= 10e6


def test_two_sided_batch_lookups(benchmark: Any, lookup_data: Any) -> None:
    _, ts, a, b = lookup_data
    equities = ts.equity_batch(a, b)
    assert equities[0] == pytest.approx(0.625, abs=1e-15)
    benchmark.pedantic(ts.equity_batch, args=(a, b), rounds=10, iterations=1, warmup_rounds=1)
    median = _median(benchmark)
    if median is not None:
        rate = LOOKUPS / median
        benchmark.extra_info["lookups_per_second"] = rate
        assert rate >= 10e6


_N10 = r"""
import json, resource, sys, time
from fevga.bearoff import OneSidedDB, TwoSidedDB, estimate_error
game = sys.argv[2]
start = time.perf_counter()
ts = TwoSidedDB.build(int(sys.argv[3]), game=game)
seconds = time.perf_counter() - start
expected = 0.8125 if game == "fevga" else 67 / 81
assert abs(ts.win_probability((0,0,0,0,0,1), (0,0,0,0,0,1)) - expected) < 1e-15
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
path64 = ts.save(sys.argv[1] + "/ts10-f64.fbo")
path32 = ts.save(sys.argv[1] + "/ts10-f32.fbo", dtype="float32")
error = estimate_error(OneSidedDB.build(6, 15, game=game), ts)
print(json.dumps({"seconds": seconds, "peak_rss_bytes": peak, "disk_float64": path64.stat().st_size,
                  "disk_float32": path32.stat().st_size, **error}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_two_sided_build_10(benchmark: Any, tmp_path: Path, game: str) -> None:
    """N = 10 (64 million pairs) in a fresh process, so its peak memory is its own."""
    size = _big(benchmark, 10, 7)

    def run() -> dict[str, float]:
        out = subprocess.run([sys.executable, "-c", _N10, str(tmp_path), game, str(size)], check=True,
                             capture_output=True, text=True)
        figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        return figures

    figures = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(figures)
    print(f"{game} two-sided N={size}:", figures)
    assert figures["max_abs_error"] < 0.05
