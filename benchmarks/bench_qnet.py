"""The quantised evaluator against the float net on one core (docs/net.md "Quantised inference"),
from raw evaluations to a 3-ply hint and "net2" games.

Run: python -m pytest benchmarks/bench_qnet.py --benchmark-enable
Compare the float and quantised rows of one run (the host is shared: ratios, not absolutes);
benchmarks/callgrind.py gives the stable instruction counts of the same workloads.
Each benchmark first checks a known answer (the agreement bound, the corpus's legal moves).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from corpus import midgame_positions, position_roll_pairs

from fevga import Net, Position, batch, hint
from fevga.bearoff.core_tables import tables_of
from fevga.rollout import rollout
from fevga_core import search

NET_SHA = "3cb6235b62a5eb641c91c10eb8b9417865a347803a6a1bdb972d168e002adcd1"
CORPUS_MOVES = 439_038  # legal moves over the corpus x 21 rolls (bench_movegen's known answer)
BOUND = 0.01  # docs/net.md: |quantised - float| per output
# policy -> (self-play games per round, stratified from the start, seed 2026; their known answers)
SELFPLAY = {"net": (72, {"float": 0.16666666666666666, "quantised": 0.041666666666666664}),
            "net2": (12, {"float": 0.4444444444444444, "quantised": 0.3333333333333333})}


def _net() -> Net:
    net = Net.default()
    assert net.checksum == NET_SHA, "the shipped net changed: re-measure the known answers of bench_qnet.py"
    return net


def _per_second(benchmark: Any, key: str, units: int) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info[key] = units / stats.stats.median


@pytest.mark.parametrize("kind", ["float", "quantised"])
def test_raw_evaluations_per_second(benchmark: Any, kind: str) -> None:
    """Static evaluations of the corpus positions, each from scratch."""
    net = _net()
    quantised = net.quantised()._core
    rows = batch.to_array(midgame_positions())
    assert np.abs(quantised.evaluate_rows(rows) - net._core.evaluate_rows(rows)).max() < BOUND
    evaluate = net._core.evaluate_rows if kind == "float" else quantised.evaluate_rows
    benchmark.pedantic(evaluate, args=(rows,), rounds=20, iterations=1, warmup_rounds=2)
    _per_second(benchmark, "positions_per_second", len(rows))


@pytest.mark.parametrize("kind", ["float", "quantised"])
def test_move_results_per_second(benchmark: Any, kind: str) -> None:
    """The 1-ply "net" choice of every corpus position and roll: every legal move generated and
    its result evaluated (float: the opponent's half of the first layer once per roll;
    quantised: incrementally from the parent's accumulator)."""
    core = _net()._core if kind == "float" else _net().quantised()._core
    rows, dice = position_roll_pairs()
    out = np.zeros(len(rows), dtype=np.int32)
    tables = tables_of("default")
    run = (lambda: search.choose_rows(core, tables, rows, dice, 1, 0, out))
    assert run() == CORPUS_MOVES
    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    _per_second(benchmark, "results_per_second", CORPUS_MOVES)


@pytest.mark.parametrize("kind", ["float", "quantised"])
@pytest.mark.parametrize("policy", ["net", "net2"])
def test_selfplay_games_per_second(benchmark: Any, kind: str, policy: str) -> None:
    """Self-play games from the start (one worker), float or quantised net: of the "net" policy,
    and of the 2-ply "net2" (what a 2-ply rollout or a game against the strongest built-in
    player costs)."""
    net = _net() if kind == "float" else _net().quantised()
    count, equity = SELFPLAY[policy]

    def games() -> float:
        return rollout(Position.initial(), games=count, seed=2026, workers=1, policy=policy, net=net,
                       progress=False).equity

    assert games() == equity[kind]
    benchmark.pedantic(games, rounds=3, iterations=1, warmup_rounds=1 if policy == "net" else 0)
    _per_second(benchmark, "games_per_second", count)


@pytest.mark.parametrize("kind", ["float", "quantised"])
def test_three_ply_hint_latency(benchmark: Any, kind: str) -> None:
    """`hint` at 3 plies of a corpus position (15 moves of 4-2; Python call included): the
    deepest search a user waits for at the board."""
    net = _net() if kind == "float" else _net().quantised()
    position = midgame_positions()[10]
    hints = hint(position, (4, 2), plies=3, net=net)
    assert len(hints) == 15 and hints[0].plies == 3 and hints[0].move.notation == "24/20 9/7"
    benchmark.pedantic(hint, args=(position, (4, 2)), kwargs={"plies": 3, "net": net}, rounds=5, iterations=1,
                       warmup_rounds=1)
