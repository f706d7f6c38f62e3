"""One home for each constant shared by the core and Python: the roll table
(fevga_core.board.ROLLS, ROLL_WEIGHTS), the sizes, rule flags and policy ids
(fevga_core.constants), which the Python package imports instead of copying.

Every loop of the core over the 21 rolls takes them in this one order; a floating-point sum
over the rolls depends on that order, so the tests below redo such sums in Python in the
table's order and demand bit-identical results (a module with its own order fails them).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import fevga.batch
import fevga.bearoff.tables
import fevga.policy
import fevga.position
import fevga.rules
from fevga import BLACK, WHITE, InvalidRulesError, Position, Rules, perft
from fevga_core import constants
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


def test_python_uses_the_core_constants() -> None:
    start = Position.initial()
    assert fevga.batch.POSITION_WIDTH == constants.POSITION_WIDTH == len(start._row())
    assert fevga.position.NUM_CHECKERS == fevga.bearoff.tables.TOTAL_CHECKERS == constants.NUM_CHECKERS
    assert constants.NUM_CHECKERS == sum(start.counts(WHITE)) == start.counts(BLACK)[constants.NUM_POINTS]
    assert len(start.counts(WHITE)) == constants.NUM_POINTS + 1 and len(ROLLS) == constants.NUM_ROLLS
    assert fevga.policy.POLICY_IDS == constants.POLICY_IDS and fevga.policy.CALLBACK_ID == constants.POLICY_CALLBACK
    assert set(constants.POLICY_IDS.values()) | {constants.POLICY_CALLBACK} == set(core_rollout.KNOWN_POLICIES)


def test_rule_flags_are_the_core_bits() -> None:
    bits = {
        "release": constants.FLAG_RELEASE_REACH,
        "start_quarter_check": constants.FLAG_QUARTER_END_OF_TURN,
        "ban_prime_before_opponent_mother": constants.FLAG_BAN_PRIME,
        "must_open": constants.FLAG_MUST_OPEN_NO_PLAYABLE,
        "first_roll": constants.FLAG_OPENING_DICE,
    }
    strict = Rules.strict()
    assert strict.flags == bits["release"] | bits["ban_prime_before_opponent_mother"] | bits["must_open"]
    assert Rules(first_roll="opening_dice", start_quarter_check="end_of_turn").flags == (
        bits["first_roll"] | bits["start_quarter_check"]
    )
    assert sum(bits.values()) == constants.FEVGA_FLAGS and fevga.rules.FLAG_GIOUL == constants.FLAG_GIOUL
    assert Rules(game="gioul").flags & constants.FLAG_GIOUL
    row = Position.initial()._row()
    assert core_rollout.expectimax_value(row, 0, constants.FEVGA_FLAGS, Tables(), 100.0) is not None
    with pytest.raises(InvalidRulesError, match=str(constants.FEVGA_FLAGS)):
        core_rollout.expectimax_value(row, 0, constants.FLAG_GIOUL, Tables(), 100.0)
