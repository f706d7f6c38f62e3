"""Match equity table benchmark: the exact table for a 25-point match (target: under a second).

Run: python -m pytest benchmarks/bench_match.py --benchmark-enable
"""

from __future__ import annotations

from typing import Any

import pytest

from fevga.match import GameOdds, match_equity_table

ODDS = GameOdds(0.4, 0.15, 0.35, 0.1, 0.0)


def test_match_equity_table_25(benchmark: Any) -> None:
    table = match_equity_table(25, ODDS)
    # Known answers first: hand-computed corners and the symmetric start.
    assert table.starter(1, 1) == pytest.approx(0.55) and table.starter(2, 1) == pytest.approx(0.37)
    assert table.draw(25, 25) == pytest.approx(0.5)
    benchmark.pedantic(match_equity_table, args=(25, ODDS), rounds=20, iterations=1, warmup_rounds=1)
