"""Self-play benchmarks: complete games per second on one core, in the core's game loop.

Run: python -m pytest benchmarks/bench_selfplay.py --benchmark-enable
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fevga import Position
from fevga.game import POLICY_IDS
from fevga_core import game as core_game

GAMES = 5_000
START = Position.initial()._row()


def _play(policy: str, games: int = GAMES, master: int = 2026) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    winners = np.zeros(games, dtype=np.int8)
    points = np.zeros(games, dtype=np.int8)
    plies = np.zeros(games, dtype=np.int32)
    pid = POLICY_IDS[policy]
    core_game.play_many(START, games, master, 0, pid, pid, 0, True, 0, winners, points, plies)
    return winners, points, plies


def _check(policy: str) -> None:
    """Known answer for the first 200 games of the job, then sanity of the full run."""
    winners, points, plies = _play(policy, 200)
    assert set(np.unique(winners)) <= {0, 1} and set(np.unique(points)) <= {1, 2}
    assert (int(plies.sum()), int((winners == 0).sum())) == KNOWN[policy]


KNOWN = {"random": (18_812, 100), "heuristic": (19_903, 97)}


def test_random_selfplay_games_per_second(benchmark: Any) -> None:
    _check("random")
    benchmark.pedantic(_play, args=("random",), rounds=5, iterations=1, warmup_rounds=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["games_per_second"] = GAMES / stats.stats.median


def test_heuristic_selfplay_games_per_second(benchmark: Any) -> None:
    _check("heuristic")
    benchmark.pedantic(_play, args=("heuristic", 2_000), rounds=5, iterations=1, warmup_rounds=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["games_per_second"] = 2_000 / stats.stats.median
