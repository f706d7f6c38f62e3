"""Gioul state rows in the batch API (fevga.batch.legal_moves and count_legal_moves given Gioul
rows, fevga.gioul.validate_states): what only Gioul's rows hold, pending dice handed over, and
hostile roll counts and pending dice. What the rows of both games share (layout, agreement with
the one-state API, threads, shapes and dice, batch.evaluate) runs for both in test_batch.py."""

from __future__ import annotations

import numpy as np
import pytest

import fevga
from fevga import BLACK, WHITE, GioulPosition, Rules
from fevga.errors import InvalidArgumentError, InvalidPositionError, InvalidRulesError
from fevga.batch import count_legal_moves
from fevga.batch import legal_moves as batch_legal_moves
from fevga.gioul import from_array, to_array, validate_states
from fevga.game import play_game

START = [0] * 24 + [15]


@pytest.fixture(scope="module")
def corpus() -> list[GioulPosition]:
    """Every state of seeded games: fresh rolls, chain blocks, hand-overs, finished games."""
    states = [s for seed in range(12) for s in play_game(game="gioul", seed=seed, policy=("heuristic", "random")).positions()]
    assert any(s.pending and s.roller != s.turn for s in states)  # dice handed over
    assert any(len(s.pending) > 4 for s in states)  # inside a chain
    return states


def test_every_roll_of_a_state() -> None:
    state = GioulPosition.from_id("f_4AIAD__AABAAAA4ABH")  # White's roll 4 (docs/rules.md 11.6.6)
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)])
    moves = batch_legal_moves(to_array([state] * 21), rolls)
    for i, (a, b) in enumerate(rolls):
        assert moves.positions(i) == [m.position for m in state.legal_moves((int(a), int(b)))]
    five = moves.positions(int(np.flatnonzero((rolls == [5, 5]).all(axis=1))[0]))
    assert [s.pending for s in five] == [(5, 5, 6, 6, 6, 6)] and five[0].turn == BLACK  # handed over


def _row(**fields: int) -> np.ndarray:
    """The start row with some columns changed (names as in to_array's layout)."""
    row = to_array([GioulPosition.initial()])[0].copy()
    names = {"turn": 50, "rolls_white": 51, "rolls_black": 52, "roller": 53, "die": 54, "count": 55, "last": 56,
             "pair": 57}
    for name, value in fields.items():
        row[names[name]] = value
    return row


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (_row(rolls_white=4), "roll count"),
        (_row(roller=1), "no pending dice"),
        (_row(die=3), "no pending dice"),
        (_row(rolls_white=1, die=5, count=5, last=5), "not the rest of a roll"),
        (_row(rolls_white=1, die=0, count=1, last=0), "not the rest of a roll"),
        (_row(rolls_white=1, die=3, count=2, last=5), "not the rest of a roll"),
        (_row(rolls_white=1, die=4, count=2, last=4, pair=5), "not the rest of a roll"),
        (_row(rolls_white=1, die=4, count=1, last=4, pair=4), "not the rest of a roll"),
        (_row(rolls_white=1, roller=2, die=4, count=2, last=4), "roller"),
        (_row(die=4, count=2, last=4), "made no roll"),
        (_row(rolls_white=2, die=3, count=4, last=6), "fourth roll"),
        (_row(rolls_white=1, die=6, count=4, last=6, turn=2), "turn"),
    ],
)
def test_hostile_rows_are_refused(row: np.ndarray, message: str) -> None:
    rows = np.stack([to_array([GioulPosition.initial()])[0], row])
    for call in (
        lambda: validate_states(rows),
        lambda: count_legal_moves(rows, [[6, 5], [6, 5]]),
        lambda: batch_legal_moves(rows, [[6, 5], [6, 5]]),
        lambda: from_array(rows),
    ):
        with pytest.raises(InvalidPositionError, match=f"row 1 .*{message}|{message}.*row 1|row 1"):
            call()
    with pytest.raises(InvalidPositionError, match=message):
        validate_states(rows)


