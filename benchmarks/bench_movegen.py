"""Move-generation benchmarks over the shared corpus (benchmarks/corpus.py).

Run: python -m pytest benchmarks/bench_movegen.py --benchmark-enable
Each benchmark asserts the corpus's known answer before it times anything. Throughput
figures (pairs/s, calls/s) are stored in extra_info and printed by --benchmark-verbose.
"""

from __future__ import annotations

from typing import Any

import pytest

import numpy as np

from corpus import CORPUS_SIZE, midgame_positions, position_roll_pairs
from fevga import Position, Rules, batch, perft
from fevga_core import state as core_state

# Known answers: total distinct legal moves over every corpus position x 21 rolls.
TOTAL_MOVES = {"default": 439_038, "strict": 437_629}
PAIRS = CORPUS_SIZE * 21


def _rate(benchmark: Any, items: int, name: str) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info[name] = items / stats.stats.median


def test_batch_count_pairs_per_second(benchmark: Any) -> None:
    rows, dice = position_roll_pairs()
    assert int(batch.count_legal_moves(rows, dice).sum()) == TOTAL_MOVES["default"]
    benchmark(batch.count_legal_moves, rows, dice)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_core_count_pairs_per_second(benchmark: Any) -> None:
    """The kernel alone, without the boundary validation."""
    rows, dice = position_roll_pairs()
    out = np.zeros(len(rows), dtype=np.int32)
    core_state.count_moves(rows, dice, 0, out)
    assert int(out.sum()) == TOTAL_MOVES["default"]
    benchmark(core_state.count_moves, rows, dice, 0, out)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_batch_count_strict_rules(benchmark: Any) -> None:
    rows, dice = position_roll_pairs()
    strict = Rules.strict()
    assert int(batch.count_legal_moves(rows, dice, strict).sum()) == TOTAL_MOVES["strict"]
    benchmark(batch.count_legal_moves, rows, dice, strict)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_batch_generate_with_results(benchmark: Any) -> None:
    rows, dice = position_roll_pairs()
    assert int(batch.legal_moves(rows, dice).counts().sum()) == TOTAL_MOVES["default"]
    benchmark(batch.legal_moves, rows, dice)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_batch_count_two_threads(benchmark: Any) -> None:
    rows, dice = position_roll_pairs()
    assert int(batch.count_legal_moves(rows, dice, workers=2).sum()) == TOTAL_MOVES["default"]
    benchmark(batch.count_legal_moves, rows, dice, None, 2)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_single_legal_moves_call_from_python(benchmark: Any) -> None:
    position = midgame_positions()[0]
    moves = position.legal_moves((3, 1))
    assert len(moves) == position.count_legal_moves((3, 1)) > 1
    benchmark(position.legal_moves, (3, 1))
    _rate(benchmark, 1, "calls_per_second")


@pytest.mark.parametrize("method", ["legal_positions", "legal_ids"])
def test_single_results_call_from_python(benchmark: Any, method: str) -> None:
    """The cheap paths: the positions (or their IDs) the moves lead to, no Move values made."""
    position = midgame_positions()[0]
    call = getattr(position, method)
    expected = [m.position for m in position.legal_moves((3, 1))]
    assert call((3, 1)) == (expected if method == "legal_positions" else [p.id for p in expected])
    benchmark(call, (3, 1))
    _rate(benchmark, 1, "calls_per_second")


def test_single_count_call_from_python(benchmark: Any) -> None:
    position = midgame_positions()[0]
    assert position.count_legal_moves((3, 1)) == len(position.legal_moves((3, 1)))
    benchmark(position.count_legal_moves, (3, 1))
    _rate(benchmark, 1, "calls_per_second")


def test_perft_4(benchmark: Any) -> None:
    start = Position.initial()
    assert perft(start, 3) == 21_893
    result = benchmark(perft, start, 4)
    assert result == 877_257
    _rate(benchmark, 877_257, "leaves_per_second")
