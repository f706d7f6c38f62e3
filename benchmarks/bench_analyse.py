"""Analysis benchmark: a 100-game session of net self-play analysed by the shipped net at 1 ply
(target: under 10 s on one core) and, in the script, at 2 plies (target: under 2 minutes).

Run: python -m pytest benchmarks/bench_analyse.py --benchmark-enable, or python benchmarks/bench_analyse.py
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

from fevga.analyser import analyse
from fevga.game import play_game
from fevga.records import MatchRecord

GAMES = 100
KNOWN_PLIES = 9_126  # plies of the session below (seeds 0..99, net self-play, the shipped net)


@cache
def session() -> MatchRecord:
    """100 seeded net self-play games as one session record."""
    games = tuple(play_game(seed=seed, policy="net") for seed in range(GAMES))
    score = [0, 0]
    for game in games:
        if game.winner is not None:
            score[game.winner] += game.points
    return MatchRecord(length=0, games=games, score=(score[0], score[1]))


def test_analyse_100_games_one_ply(benchmark: Any) -> None:
    record = session()
    assert sum(len(g.plies) for g in record.games) == KNOWN_PLIES
    report = benchmark.pedantic(analyse, args=(record,), kwargs={"plies": 1}, rounds=1, iterations=1)
    assert sum(p.decisions + p.forced for p in report.players) == KNOWN_PLIES


if __name__ == "__main__":
    record = session()
    for plies in (1, 2):
        began = time.perf_counter()
        report = analyse(record, plies=plies)
        print(f"{GAMES} games, {KNOWN_PLIES} plies at {plies} ply: {time.perf_counter() - began:.1f} s "
              f"({len(report.flagged())} flagged)")
