"""The NumPy batch API: layout, validation, threads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from boards import initial, make
from fevga import GioulPosition, InvalidArgumentError, InvalidDiceError, InvalidPositionError, Position, Rules, evaluate, hint
from fevga import batch
from fevga.parallel import CHUNK_ROWS
from fevga.game import play_game
from fevga.gioul import GIOUL_WIDTH, validate_states


def corpus(n_games: int = 20, game: str = "fevga") -> list[Any]:
    """Fevga: every 7th position of seeded random games. Gioul: every state of seeded games,
    heuristic against random (fresh rolls, chain blocks, hand-overs, finished games)."""
    if game == "gioul":
        return [s for seed in range(n_games)
                for s in play_game(game="gioul", seed=seed, policy=("heuristic", "random")).positions()]
    return [p for seed in range(n_games) for p in play_game(seed=seed).positions()[::7]]


def _roll(position: Any, dice: np.ndarray) -> tuple[int, int] | None:
    """The roll to ask a single position about: none while Gioul dice are pending."""
    return None if getattr(position, "pending", ()) else (int(dice[0]), int(dice[1]))


def test_layout_round_trip(game: str) -> None:
    positions = corpus(3, game)
    rows = batch.to_array(positions)
    width = GIOUL_WIDTH if game == "gioul" else 51
    assert rows.shape == (len(positions), width) and rows.dtype == np.uint8
    assert list(rows[0, :25]) == list(positions[0].counts(0)) and rows[0, 50] == positions[0].turn
    assert batch.from_array(rows) == positions


# Games and dice seed of test_counts_and_moves_match_single_calls_with_threads, and the least
# number of moves its sample must hold.
AGREE = {"fevga": (20, 0, 1000), "gioul": (12, 4, 2000)}


def test_counts_and_moves_match_single_calls_with_threads(game: str) -> None:
    n_games, seed, least = AGREE[game]
    positions = corpus(n_games, game)
    if game == "gioul":
        assert any(s.pending and s.roller != s.turn for s in positions)  # dice handed over
        assert any(len(s.pending) > 4 for s in positions)  # inside a chain
    dice = np.random.default_rng(seed).integers(1, 7, size=(len(positions), 2))
    rows = batch.to_array(positions)
    assert batch.from_array(rows) == positions
    expected = [p.count_legal_moves(_roll(p, d)) for p, d in zip(positions, dice)]
    counts = batch.count_legal_moves(rows, dice)
    assert counts.tolist() == expected and counts.sum() > least
    assert batch.count_legal_moves(rows, dice.astype(np.uint8), workers=2).tolist() == expected
    assert batch.count_legal_moves(positions, dice, workers=3).tolist() == expected  # positions, not rows
    moves = batch.legal_moves(rows, dice)
    assert moves.counts().tolist() == expected
    for i, position in enumerate(positions):
        listed = [] if position.is_game_over() else position.legal_moves(_roll(position, dice[i]))
        assert moves.positions(i) == [m.position for m in listed], position.id
        for k, move in enumerate(listed):
            row = moves.offsets[i] + k
            assert moves.nsteps[row] == len(move.steps)
            assert [tuple(int(v) for v in s) for s in moves.steps[row][: moves.nsteps[row]]] == list(move.steps)


def test_fevga_counts_under_other_rules_match_single_calls() -> None:
    positions = corpus()
    dice = np.random.default_rng(0).integers(1, 7, size=(len(positions), 2)).astype(np.uint8)
    strict = [p.count_legal_moves(tuple(d), Rules.strict()) for p, d in zip(positions, dice)]
    assert batch.count_legal_moves(batch.to_array(positions), dice, Rules.strict()).tolist() == strict


def test_finished_games_have_no_moves_in_batches() -> None:
    rows = batch.to_array([make({}, {24: 15}), Position.initial()])
    dice = np.array([[6, 5], [6, 5]], dtype=np.uint8)
    assert batch.count_legal_moves(rows, dice).tolist() == [0, 1]
    result = batch.legal_moves(rows, dice)
    assert result.offsets.tolist() == [0, 0, 1] and result.nsteps.tolist() == [2]


def test_validation_names_the_bad_row() -> None:
    rows = batch.to_array([Position.initial()] * 3)
    dice = np.full((3, 2), 3, dtype=np.uint8)
    bad = rows.copy()
    bad[1, 24] = 14
    with pytest.raises(InvalidPositionError, match="row 1 does not hold 15"):
        batch.count_legal_moves(bad, dice)
    both = rows.copy()
    both[2, 24], both[2, 1] = 14, 1          # White's own 1 ...
    both[2, 49], both[2, 25 + 13] = 14, 1    # ... is Black's own 13
    with pytest.raises(InvalidPositionError, match="row 2 has a point held by both"):
        batch.count_legal_moves(both, dice)
    turn = rows.copy()
    turn[0, 50] = 2
    with pytest.raises(InvalidPositionError, match="row 0 has a turn"):
        batch.count_legal_moves(turn, dice)
    with pytest.raises(InvalidPositionError, match="shape"):
        batch.count_legal_moves(rows[:, :50], dice)
    with pytest.raises(InvalidDiceError, match=r"row 2 is \[0, 3\]"):
        batch.count_legal_moves(rows, np.array([[1, 1], [2, 2], [0, 3]]))
    with pytest.raises(InvalidDiceError, match="shape"):
        batch.legal_moves(rows, dice[:2])


def test_non_integer_arrays_are_rejected() -> None:
    rows = batch.to_array([Position.initial()])
    with pytest.raises(InvalidDiceError, match="integer array"):
        batch.count_legal_moves(rows, [["6", "5"]])
    with pytest.raises(InvalidPositionError, match="integer array"):
        batch.count_legal_moves(rows.astype(str), [[6, 5]])
    with pytest.raises(InvalidPositionError, match="integer array"):
        batch.count_legal_moves(rows.astype(float), [[6, 5]])


def _same(a: batch.BatchHints, b: batch.BatchHints) -> bool:
    """Every array of two batch hints equal, element for element."""
    names = ("offsets", "results", "steps", "nsteps", "values", "equities", "plies")
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in names)


def _hint_rows(hints: batch.BatchHints, k: int) -> list[tuple[object, ...]]:
    """Pair k of a batch hint as (result, steps, values, equity, plies) rows, best first."""
    rows = []
    for j in range(int(hints.offsets[k]), int(hints.offsets[k + 1])):
        steps = tuple(map(tuple, hints.steps[j, :hints.nsteps[j]].tolist()))
        result = bytes(hints.results[j])
        rows.append((Position._from_row(result) if len(result) == 51 else batch.from_array(hints.results[j:j + 1])[0],
                     steps, hints.values[j].tolist(), float(hints.equities[j]), int(hints.plies[j])))
    return rows


@pytest.mark.parametrize("plies", [1, 2])
def test_batch_hint_is_fevga_hint_of_each_pair(game: str, plies: int) -> None:
    """The same moves, values (bit for bit), plies and order as fevga.hint, threads or not,
    finished games with no moves, other rules honoured (Fevga), either game's rows."""
    if game == "gioul":
        positions = corpus(3 if plies == 1 else 1, "gioul")[::2 if plies == 1 else 6]
        positions.append(play_game(game="gioul", seed=1).final)
    else:
        positions = corpus(8 if plies == 1 else 2) + [make({}, {24: 15})]
    rng = np.random.default_rng(plies)
    dice = rng.integers(1, 7, size=(len(positions), 2)).astype(np.uint8)
    rows = batch.to_array(positions)
    hints = batch.hint(rows, dice, plies)
    assert _same(batch.hint(rows, dice, plies, workers=2), hints)
    assert hints.counts()[-1] == 0 and hints.best()[-1] == -1
    for k, (p, d) in enumerate(zip(positions, dice)):
        if p.winner() is not None:
            assert hints.counts()[k] == 0
            continue
        expected = [(h.move.position, tuple(h.move.steps), [h.evaluation.win, h.evaluation.win_mars,
                     h.evaluation.lose_mars], h.evaluation.equity, h.plies) for h in hint(p, _roll(p, d), plies)]
        assert _hint_rows(hints, k) == expected
    if game == "fevga":
        strict = batch.hint(rows, dice, 1, Rules.strict())
        assert strict.counts().tolist() == batch.count_legal_moves(rows, dice, Rules.strict()).tolist()


