"""`legal_moves` returns a read-only sequence (fevga_core.movegen.MoveList) that makes each Move
when it is first asked for: the same moves, in the same order, as a list would hold, in both games."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import pytest

from fevga import BLACK, WHITE, Position
from fevga.game import play_game

from boards import busy_position


def _moves(game: str) -> tuple[Any, list[Any]]:
    position, dice = busy_position(game)
    moves = position.legal_moves(dice)
    return moves, [m for m in position.legal_moves(dice)]


GAMES = ["fevga", "gioul"]


@pytest.mark.parametrize("game", GAMES)
def test_the_sequence_holds_the_moves_a_list_would(game: str) -> None:
    position, dice = busy_position(game)
    moves = position.legal_moves(dice)
    assert isinstance(moves, Sequence)
    expected = list(position.legal_moves(dice))
    assert len(moves) == position.count_legal_moves(dice) == len(expected) > 2
    assert moves == expected and expected == moves and moves == tuple(expected)
    assert moves == position.legal_moves(dice)
    assert moves != expected[:-1] and moves != "not moves"
    assert [moves[k] for k in range(len(moves))] == expected
    assert [moves[-k] for k in range(1, len(moves) + 1)] == expected[::-1]
    assert list(reversed(moves)) == expected[::-1]
    assert moves[1:3] == expected[1:3] and moves[::-2] == expected[::-2] and moves[5:1] == []
    assert repr(moves) == repr(expected)


@pytest.mark.parametrize("game", GAMES)
def test_each_move_is_made_once_and_kept(game: str) -> None:
    moves, _ = _moves(game)
    last = moves[-1]
    assert moves[len(moves) - 1] is last  # the value made first is the one kept
    assert list(moves)[-1] is last and next(iter(moves)) is moves[0]


@pytest.mark.parametrize("game", GAMES)
def test_lookups_and_searches(game: str) -> None:
    moves, expected = _moves(game)
    target = expected[len(expected) // 2]
    assert target in moves and moves.index(target) == expected.index(target) and moves.count(target) == 1
    assert "24/13" not in moves and moves.count("24/13") == 0
    with pytest.raises(ValueError, match="not one of the legal moves"):
        moves.index("24/13")


@pytest.mark.parametrize("game", GAMES)
def test_bad_indexes_are_refused_like_a_list_refuses_them(game: str) -> None:
    moves, _ = _moves(game)
    for index in (len(moves), -len(moves) - 1, 10**30):
        with pytest.raises(IndexError, match="move index out of range"):
            moves[index]
    with pytest.raises(TypeError):
        moves["0"]  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        moves[0] = moves[1]  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(moves)


@pytest.mark.parametrize("game", GAMES)
def test_a_move_list_pickles_as_the_list_of_its_moves(game: str) -> None:
    moves, expected = _moves(game)
    copy = pickle.loads(pickle.dumps(moves))
    assert type(copy) is list and copy == expected


def test_a_finished_game_has_an_empty_sequence() -> None:
    won = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    assert won.winner() == WHITE
    moves = won.legal_moves((6, 5))
    assert len(moves) == 0 and moves == [] and list(moves) == [] and not moves
    with pytest.raises(IndexError):
        moves[0]
    gioul_won = play_game(game="gioul", seed=1, policy="heuristic").final
    assert gioul_won.winner() is not None and gioul_won.legal_moves((6, 5)) == []


@pytest.mark.parametrize("game", GAMES)
def test_legal_positions_and_ids_are_the_moves_results_without_the_moves(game: str) -> None:
    position, dice = busy_position(game)
    expected = [m.position for m in position.legal_moves(dice)]
    positions = position.legal_positions(dice)
    assert positions == expected and all(type(p) is type(position) for p in positions)
    assert position.legal_ids(dice) == [p.id for p in expected]
    moves = position.legal_moves(dice)
    first = moves[0]  # a move made already lends its position
    assert moves.positions()[0] is first.position and moves.positions() == expected
    pending = play_game(game="gioul", seed=3).positions()
    state = next(s for s in pending if s.pending and s.count_legal_moves() > 1)  # a Gioul decision in hand
    assert state.legal_positions() == [m.position for m in state.legal_moves()]
    won = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    assert won.legal_positions((6, 5)) == [] and won.legal_ids((6, 5)) == []
