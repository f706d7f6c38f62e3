"""Gioul benchmarks: move generation over a mid-game corpus, perft, random self-play.

Run: python -m pytest benchmarks/bench_gioul.py --benchmark-enable
Every benchmark asserts a known answer before it times anything.

The corpus: Gioul states waiting for a roll, the first such state at or after decisions
20, 30, ..., 60 of seeded uniform-random Gioul games (seeds 0, 1, ...). A (state, roll)
pair is the legal moves of the roll's first decision (a chain counts as one roll: its
first block is the decision the roll starts). The Fevga rate on the same boards is
measured alongside for the ratio.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from fevga import batch
from fevga.gioul import (
    GioulPosition,
    batch_legal_moves,
    count_legal_moves,
    gioul_perft,
    play_gioul_game,
    self_play,
    to_array,
    validate_states,
)
from fevga_core import gioul as core_gioul

CORPUS_SIZE = 1000
DECISIONS = (20, 30, 40, 50, 60)
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
PAIRS = CORPUS_SIZE * len(ROLLS)
SELFPLAY_GAMES = 10_000

# Known answers.
TOTAL_GIOUL_MOVES = 396_805   # corpus x 21 rolls, first decisions
TOTAL_FEVGA_MOVES = 396_088   # the same boards under Fevga's default rules
SELFPLAY_POINTS = (5005, 6666, 0)  # seed 2026: White's wins, marses (either side), draws


@cache
def gioul_corpus() -> tuple[GioulPosition, ...]:
    found: list[GioulPosition] = []
    seed = 0
    while len(found) < CORPUS_SIZE:
        states = play_gioul_game(seed=seed).positions()
        for start in DECISIONS:
            for state in states[start:]:
                if not state.pending and not state.is_game_over():
                    found.append(state)
                    break
        seed += 1
    return tuple(found[:CORPUS_SIZE])


@cache
def pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Gioul rows, Fevga rows, dice) of every corpus state x 21 rolls."""
    corpus = gioul_corpus()
    grows = np.repeat(to_array(corpus), len(ROLLS), axis=0)
    frows = np.repeat(batch.to_array([s.board() for s in corpus]), len(ROLLS), axis=0)
    dice = np.tile(np.array(ROLLS, dtype=np.uint8), (len(corpus), 1))
    return grows, frows, dice


def _rate(benchmark: Any, items: int, name: str) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info[name] = items / stats.stats.median


def test_gioul_movegen_pairs_per_second(benchmark: Any) -> None:
    grows, _, dice = pairs()
    out = np.zeros(len(grows), dtype=np.int32)
    core_gioul.count_moves(grows, dice, out)
    assert int(out.sum()) == TOTAL_GIOUL_MOVES
    corpus = gioul_corpus()
    assert int(count_legal_moves(corpus[:1] * 21, dice[:21]).sum()) == int(out[:21].sum())
    benchmark(core_gioul.count_moves, grows, dice, out)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_fevga_movegen_on_the_same_boards(benchmark: Any) -> None:
    _, frows, dice = pairs()
    assert int(batch.count_legal_moves(frows, dice).sum()) == TOTAL_FEVGA_MOVES
    out = np.zeros(len(frows), dtype=np.int32)
    from fevga_core import movegen

    benchmark(movegen.count_moves, frows, dice, 0, out)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_gioul_batch_legal_moves_pairs_per_second(benchmark: Any) -> None:
    """fevga.gioul.batch_legal_moves: validation, every move and its next state as arrays."""
    grows, _, dice = pairs()
    moves = batch_legal_moves(grows, dice)
    assert int(moves.counts().sum()) == TOTAL_GIOUL_MOVES
    first = gioul_corpus()[0]
    assert moves.positions(0) == [m.position for m in first.legal_moves(ROLLS[0])]
    benchmark(batch_legal_moves, grows, dice)
    _rate(benchmark, PAIRS, "pairs_per_second")
    _rate(benchmark, TOTAL_GIOUL_MOVES, "moves_per_second")


def test_gioul_validate_states_rows_per_second(benchmark: Any) -> None:
    grows, _, _ = pairs()
    assert validate_states(grows).shape == grows.shape
    benchmark(validate_states, grows)
    _rate(benchmark, len(grows), "rows_per_second")


def test_gioul_perft_3(benchmark: Any) -> None:
    start = GioulPosition.initial()
    assert gioul_perft(start, 3) == 480_752
    benchmark(gioul_perft, start, 3)
    _rate(benchmark, 480_752, "leaves_per_second")


def _selfplay() -> np.ndarray:
    return self_play(SELFPLAY_GAMES, seed=2026)


def test_gioul_random_selfplay_games_per_second(benchmark: Any) -> None:
    points = _selfplay()
    assert (int((points > 0).sum()), int((abs(points) == 2).sum()), int((points == 0).sum())) == SELFPLAY_POINTS
    benchmark.pedantic(_selfplay, rounds=5, iterations=1, warmup_rounds=1)
    _rate(benchmark, SELFPLAY_GAMES, "games_per_second")
