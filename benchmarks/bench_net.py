"""Neural-evaluator benchmarks on one core: raw evaluations, evaluations during move choice,
self-play with the "net" policy, and `hint` latency (docs/net.md "Speed").

Run: python -m pytest benchmarks/bench_net.py --benchmark-enable
Each benchmark first checks a known answer for the shipped net (its checksum pins it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from corpus import ROLLS, midgame_positions, position_roll_pairs

from fevga import Net, Position, batch, hint
from fevga.bearoff.core_tables import tables_of
from fevga.rollout import RolloutResult, rollout
from fevga.rules import Rules
from fevga_core import search

NET_SHA = "3cb6235b62a5eb641c91c10eb8b9417865a347803a6a1bdb972d168e002adcd1"  # the shipped net these known answers belong to
CORPUS_MOVES = 439_038  # legal moves over the corpus x 21 rolls (bench_movegen's known answer)
SELFPLAY_GAMES = 500


def _net() -> Net:
    net = Net.default()
    assert net.checksum == NET_SHA, "the shipped net changed: re-measure the known answers of bench_net.py"
    return net


def test_net_evaluations_per_second(benchmark: Any) -> None:
    """Static evaluations of the corpus positions (the raw net, no table lookups)."""
    core = _net()._core
    rows = batch.to_array(midgame_positions())
    out = core.evaluate_rows(rows)
    assert out.shape == (len(rows), 3) and np.all((out[:, 1] <= out[:, 0]) & (out[:, 2] <= 1 - out[:, 0]))
    benchmark.pedantic(core.evaluate_rows, args=(rows,), rounds=20, iterations=1, warmup_rounds=2)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["positions_per_second"] = len(rows) / stats.stats.median


def test_move_choice_evaluations_per_second(benchmark: Any) -> None:
    """The "net" policy's choice for every corpus position and roll: every legal move's result
    is evaluated (the opponent's half of the first layer computed once per roll)."""
    core = _net()._core
    tables = tables_of("default")
    rows, dice = position_roll_pairs()
    out = np.empty(len(rows), dtype=np.int32)
    flags = Rules().flags
    assert search.choose_rows(core, tables, rows, dice, 1, flags, out) == CORPUS_MOVES
    position, roll = midgame_positions()[3], ROLLS[7]
    assert position.legal_moves(roll)[out[3 * 21 + 7]].position == hint(position, roll)[0].move.position
    benchmark.pedantic(search.choose_rows, args=(core, tables, rows, dice, 1, flags, out), rounds=5, iterations=1,
                       warmup_rounds=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["evaluations_per_second"] = CORPUS_MOVES / stats.stats.median


def _selfplay() -> RolloutResult:
    return rollout(Position.initial(), games=SELFPLAY_GAMES, seed=2026, workers=1, policy="net", stratify=False,
                   progress=False)


def test_net_selfplay_games_per_second(benchmark: Any) -> None:
    _net()
    result = _selfplay()
    assert result.games == SELFPLAY_GAMES and result.draw == 0.0
    assert result == _selfplay()  # the same seed plays the same games
    benchmark.pedantic(_selfplay, rounds=3, iterations=1, warmup_rounds=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["games_per_second"] = SELFPLAY_GAMES / stats.stats.median


def test_hint_one_ply_latency(benchmark: Any) -> None:
    _net()
    position = midgame_positions()[10]
    hints = hint(position, (4, 2))
    assert len(hints) == position.count_legal_moves((4, 2)) and hints[0].loss == 0.0
    benchmark.pedantic(hint, args=(position, (4, 2)), rounds=200, iterations=1, warmup_rounds=5)


def test_hint_two_ply_latency(benchmark: Any) -> None:
    _net()
    position = midgame_positions()[10]
    assert hint(position, (4, 2), plies=2)[0].plies == 2
    benchmark.pedantic(hint, args=(position, (4, 2)), kwargs={"plies": 2}, rounds=10, iterations=1, warmup_rounds=1)


def test_batch_hint_pairs_per_second(benchmark: Any) -> None:
    """fevga.batch.hint at 1 ply over the corpus, one roll a position (1,000 pairs, one thread):
    compare its median with 1,000 times test_hint_one_ply_latency's."""
    _net()
    positions = midgame_positions()
    rows = batch.to_array(positions)
    dice = np.array([ROLLS[k % len(ROLLS)] for k in range(len(positions))], dtype=np.uint8)
    hints = batch.hint(rows, dice)
    first = hint(positions[0], tuple(dice[0]))
    assert hints.counts()[0] == len(first) and hints.equities[0] == first[0].equity
    benchmark.pedantic(batch.hint, args=(rows, dice), rounds=20, iterations=1, warmup_rounds=1)
