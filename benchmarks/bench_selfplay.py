"""Self-play benchmarks: complete games per second on one core, in the core's game loop
(uniform-random and greedy-heuristic games from the start, no stratification, no truncation).

Run: python -m pytest benchmarks/bench_selfplay.py --benchmark-enable
"""

from __future__ import annotations

from typing import Any

from fevga import Position
from fevga.rollout import RolloutResult, rollout

GAMES = {"random": 5_000, "heuristic": 2_000}
# Known answers of the timed jobs (seed 2026): (mean plies, White's wins).
KNOWN = {"random": (94.027, 2727), "heuristic": (99.16, 962)}


def _play(policy: str) -> RolloutResult:
    return rollout(Position.initial(), games=GAMES[policy], seed=2026, workers=1, policy=policy,
                   stratify=False, progress=False)


def _bench(benchmark: Any, policy: str) -> None:
    result = _play(policy)
    assert result.games == GAMES[policy] and result.draw == 0.0
    assert (round(result.mean_length, 4), round(result.win * result.games)) == KNOWN[policy]
    benchmark.pedantic(_play, args=(policy,), rounds=5, iterations=1, warmup_rounds=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["games_per_second"] = GAMES[policy] / stats.stats.median


def test_random_selfplay_games_per_second(benchmark: Any) -> None:
    _bench(benchmark, "random")


def test_heuristic_selfplay_games_per_second(benchmark: Any) -> None:
    _bench(benchmark, "heuristic")