def test_batch_hint_over_many_chunks_is_the_same() -> None:
    # 2-ply chunks are 64 rows: 150 rows run as three chunks on two threads
    positions = (corpus(4) * 4)[:150]
    dice = np.random.default_rng(5).integers(1, 7, size=(len(positions), 2)).astype(np.uint8)
    rows = batch.to_array(positions)
    one, many = batch.hint(rows, dice, 2), batch.hint(rows, dice, 2, workers=2)
    parts = batch.BatchHints.join([batch.hint(rows[:50], dice[:50], 2), batch.hint(rows[50:], dice[50:], 2)])
    assert _same(many, one) and _same(parts, one)


def test_batch_hint_refuses_bad_input() -> None:
    rows = batch.to_array([Position.initial()] * 2)
    dice = np.array([[6, 5], [4, 4]], dtype=np.uint8)
    for plies in (0, 5, True, 1.5):
        with pytest.raises(InvalidArgumentError, match="plies"):
            batch.hint(rows, dice, plies)  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError, match=r"row 1 is \[4, 7\]"):
        batch.hint(rows, np.array([[6, 5], [4, 7]]))
    bad = rows.copy()
    bad[1, 24] = 14
    with pytest.raises(InvalidPositionError, match="row 1 does not hold 15"):
        batch.hint(bad, dice)
    with pytest.raises(InvalidArgumentError, match="workers"):
        batch.hint(rows, dice, workers=0)


