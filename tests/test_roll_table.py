"""The core's one roll table (fevga_core.board.ROLLS, ROLL_WEIGHTS) and its users.

Every loop of the core over the 21 rolls takes them in this one order; a floating-point sum
over the rolls depends on that order, so the tests below redo such sums in Python in the
table's order and demand bit-identical results (a module with its own order fails them).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fevga import BLACK, WHITE, Position, perft
from fevga.bearoff import OneSidedDB, TwoSidedDB
from fevga_core import bearoff as core_bearoff
from fevga_core import rollout as core_rollout
from fevga_core.board import ROLL_WEIGHTS, ROLLS
from fevga_core.race import Tables

WHITE_SIDE = [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 4, 1, 1, 1, 0, 1]
BLACK_SIDE = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 2, 2, 1, 3]
MIDGAMES = [Position.from_counts(WHITE_SIDE, BLACK_SIDE, turn) for turn in (WHITE, BLACK)]


def test_the_table_is_the_21_rolls_in_lexicographic_order() -> None:
    expected = [(a, b) for a in range(1, 7) for b in range(1, 7) if a <= b]
    assert list(ROLLS) == expected
    for (a, b), weight in zip(ROLLS, ROLL_WEIGHTS, strict=True):
        ordered = sum(1 for x in range(1, 7) for y in range(1, 7) if sorted((x, y)) == [a, b])
        assert weight == float(Fraction(ordered, 36))
    assert sum(Fraction(w).limit_denominator(36) for w in ROLL_WEIGHTS) == 1


@pytest.mark.parametrize("position", MIDGAMES, ids=["white", "black"])
def test_expectimax_sums_the_rolls_in_table_order(position: Position) -> None:
    tables = Tables()
    scale = 100.0

    def leaf(after: Position) -> float:  # value for the side that just moved
        return -float(core_rollout.value(after._row(), after.turn, tables, scale))

    total = 0.0
    for dice, weight in zip(ROLLS, ROLL_WEIGHTS, strict=True):
        total += weight * max(leaf(m.position) for m in position.legal_moves(dice))
    assert core_rollout.expectimax_value(position._row(), 1, 0, tables, scale) == total


def test_one_sided_means_sum_the_rolls_in_table_order() -> None:
    db = OneSidedDB.build(points=6, checkers=5)
    for rank in range(1, core_bearoff.count(6, 5), 7):
        side = core_bearoff.unrank(rank, 6)
        total = 0.0
        for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS, strict=True):
            after = [core_bearoff.unrank(r, 6) for r in core_bearoff.successors(side, d1, d2)]
            total += round(weight * 36) * min(db.mean_rolls(s) if any(s) else 0.0 for s in after)
        assert db.mean_rolls(side) == 1.0 + total / 36.0, side


def test_two_sided_equities_sum_the_rolls_in_table_order() -> None:
    ts = TwoSidedDB.build(checkers=3, points=6)
    equity = ts.equity_matrix()
    n = equity.shape[0]
    for p in range(1, n, 3):
        side = core_bearoff.unrank(p, 6)
        for m in range(1, n, 5):
            total = 0.0
            for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS, strict=True):
                total += round(weight * 36) * min(equity[m, s] for s in core_bearoff.successors(side, d1, d2))
            assert equity[p, m] == -total / 36.0, (p, m)


def test_perft_one_is_the_sum_over_the_table() -> None:
    for position in (Position.initial(), *MIDGAMES):
        assert perft(position, 1) == sum(len(position.legal_moves(dice)) for dice in ROLLS)
