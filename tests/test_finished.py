"""Finished positions are evaluated exactly, for the winner and for the loser on roll, at every
ply count, in batch and by every evaluator (issue 19, "Silently wrong": White had won a mars and
was reported as losing)."""

from __future__ import annotations

import numpy as np
import pytest

import fevga
import fevga.batch
from fevga import BLACK, WHITE, Position
from fevga.analysis import MAX_PLIES
from fevga.search import static_value

OFF = [15] + [0] * 24
HOME = [0] * 24 + [15]  # all 15 on the mother: none borne off (a mars)
ONE_OFF = [1] + [0] * 23 + [14]  # one borne off: a single win

# (white counts, black counts, side on roll, that side's points)
CASES = [
    (OFF, HOME, WHITE, 2), (OFF, HOME, BLACK, -2), (HOME, OFF, BLACK, 2), (HOME, OFF, WHITE, -2),
    (OFF, ONE_OFF, WHITE, 1), (OFF, ONE_OFF, BLACK, -1), (ONE_OFF, OFF, BLACK, 1), (ONE_OFF, OFF, WHITE, -1),
]


def _expected(points: int) -> tuple[float, float, float]:
    return {2: (1.0, 1.0, 0.0), 1: (1.0, 0.0, 0.0), -1: (0.0, 0.0, 0.0), -2: (0.0, 0.0, 1.0)}[points]


@pytest.mark.parametrize("white, black, turn, points", CASES)
def test_finished_positions_at_every_ply(white: list[int], black: list[int], turn: int, points: int) -> None:
    position = Position.from_counts(white, black, turn)
    for plies in range(MAX_PLIES + 1):
        e = fevga.evaluate(position, plies)
        assert (e.win, e.win_mars, e.lose_mars) == _expected(points), (plies, e)
        assert e.equity == points
    assert fevga.evaluate(position, score=(0, 0), length=5).match_chance is not None
    assert static_value(position) == points
    assert static_value(position, "bearoff") == points


def test_the_issues_example() -> None:
    e = fevga.evaluate(Position.from_counts([15] + [0] * 24, [0] * 24 + [15], WHITE))
    assert e.equity == 2.0 and e.win == 1.0 and e.win_mars == 1.0


def test_finished_positions_in_batch() -> None:
    positions = [Position.from_counts(w, b, t) for w, b, t, _ in CASES]
    rows = fevga.batch.to_array(positions * 3)
    values = fevga.batch.evaluate(rows, workers=2)
    expected = np.array([_expected(points) for *_, points in CASES] * 3)
    np.testing.assert_array_equal(values, expected)


def test_batch_and_single_evaluations_agree_on_finished_and_live_positions() -> None:
    live = [fevga.game.play_game(seed=s, policy="random", max_plies=30).final for s in range(20)]
    positions = live + [Position.from_counts(w, b, t) for w, b, t, _ in CASES]
    values = fevga.batch.evaluate(fevga.batch.to_array(positions))
    for position, row in zip(positions, values):
        e = fevga.evaluate(position)
        assert tuple(row) == (e.win, e.win_mars, e.lose_mars)


def test_a_move_that_ends_the_game_is_valued_as_the_win() -> None:
    white = [14, 1] + [0] * 23  # one checker on point 1: any roll bears it off
    position = Position.from_counts(white, HOME, WHITE)
    best = fevga.hint(position, (6, 5))[0]
    assert best.equity == 2.0 and best.move.position.winner() == WHITE
    for plies in range(1, MAX_PLIES + 1):  # every roll wins a mars (the 21 roll weights sum to 1 in floats)
        assert fevga.evaluate(position, plies).equity == pytest.approx(2.0, abs=1e-12)