def test_batch_hint_of_every_move_is_fevga_hint_of_every_move(game: str) -> None:
    """every_move=True: each pair's moves all searched at 2 plies, as fevga.hint(...,
    every_move=True) gives them bit for bit, threads or not; more moves searched than the
    filter's (every_move=False); the default is the game's (every move in Gioul); a non-bool
    refused by name."""
    positions = [p for p in corpus(2, game)[1::3] if p.winner() is None][:2]
    dice = np.random.default_rng(17).integers(1, 7, size=(len(positions), 2)).astype(np.uint8)
    rows = batch.to_array(positions)
    every = batch.hint(rows, dice, 2, every_move=True)
    assert _same(batch.hint(rows, dice, 2, workers=2, every_move=True), every)
    assert every.plies.tolist() == [2] * len(every.plies)
    filtered = batch.hint(rows, dice, 2, every_move=False)
    assert (filtered.plies == 2).sum() < len(every.plies)
    assert _same(batch.hint(rows, dice, 2), every if game == "gioul" else filtered)
    for k, (p, d) in enumerate(zip(positions, dice)):
        expected = [(h.move.position, tuple(h.move.steps), [h.evaluation.win, h.evaluation.win_mars,
                     h.evaluation.lose_mars], h.evaluation.equity, h.plies)
                    for h in hint(p, _roll(p, d), 2, every_move=True)]
        assert _hint_rows(every, k) == expected
    with pytest.raises(InvalidArgumentError, match="every_move"):
        batch.hint(rows, dice, 2, every_move="yes")  # type: ignore[arg-type]


def test_the_core_batch_kernels_give_a_finished_game_no_moves() -> None:
    """state.count_moves / generate_batch and search.rank_batch: a finished row has no moves
    whoever is on roll (as the Gioul kernels and rank_row say), without the API's help."""
    from fevga.bearoff.core_tables import tables_of
    from fevga.net import net_of
    from fevga_core import search
    from fevga_core import state as core_state

    rows = batch.to_array([make({}, {24: 15}, turn=1), make({}, {24: 15}, turn=0), Position.initial()])
    dice = np.array([[6, 5]] * 3, dtype=np.uint8)
    counts = np.zeros(3, dtype=np.int32)
    core_state.count_moves(rows, dice, 0, counts)
    assert counts.tolist() == [0, 0, 1]
    assert core_state.generate_batch(rows, dice, 0)[0].tolist() == [0, 0, 0, 1]
    offsets, *_, values, used = search.rank_batch(net_of(None)._core, tables_of("default"), rows, dice, 2, 0)
    assert offsets.tolist() == [0, 0, 0, 1] and values.shape == (1, 3) and used.tolist() == [2]


