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


def variance() -> None:
    """Print the standard errors at equal games behind docs/rollout.md's "measured gains" table."""
    import math

    from fevga.bearoff import TwoSidedDB
    from fevga.rollout import rollout_moves

    def show(tag: str, r: RolloutResult) -> None:
        print(f"{tag:<44} games {r.games:6d} equity {r.equity:+.4f} se {r.equity_se:.5f} "
              f"plies {r.mean_length:5.1f} truncated {r.truncated_games}")

    for policy in ("heuristic", "random"):
        show(f"{policy}, stratified", rollout(START, games=8 * STRATA, seed=7, policy=policy, progress=False))
        show(f"{policy}, not stratified", rollout(START, games=8 * STRATA, seed=7, policy=policy, stratify=False,
                                                  progress=False))
        show(f"{policy}, stratified + truncate", rollout(START, games=8 * STRATA, seed=7, policy=policy,
                                                         truncate=True, progress=False))
    show("heuristic, luck", rollout(START, games=STRATA, seed=7, luck=True, policy="heuristic", progress=False))
    show("heuristic, no luck", rollout(START, games=STRATA, seed=7, policy="heuristic", progress=False))
    two3 = TwoSidedDB.build(checkers=3)
    race = Position.from_counts([12, 1, 0, 1, 0, 1] + [0] * 19, [12, 0, 1, 0, 1, 1] + [0] * 19)
    for luck in (False, True):
        show(f"3-checker race, bearoff policy, luck={luck}", rollout(race, games=STRATA, seed=5, workers=1,
             policy="bearoff", bearoff=two3, luck=luck, progress=False))
    ranked = rollout_moves(Position.from_id("fytUAAj8tbAACAAA"), "5-4", games=STRATA, seed=3, progress=False)
    best = ranked[0].result
    for m in ranked[1:4] + ranked[-1:]:
        print(f"move {m.move.notation:<16} diff {m.diff:+.4f} paired se {m.diff_se:.4f} "
              f"independent se {math.hypot(m.result.equity_se, best.equity_se):.4f}")


if __name__ == "__main__":
    import sys

    variance() if sys.argv[1:] == ["variance"] else main()
