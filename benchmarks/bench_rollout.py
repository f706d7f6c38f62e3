"""Rollout throughput: games per second per policy, worker scaling, Dask overhead.

Run with ``pytest benchmarks/bench_rollout.py --benchmark-only`` (pytest-benchmark), or as a
script, ``python benchmarks/bench_rollout.py``, for a table of medians (the figures quoted
in docs/rollout.md). Every benchmark first checks a known answer: the job's result is
bit-identical to a one-worker reference run and stratified exactly (each ordered pair of
first rolls equally often), so a fast but wrong kernel cannot pass.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fevga.position import Position
from fevga.rollout import STRATA, RolloutResult, rollout

START = Position.initial()
SEED = 20261129


def run(policy: str, games: int, workers: int, **options: Any) -> RolloutResult:
    """One rollout of the start position without a progress bar."""
    return rollout(START, games=games, seed=SEED, workers=workers, policy=policy, progress=False, **options)


def check_known_answer(result: RolloutResult, reference: RolloutResult) -> None:
    """The job's result equals the reference run and is exactly stratified."""
    assert result == reference, "result depends on the workers or backend"
    assert result.games % 36 == 0 and not result.interrupted
    for roll, games, _ in result.first_rolls:
        per_pair = result.games // 36
        assert games == (per_pair if roll[0] == roll[2] else 2 * per_pair), roll


def games_per_second(fn: Callable[[], RolloutResult], rounds: int) -> tuple[float, float]:
    """Median games per wall-clock second and per CPU second of this process, over `rounds` calls.

    On a machine shared with other jobs the wall-clock figure of N workers can only show the
    cores actually free; games per CPU second shows whether the workers themselves lose time.
    """
    rates, cpu_rates = [], []
    for _ in range(rounds):
        started, cpu = time.perf_counter(), time.process_time()
        result = fn()
        rates.append(result.games / (time.perf_counter() - started))
        cpu_rates.append(result.games / max(time.process_time() - cpu, 1e-9))
    return statistics.median(rates), statistics.median(cpu_rates)


def sized(benchmark: Any, games: int) -> int:
    """The game count to run: an eighth when timing is off (a plain test run checks the answers)."""
    return max(STRATA, games // 8) if benchmark.disabled else games


def record_rate(benchmark: Any, games: int) -> None:
    """Store the median games/s in the benchmark's extra info (absent with --benchmark-disable)."""
    if benchmark.stats is not None:
        benchmark.extra_info["games_per_second"] = games / benchmark.stats.stats.median


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with distributed.Client(c) as client:
            run("random", STRATA, 2, backend="dask", scheduler=client)  # warm the workers (imports, tables)
            yield client


@pytest.mark.parametrize(("policy", "games"), [("random", 16 * STRATA), ("heuristic", 4 * STRATA)])
def test_one_worker(benchmark: Any, policy: str, games: int) -> None:
    games = sized(benchmark, games)
    reference = run(policy, games, 1)
    check_known_answer(run(policy, games, 1), reference)
    result = benchmark.pedantic(run, args=(policy, games, 1), rounds=3, iterations=1)
    check_known_answer(result, reference)
    record_rate(benchmark, games)


@pytest.mark.parametrize(("policy", "games"), [("random", 32 * STRATA), ("heuristic", 8 * STRATA)])
def test_two_workers(benchmark: Any, policy: str, games: int) -> None:
    games = sized(benchmark, games)
    reference = run(policy, games, 1)
    result = benchmark.pedantic(run, args=(policy, games, 2), rounds=3, iterations=1)
    check_known_answer(result, reference)
    record_rate(benchmark, games)


def test_dask_at_100k_games(benchmark: Any, cluster: Any) -> None:
    games = sized(benchmark, 100_000)
    reference = run("random", games, 2)
    result = benchmark.pedantic(run, args=("random", games, 2), kwargs={"backend": "dask", "scheduler": cluster},
                                rounds=3, iterations=1)
    check_known_answer(result, reference)
    record_rate(benchmark, result.games)


def main() -> None:
    """Print the medians quoted in docs/rollout.md."""
    import distributed

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for policy, games in (("random", 16 * STRATA), ("heuristic", 4 * STRATA)):
        reference = run(policy, games, 1)
        check_known_answer(run(policy, 2 * games, 2), run(policy, 2 * games, 1))
        one, one_cpu = games_per_second(lambda: run(policy, games, 1), 5)
        two, two_cpu = games_per_second(lambda: run(policy, 2 * games, 2), 5)
        check_known_answer(run(policy, games, 1), reference)
        rows.append(f"{policy:<10} 1 worker {one:>9,.0f} games/s ({one_cpu:,.0f}/CPU s)   "
                    f"2 workers {two:>9,.0f} games/s ({two_cpu:,.0f}/CPU s)   x{two / one:.2f}")
    games = 100_000
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with distributed.Client(c) as client:
            run("random", STRATA, 2, backend="dask", scheduler=client)
            local = games_per_second(lambda: run("random", games, 2), 3)[0]
            dask = games_per_second(lambda: run("random", games, 2, backend="dask", scheduler=client), 3)[0]
            assert run("random", games, 2, backend="dask", scheduler=client) == run("random", games, 2)
    rows.append(f"100,000 random games: local {local:,.0f} games/s, Dask {dask:,.0f} games/s, "
                f"overhead {100 * (local / dask - 1):+.1f}%")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