def test_batch_hint_under_other_rules_is_fevga_hint_under_them() -> None:
    positions = [p for p in corpus(6) if p.winner() is None]
    dice = np.random.default_rng(9).integers(1, 7, size=(len(positions), 2)).astype(np.uint8)
    hints = batch.hint(batch.to_array(positions), dice, 1, Rules.strict())
    for k, (p, d) in enumerate(zip(positions, dice)):
        expected = [(h.move.position, tuple(h.move.steps), [h.evaluation.win, h.evaluation.win_mars,
                     h.evaluation.lose_mars], h.evaluation.equity, h.plies) for h in hint(p, tuple(d), 1, Rules.strict())]
        assert _hint_rows(hints, k) == expected


def test_legal_moves_with_threads_is_the_same(game: str) -> None:
    n = len(corpus(20)) * 60  # 16,680 rows: more than one chunk (CHUNK_ROWS 16,384)
    if game == "gioul":
        states = [s for seed in range(4) for s in play_game(seed=seed, game="gioul").positions()]
        assert isinstance(states[0], GioulPosition)
        rows = batch.to_array(states * (n // len(states) + 1))
    else:
        rows = batch.to_array(corpus(20) * 60)
    assert len(rows) >= n > CHUNK_ROWS  # split between the two threads
    dice = np.random.default_rng(2).integers(1, 7, size=(len(rows), 2)).astype(np.uint8)
    one, two = batch.legal_moves(rows, dice), batch.legal_moves(rows, dice, workers=2)
    assert all(np.array_equal(getattr(one, f), getattr(two, f)) for f in ("offsets", "results", "steps", "nsteps"))
    assert one.counts().tolist() == batch.count_legal_moves(rows, dice, workers=2).tolist()


def test_batch_evaluation_equals_single_calls(game: str) -> None:
    """fevga.batch.evaluate: the shipped net's 0-ply value of each position for its side to
    decide, bit for bit fevga.evaluate's (a Gioul decision in hand searched), threads or not."""
    if game == "gioul":
        sample = corpus(12, "gioul")
    else:
        sample = [p for seed in range(6) for p in play_game(seed=seed, policy="heuristic").positions()
                  if p.winner() is None][::5]
    rows = batch.to_array(sample)
    values = batch.evaluate(rows)
    assert np.array_equal(batch.evaluate(rows, workers=2), values)
    assert values.tolist() == [[e.win, e.win_mars, e.lose_mars] for e in map(evaluate, sample)]


def test_shapes_dtypes_and_dice(game: str) -> None:
    """Rows of the wrong shape, type or range, bad dice, no workers and no rows, for the game's
    row validator (batch.validate_positions, fevga.gioul.validate_states) and the batch calls."""
    validate = validate_states if game == "gioul" else batch.validate_positions
    rows = batch.to_array([initial(game)] * 2)
    width = rows.shape[1]
    for bad in (rows[:, :50], rows.astype(np.float64), rows[0], rows.astype(np.int64) - 1, rows.astype(np.int64) + 300):
        with pytest.raises(InvalidPositionError):
            validate(bad)
    for dice in ([[6, 5]], [[0, 5], [6, 5]], [[6, 7], [6, 5]], [[6.0, 5.0], [6, 5]]):
        with pytest.raises(InvalidDiceError):
            batch.legal_moves(rows, dice)
        with pytest.raises(InvalidDiceError):
            batch.count_legal_moves(rows, dice)
    with pytest.raises(InvalidArgumentError):
        batch.count_legal_moves(rows, [[6, 5], [6, 5]], workers=0)
    with pytest.raises(InvalidPositionError, match=r"shape \(n, 51\)"):
        batch.count_legal_moves(42, [[6, 5]])
    empty = batch.legal_moves(np.zeros((0, width), dtype=np.uint8), np.zeros((0, 2), dtype=np.uint8))
    assert empty.counts().tolist() == [] and empty.results.shape == (0, width)


def test_ragged_rows_and_empty_joins_are_refused_by_name() -> None:
    start = list(Position.initial()._row())
    with pytest.raises(InvalidArgumentError, match="cannot be read as an integer array"):
        batch.count_legal_moves([start, start[:50]], [[6, 5], [6, 5]])
    with pytest.raises(InvalidArgumentError, match="at least one part"):
        batch.BatchHints.join([])