def test_board_and_game_state_problems() -> None:
    finished = GioulPosition.from_counts([15] + [0] * 24, START)
    row = to_array([finished])[0]
    row[51:58] = [3, 3, 0, 6, 4, 6, 0]  # pending dice in a finished game
    with pytest.raises(InvalidPositionError, match="finished game"):
        validate_states(row[None])
    black = [0] * 25
    black[7] = 3
    for point in range(1, 7):
        black[point] = 2  # Black's 1-6 are White's 13-18: a prime in front of White's 24
    trapped = GioulPosition.from_counts(START, black, WHITE, next_roll=(2, 2))
    assert [m.is_pass for m in trapped.legal_moves((6, 6))] == [True]  # White cannot start a 6
    assert not trapped.legal_moves((1, 1))[0].is_pass
    row = to_array([trapped])[0]
    row[51:58] = [1, 1, 0, 6, 4, 6, 0]  # White holds four 6s it cannot start
    with pytest.raises(InvalidPositionError, match="cannot play any of the pending dice"):
        validate_states(row[None])
    row[51:58] = [1, 1, 0, 6, 1, 6, 1]  # the pair 6-1: the 1 can be played
    assert from_array(row[None])[0].decision_dice == (6, 1)
    bad_board = to_array([GioulPosition.initial()])
    bad_board[0, 3] = 1  # 16 White checkers
    with pytest.raises(InvalidPositionError, match="row 0"):
        validate_states(bad_board)


def test_validator_matches_the_constructor(corpus: list[GioulPosition]) -> None:
    """Random changes to the state fields of real rows: every row the validator accepts is
    the state GioulPosition.from_counts builds from the same fields, and no row it refuses
    is one from_counts accepts in that encoding."""
    rng = np.random.default_rng(7)
    rows = to_array(corpus)
    accepted = refused = 0
    for _ in range(3000):
        row = rows[rng.integers(len(rows))].copy()
        for column in rng.choice(np.arange(51, 58), size=rng.integers(1, 3), replace=False):
            row[column] = rng.integers(0, 8)
        rolls, roller, die, count, last, pair = (row[51], row[52]), row[53], row[54], row[55], row[56], row[57]
        try:
            state = from_array(row[None])[0]
        except InvalidPositionError:
            refused += 1
            continue
        accepted += 1
        pending = () if not count else ((die, pair) if pair else (die,) * count + tuple(
            d for d in range(die + 1, last + 1) for _ in range(4)))
        rebuilt = GioulPosition.from_counts(
            list(row[:25]), list(row[25:50]), int(row[50]), next_roll=(int(rolls[0]) + 1, int(rolls[1]) + 1),
            dice=tuple(int(d) for d in pending), roller=int(roller) if count else None)
        assert rebuilt == state
    assert accepted > 200 and refused > 200


def test_fevga_rules_are_refused_for_gioul_rows() -> None:
    """(The shapes, types and dice every game's rows are checked for: test_batch.py's
    test_shapes_dtypes_and_dice.)"""
    rows = to_array([GioulPosition.initial()] * 2)
    with pytest.raises(InvalidRulesError):
        count_legal_moves(rows, [[6, 5], [6, 5]], Rules.strict())  # Fevga's rules for Gioul rows


def test_batch_evaluate_and_hint_name_bad_gioul_rows(corpus: list[GioulPosition]) -> None:
    """fevga.batch.evaluate and batch.hint name a bad Gioul row (hint: Gioul plies 1..3); the
    core's Gioul values kernel checks its out array (its agreement with fevga.evaluate is
    test_batch.py's test_batch_evaluation_equals_single_calls[gioul])."""
    from fevga import Net, batch
    from fevga_core import search
    from fevga_core.constants import FLAG_GIOUL
    from fevga_core.race import Tables

    rows = to_array(corpus)
    bad = rows.copy()
    bad[3, 51] = 9  # a roll count above 3
    with pytest.raises(InvalidPositionError, match="Gioul state row 3"):
        batch.evaluate(bad)
    with pytest.raises(InvalidPositionError, match="Gioul state row 3"):
        batch.hint(bad, np.full((len(rows), 2), 3))
    with pytest.raises(InvalidArgumentError, match=r"plies=4 must be an integer from 1 to 3 \(gioul\)"):
        batch.hint(rows, np.full((len(rows), 2), 3), 4)
    deepest = batch.hint(rows[:2], np.full((2, 2), 3), 3)  # the deepest Gioul ranking is fevga.hint's
    for i, state in enumerate(corpus[:2]):
        one = fevga.hint(state, None if state.pending else "3-3", 3)
        pair = slice(deepest.offsets[i], deepest.offsets[i + 1])
        assert deepest.equities[pair].tolist() == pytest.approx([h.equity for h in one], abs=1e-12)
        assert deepest.plies[pair].tolist() == [h.plies for h in one]
    with pytest.raises(InvalidArgumentError, match=r"out of shape \(2, 3\) must be \(3, 3\)"):
        search.evaluate_rows(Net.default("gioul")._core, Tables(), rows[:3], np.zeros((2, 3)), FLAG_GIOUL)
