"""The quantised, incremental evaluator (fevga_core/qnet.pyx, issue 18) against the float net.

What it promises (docs/net.md "Quantised inference"): outputs within the documented bound of
the float net's; each result of a roll evaluated incrementally from the parent gives the same
bits as a fresh evaluation of that result; the same bits on every kernel path (SSE2, AVX2),
thread and run; arguments checked at the boundary before the core trusts them.
"""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from fevga import (
    FevgaError, InvalidArgumentError, InvalidDiceError, InvalidPositionError, InvalidRulesError, Net, NetGameError,
    Move, Position, batch, evaluate, hint,
)
from fevga.bearoff.core_tables import tables_of
from fevga.game import play_game
from fevga.gioul import GioulMove, GioulPosition
from fevga.gioul import to_array as gioul_array
from fevga.rollout import RolloutResult, rollout
from fevga.rules import Rules
from fevga.strength import duel
from fevga_core import board, qnet, search
from fevga_core import state as core_state
from fevga_core import rollout as core_rollout
from fevga_core import net as core_net
from fevga_core.gioul import CoreGioulNet
from fevga_core.net import CoreNet
from fevga_core.race import Tables
from fevga_core.constants import FLAG_GIOUL

NET_SHA = "3cb6235b62a5eb641c91c10eb8b9417865a347803a6a1bdb972d168e002adcd1"  # the shipped net the figures belong to
BOUND = 0.01  # docs/net.md: |quantised - float| per output, any position (measured max 0.004)
MEAN_BOUND = 0.001  # docs/net.md: mean |quantised - float| per output (measured 0.0004)
ROLLS = np.array(board.ROLLS, dtype=np.uint8)
FILTERED = Rules(release="reach", start_quarter_check="end_of_turn", ban_prime_before_opponent_mother=True).flags


@cache
def _net() -> Net:
    """The shipped net, quantised: a Net for the public API."""
    net = Net.default()
    assert net.checksum == NET_SHA, "the shipped net changed: re-measure docs/net.md's quantised figures"
    return net.quantised()


def _quantised() -> qnet.QuantisedNet:
    """The core's quantised net (the tables' own entry points)."""
    core: qnet.QuantisedNet = _net()._core
    return core


@cache
def _positions() -> NDArray[np.uint8]:
    """Seeded positions from every stage: random games, each position after plies 0, 5, 10, ..."""
    found: list[Position] = []
    for seed in range(50):
        positions = play_game(seed=seed).positions()
        found += [p for p in positions[::5] if not p.is_game_over()]
    return batch.to_array(found)


def _pairs(count: int) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """The first `count` positions, each with the 21 rolls."""
    rows = _positions()[:count]
    return np.repeat(rows, len(ROLLS), axis=0), np.tile(ROLLS, (len(rows), 1))


def test_the_shipped_net_gets_the_documented_scales_and_fits_int16() -> None:
    q = _quantised()
    assert (q.hidden, q.s1, q.s2) == (384, 9, 12)
    bias, rows, w2 = q.tables()
    assert rows.shape == (qnet.ROWS, 384) and bias.dtype == rows.dtype == w2.dtype == np.int16
    low, high = qnet.accumulator_bounds(bias, rows)
    assert low.min() >= -32768 and high.max() <= 32767  # every accumulator of every position fits
    assert high.max() > 16384 or low.min() < -16384  # and the scale is the finest that does


def test_raw_outputs_agree_with_the_float_net_within_the_bound() -> None:
    rows = _positions()
    assert len(rows) > 800
    error = np.abs(_quantised().evaluate_rows(rows) - Net.default()._core.evaluate_rows(rows))
    assert error.max() < BOUND and error.mean() < MEAN_BOUND


@pytest.mark.parametrize("flags", [0, FILTERED], ids=["default", "filtered"])
def test_each_result_evaluated_incrementally_is_its_fresh_evaluation_bit_for_bit(flags: int) -> None:
    rows, dice = _pairs(120)
    offsets, values = _quantised().evaluate_moves(rows, dice, flags)
    expected_offsets, results, _, _ = core_state.generate_batch(rows, dice, flags)
    assert np.array_equal(offsets, expected_offsets) and len(values) > 20_000
    assert np.array_equal(values, _quantised().evaluate_rows(results))
    error = np.abs(values - Net.default()._core.evaluate_rows(results))
    assert error.max() < BOUND and error.mean() < MEAN_BOUND
    counts = np.zeros(len(rows), dtype=np.int32)
    core_state.count_moves(rows, dice, flags, counts)
    assert np.array_equal(np.diff(offsets), counts) and counts.sum() == len(values)


def _blocky_rows(count: int, seed: int) -> NDArray[np.uint8]:
    """Positions of both sides in runs of consecutive points (primes, trapped and escaped
    checkers on both sides, which the results' relation inputs must follow), each with a
    roll: each side's 15 checkers on runs of 2-7 points, the other's runs on points free."""
    rng = np.random.default_rng(seed)
    rows: list[NDArray[np.uint8]] = []
    while len(rows) < count:
        held = np.zeros(25, dtype=bool)  # printed points (white's numbering) taken so far
        counts = []
        for side in range(2):
            own = np.zeros(25, dtype=np.uint8)
            left = 15 - int(rng.integers(0, 4)) * (rng.random() < 0.2)
            own[0] = 15 - left
            for _ in range(8):
                if not left:
                    break
                start, length = int(rng.integers(1, 25)), int(rng.integers(2, 8))
                for point in range(start, min(start + length, 25)):
                    printed = point if side == 0 else (point + 11) % 24 + 1
                    if left and not held[printed] and not own[point]:
                        held[printed], own[point], left = True, 1, left - 1
            for point in np.flatnonzero(own[1:]) + 1:  # the rest stacked on the side's points
                extra = left if rng.random() < 0.5 else int(rng.integers(0, left + 1))
                own[point] += extra
                left -= extra
            if left or not own[1:].any():
                break
            counts.append(own)
        if len(counts) == 2:
            rows.append(np.concatenate([counts[0], counts[1], [rng.integers(0, 2)]]).astype(np.uint8))
    return np.array(rows)


def test_results_keep_their_relation_inputs_through_primes_bit_for_bit() -> None:
    """A result's relation inputs (the mover's counted against the opponent's front, which
    the roll's results share: qnet.pyx qnet_parent) and contact row (kept from the board
    before the move unless the move ends contact): on boards of primes, where checkers are
    trapped, blocked and escape, every result's incremental value is its fresh evaluation."""
    rows = _blocky_rows(600, seed=11)
    assert all(board.first_invalid_row(rows[i:i + 1])[1] == 0 for i in range(len(rows)))
    pairs, dice = np.repeat(rows, len(ROLLS), axis=0), np.tile(ROLLS, (len(rows), 1))
    offsets, values = _quantised().evaluate_moves(pairs, dice, 0)
    _, results, _, _ = core_state.generate_batch(pairs, dice, 0)
    assert np.array_equal(values, _quantised().evaluate_rows(results))
    relations = qnet.relation_counts_rows(results)  # (n, 2, 3): trapped, blocked, escaped of each side
    for side in range(2):
        assert (relations[:, side, 0] > 0).sum() > 1000 and (relations[:, side, 2] > 0).sum() > 1000

    def contact(a: NDArray[np.uint8]) -> NDArray[np.bool_]:  # a checker on either side's points 13-24
        return np.asarray(a[:, 13:25].any(axis=1) | a[:, 38:50].any(axis=1))

    assert (np.repeat(contact(pairs), np.diff(offsets)) & ~contact(results)).sum() > 50  # moves that end contact


def _mover_equity(theirs: NDArray[np.float64]) -> NDArray[np.float64]:
    """Equity of a result for the side that moved into it (the outputs are the opponent's)."""
    return 2.0 * (1.0 - theirs[:, 0]) - 1.0 + theirs[:, 2] - theirs[:, 1]


def test_the_net_picks_the_same_move_on_nearly_every_roll() -> None:
    """1-ply choice by the raw net alone (no race tables): the quantised net's move is the float
    net's on at least 98% of the (position, roll) pairs with a choice, and the float net values
    the quantised choice within 0.01 of its own (measured on these 3,477 pairs: 99.3% the same
    move, equity lost by the float net's measure 0.000004 per choice on average, 0.0019 at most)."""
    rows, dice = _pairs(200)
    offsets, quantised = _quantised().evaluate_moves(rows, dice, 0)
    _, results, _, _ = core_state.generate_batch(rows, dice, 0)
    exact = _mover_equity(Net.default()._core.evaluate_rows(results))
    fast = _mover_equity(quantised)
    same, losses = 0, []
    choices = [(a, b) for a, b in zip(offsets[:-1], offsets[1:]) if b - a > 1]
    for a, b in choices:
        best, chosen = a + int(np.argmax(exact[a:b])), a + int(np.argmax(fast[a:b]))
        same += best == chosen
        losses.append(exact[best] - exact[chosen])
    assert len(choices) > 3000
    assert same / len(choices) >= 0.98
    assert np.mean(losses) < 0.0001 and max(losses) < 0.01


def test_the_baseline_and_the_best_kernels_give_the_same_bits() -> None:
    rows, dice = _pairs(30)
    q = _quantised()
    try:
        baseline = qnet._use_kernels(False)
        slow = q.evaluate_rows(_positions()), q.evaluate_moves(rows, dice, 0)[1]
    finally:
        best = qnet._use_kernels(True)
    assert best == qnet.SIMD and baseline in ("sse2", qnet.SIMD)
    fast = q.evaluate_rows(_positions()), q.evaluate_moves(rows, dice, 0)[1]
    assert np.array_equal(slow[0], fast[0]) and np.array_equal(slow[1], fast[1])


def test_results_do_not_depend_on_threads_runs_or_instances() -> None:
    rows = np.repeat(_positions(), 4, axis=0)
    q = _quantised()
    whole = q.evaluate_rows(rows)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(q.evaluate_rows, np.array_split(rows, 7)))
    assert np.array_equal(np.concatenate(parts), whole)
    again = Net.default().quantised()._core
    assert all(np.array_equal(a, b) for a, b in zip(again.tables(), q.tables()))
    assert np.array_equal(again.evaluate_rows(rows), whole)


def test_other_sizes_pad_their_lanes_and_still_agree() -> None:
    """An untrained net of 40 hidden units (padded to 128 lanes) and one of 200 (256 lanes)."""
    rows, dice = _pairs(10)
    for hidden in (40, 200):
        net = Net.initial(hidden, seed=hidden)
        q = net.quantised()._core
        offsets, values = q.evaluate_moves(rows, dice, 0)
        _, results, _, _ = core_state.generate_batch(rows, dice, 0)
        assert np.array_equal(values, q.evaluate_rows(results))
        assert np.abs(values - net._core.evaluate_rows(results)).max() < BOUND
        assert q.tables()[1].shape == (qnet.ROWS, 128 if hidden == 40 else 256)


def test_nets_that_cannot_be_quantised_are_refused() -> None:
    hidden = Net.default().hidden
    params = Net.default().params.copy()
    params[0] = np.nan
    with pytest.raises(InvalidArgumentError, match="non-finite"):
        qnet.QuantisedNet(CoreNet(params, hidden))
    huge = Net.default().params * np.float32(1e6)
    with pytest.raises(InvalidArgumentError, match="does not fit int16"):
        qnet.QuantisedNet(CoreNet(huge, hidden))
    with pytest.raises(TypeError):
        qnet.QuantisedNet(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # its tables hold raw pointers: ship the Net, quantise on arrival
        pickle.dumps(_quantised())
    with pytest.raises(InvalidArgumentError, match="cannot be trained"):
        _quantised().train_rows(_positions()[:2], np.full((2, 3), 0.25), 0.1)


def test_bad_arguments_are_refused_at_the_boundary() -> None:
    q = _quantised()
    rows, dice = _pairs(2)
    bad = rows.copy()
    bad[0, 3] = 16  # 16 checkers on a point
    with pytest.raises(InvalidPositionError):
        q.evaluate_rows(bad)
    with pytest.raises(InvalidPositionError):
        q.evaluate_moves(bad, dice)
    with pytest.raises(ValueError):
        q.evaluate_rows(rows[:, :50].copy())
    with pytest.raises(InvalidDiceError, match="shape"):
        q.evaluate_moves(rows, dice[:5])
    for value in (0, 7):
        wrong = dice.copy()
        wrong[3, 1] = value
        with pytest.raises(InvalidDiceError, match="row 3"):
            q.evaluate_moves(rows, wrong)
    with pytest.raises(InvalidRulesError, match="flags -1"):
        q.evaluate_moves(rows, dice, -1)
    empty = np.zeros((0, rows.shape[1]), dtype=np.uint8)
    assert q.evaluate_rows(empty).shape == (0, 3)
    offsets, values = q.evaluate_moves(empty, np.zeros((0, 2), dtype=np.uint8))
    assert offsets.tolist() == [0] and values.shape == (0, 3)


START = batch.to_array([Position.initial()])[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.integers(0, 60), st.integers(0, 255), st.integers(0, 255), st.integers(-1, 40))
def test_fuzz_entry_points(n: int, width: int, value: int, die: int, flags: int) -> None:
    """Random arguments at every entry point: each works or raises an ordinary exception
    (.ci/sanitize runs this under AddressSanitizer and UBSan)."""
    q = _quantised()
    rows = np.tile(START, (n, 1))
    if n:
        rows[n - 1, value % rows.shape[1]] = value
    narrow = np.zeros((n, width), dtype=np.uint8)
    dice = np.full((n, 2), die % 8, dtype=np.uint8)
    calls = [
        lambda: q.evaluate_rows(rows),
        lambda: q.evaluate_rows(narrow),
        lambda: q.evaluate_moves(rows, dice, flags),
        lambda: q.evaluate_moves(rows, dice[: width % 4], flags),
        lambda: q.evaluate_moves(narrow, dice, flags),
        lambda: qnet.relation_counts_rows(rows),
        lambda: qnet.relation_counts_rows(narrow),
    ]
    for call in calls:
        try:
            call()
        except (FevgaError, ValueError, TypeError, OverflowError):
            pass


# ---------------------------------------------------------------------------------------
# The quantised net at play: a Net wherever a Net is taken, evaluated in its tables.

MIDGAME = Position.from_id("f_8AAAD__gAAAAAA")


@cache
def _midgame() -> tuple[Position, ...]:
    """Positions with contact: neither the race tables nor a finished game override the net."""
    return tuple(play_game(seed=4, policy="heuristic").positions()[6:60:6])


def _outputs(evaluation: object) -> tuple[float, float, float]:
    return (evaluation.win, evaluation.win_mars, evaluation.lose_mars)  # type: ignore[attr-defined]


def test_a_quantised_net_is_a_net_that_pickles_and_compares() -> None:
    q, exact = _net(), Net.default()
    assert q.is_quantised and not exact.is_quantised and q.quantised() is q
    assert q != exact and q == exact.quantised() and hash(q) == hash(exact.quantised())
    assert q.checksum == exact.checksum and q.to_bytes() == exact.to_bytes()  # the float net it came from
    assert "quantised" in repr(q) and "quantised" not in repr(exact)
    again = pickle.loads(pickle.dumps(q))  # Dask workers: quantised again on arrival, the same tables
    assert again == q and all(np.array_equal(a, b) for a, b in zip(again._core.tables(), _quantised().tables()))
    with pytest.raises(InvalidArgumentError, match="True or False"):
        Net(exact.params, 128, quantised=1)  # type: ignore[arg-type]
    with pytest.raises(NetGameError):  # a quantised Fevga net where a Gioul net is due
        evaluate(GioulPosition.initial(), net=q)
    with pytest.raises(NetGameError):
        rollout(GioulPosition.initial(), games=36, seed=1, workers=1, policy="net", net=q, progress=False)


def test_evaluate_and_hint_read_the_tables_incrementally() -> None:
    """evaluate at 0 ply is the tables' raw value; every 1-ply hint value is its result's raw
    value, here computed from the parent's accumulator: the same bits."""
    positions = _midgame()
    rows = batch.to_array(list(positions))
    raw = _quantised().evaluate_rows(rows)
    assert batch.evaluate(rows, net=_net()).tolist() == raw.tolist()
    for position, row in zip(positions, raw):
        assert _outputs(evaluate(position, net=_net())) == tuple(row) != _outputs(evaluate(position))
        for dice in ((6, 5), (2, 2)):
            hints = hint(position, dice, net=_net())
            theirs = _quantised().evaluate_rows(batch.to_array([h.move.position for h in hints]))
            mine = np.array([_outputs(h.evaluation) for h in hints])
            assert np.array_equal(mine, np.column_stack([1 - theirs[:, 0], theirs[:, 2], theirs[:, 1]]))


def test_the_net_policies_play_the_quantised_hint() -> None:
    for policy, plies, length in (("net", 1, 40), ("net2", 2, 8)):
        record = play_game(seed=11, policy=policy, max_plies=length, net=_net())
        for position, ply in zip(record.positions(), record.plies):
            played = position.play(ply.notation, ply.dice)
            assert played == hint(position, ply.dice, plies=plies, net=_net())[0].move.position


def test_choose_rows_luck_and_leaves_use_the_tables() -> None:
    rows = np.repeat(batch.to_array(list(_midgame())), len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(_midgame()), 1))
    tables = tables_of("default")
    chosen = np.zeros(len(rows), dtype=np.int32)
    search.choose_rows(_quantised(), tables, rows, dice, 1, 0, chosen)
    offsets, values = _quantised().evaluate_moves(rows, dice, 0)
    mover = _mover_equity(values)
    for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
        assert chosen[i] == int(np.argmax(mover[a:b]))
    row = MIDGAME._row()
    value = core_rollout.value(row, 0, tables, 1.0, _quantised())
    win, win_mars, lose_mars = _quantised().evaluate_rows(batch.to_array([MIDGAME]))[0]
    assert value == 2.0 * win - 1.0 + win_mars - lose_mars != core_rollout.value(row, 0, tables, 1.0, Net.default()._core)
    deep = core_rollout.expectimax_value(row, 1, 0, tables, 1.0, _quantised())
    assert abs(deep - core_rollout.expectimax_value(row, 1, 0, tables, 1.0, Net.default()._core)) < BOUND * 4
    assert deep != core_rollout.expectimax_value(row, 1, 0, tables, 1.0, Net.default()._core)


def test_quantised_rollouts_and_duels_do_not_depend_on_workers_or_kernels() -> None:
    games = 1296 + 72  # two blocks
    # one rollout on two threads with the SIMD kernels, one on one thread with the portable
    # code: a difference in either the worker count or the kernels would show. The luck's
    # 21-roll expectations (about 20 times a game's work) are checked against the kernels on
    # one block: a game's luck is computed within the game, and the two blocks already show
    # that a game does not depend on which worker plays it.
    def both(workers: int) -> list[RolloutResult]:
        return [rollout(MIDGAME, games=n, seed=9, policy="net", net=_net(), workers=workers, progress=False, luck=luck)
                for n, luck in ((games, False), (144, True))]

    simd = both(2)
    try:
        baseline = qnet._use_kernels(False)
        portable = both(1)
    finally:
        qnet._use_kernels(True)
    assert baseline in ("sse2", qnet.SIMD) and portable == simd
    whole, lucky = simd
    assert whole.games == games and lucky.luck
    raw = rollout(MIDGAME, games=144, seed=9, policy="net", net=_net(), workers=1, progress=False)
    assert raw.equity == lucky.raw_equity
    float_net = rollout(MIDGAME, games=144, seed=9, policy="net", workers=1, progress=False)
    assert (raw.win, raw.win_mars, raw.lose_mars) != (float_net.win, float_net.win_mars, float_net.lose_mars)
    assert whole.equity != rollout(MIDGAME, games=games, seed=9, policy="net", workers=2, progress=False).equity
    a = duel("net", "net", games=144, seed=2, net_a=Net.default(), net_b=_net(), workers=1)
    assert a == duel("net", "net", games=144, seed=2, net_a=Net.default(), net_b=_net(), workers=2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 255), st.integers(0, 60), st.integers(0, 7), st.integers(0, 7), st.integers(-1, 6),
       st.integers(-1, 40))
def test_fuzz_the_entry_points_that_play_a_quantised_net(value: int, where: int, d1: int, d2: int, plies: int,
                                                         flags: int) -> None:
    """Random arguments at the core's entry points that take a net, given a quantised one: each
    works or raises an ordinary exception (.ci/sanitize runs this under AddressSanitizer and UBSan)."""
    q, tables = _quantised(), tables_of("default")
    row = bytearray(MIDGAME._row())
    if where < len(row):
        row[where] = value
    rows = np.frombuffer(bytes(row), dtype=np.uint8)[None, :].copy()
    dice = np.array([[d1, d2]], dtype=np.uint8)
    sums = [np.zeros((1, 15)), np.zeros((1, 36, 3)), np.zeros((1, 1)), np.zeros((1, 512), dtype=np.int64)]
    calls = [
        lambda: search.evaluate_position(q, tables, MIDGAME, plies % 2, flags),
        lambda: search.rank_position(q, tables, MIDGAME, d1, d2, plies % 3, flags, Move, plies > 2),
        lambda: search.rank_batch(q, tables, rows, dice, plies % 3, flags, plies > 3),
        lambda: search.choose_rows(q, tables, rows, dice, plies % 3, flags, np.zeros(1, dtype=np.int32)),
        lambda: search.evaluate_rows(q, tables, rows, np.zeros((1, 3))),
        lambda: core_rollout.value(bytes(row), plies, tables, 1.0, q),
        lambda: core_rollout.expectimax_value(bytes(row), plies % 2, flags, tables, 1.0, q),
        lambda: core_rollout.play_recorded(bytes(row), flags, 5, 6 if plies > 4 else 5, None, value, True, 20,
                                           tables, 1.0, q),
        lambda: core_rollout.run_block(bytes(row), plies, flags, 5, 5, None, tables, q, None, True, plies > 2,
                                       1.0, True, value, 0, 1, *sums, np.zeros(1, dtype=np.int32), None),
    ]
    for call in calls:
        try:
            call()
        except (FevgaError, ValueError, TypeError, OverflowError):
            pass


def test_the_relation_counts_the_tables_read_are_the_float_encodings() -> None:
    """The SSE2 kernel of the relation inputs (trapped, blocked, escaped; relation_counts
    elsewhere) against the float net's encoding, for both sides of every result of 60
    positions' rolls and of positions from every stage."""
    rows, dice = _pairs(60)
    _, results, _, _ = core_state.generate_batch(rows, dice, 0)
    rows = np.concatenate([results, _positions()])
    counts = qnet.relation_counts_rows(rows)
    inputs = np.array([core_net.encode_row(row) for row in rows])
    for b in range(2):
        expected = np.rint(inputs[:, b * 107 + 103:b * 107 + 106] * np.array([15, 90, 15]))
        assert np.array_equal(counts[:, b], expected)
    assert counts[:, :, 0].max() > 0 and counts[:, :, 1].max() > 20 and counts[:, :, 2].max() == 15
    with pytest.raises(InvalidPositionError):
        qnet.relation_counts_rows(np.full((1, rows.shape[1]), 255, dtype=np.uint8))


# ---------------------------------------------------------------------------------------
# The quantised Gioul net: Fevga's tables and the Gioul rows (roll counts, pending dice)

GIOUL_SHA = "13811c8f3611"  # the shipped Gioul net these figures belong to


@cache
def _gioul_net() -> Net:
    net = Net.default("gioul")
    assert net.checksum.startswith(GIOUL_SHA), "the shipped Gioul net changed: re-measure docs/net.md's figures"
    return net.quantised()


@cache
def _gioul_games() -> tuple[tuple[GioulPosition, ...], ...]:
    """Seeded Gioul net self-play games: every state before each decision (rolls due, chain
    blocks, hand-overs), finished states left out."""
    out = []
    for seed in range(12):
        states = play_game(seed=seed, policy="net", game="gioul").positions()
        out.append(tuple(s for s in states if s.winner() is None))
    return tuple(out)


def _gioul_rows() -> NDArray[np.uint8]:
    return gioul_array([s for game in _gioul_games() for s in game])


def test_the_gioul_net_gets_its_scales_and_fits_int16() -> None:
    q = _gioul_net()._core
    assert isinstance(q, qnet.QuantisedGioulNet) and isinstance(q, CoreGioulNet) and (q.s1, q.s2) == (10, 11)
    bias, rows, w2 = q.tables()
    assert rows.shape == (qnet.GIOUL_ROWS, 128) and qnet.GIOUL_ROWS > qnet.ROWS
    low, high = qnet.accumulator_bounds(bias, rows)
    assert low.min() >= -32768 and high.max() <= 32767
    assert high.max() > 16384 or low.min() < -16384  # the finest scale that fits


def test_gioul_raw_outputs_agree_with_the_float_net_within_the_bound() -> None:
    rows = _gioul_rows()
    assert len(rows) > 700
    error = np.abs(_gioul_net()._core.evaluate_rows(rows) - Net.default("gioul")._core.evaluate_rows(rows))
    assert error.max() < BOUND and error.mean() < MEAN_BOUND


def _ranked(state: GioulPosition, roll: tuple[int, int] | None, net: object) -> tuple[list[GioulMove], NDArray[np.float64]]:
    d1, d2 = roll or (0, 0)
    moves, values, _ = search.rank_position(net, Tables(), state, d1, d2, 1, FLAG_GIOUL, GioulMove)
    return list(moves), values


def test_gioul_results_from_the_parent_are_their_fresh_evaluations_bit_for_bit() -> None:
    """Every 1-ply value of a Gioul decision (no tables: the net values every unfinished result)
    is the fresh evaluation of its result: from the parent's accumulator where the opponent
    decides next, afresh where a chain's next block leaves the mover to decide."""
    q = _gioul_net()._core
    kinds = {"same": 0, "other": 0}
    for seed in range(4):
        record = play_game(seed=seed, policy="net", game="gioul")
        for state, decision in zip(record.positions(), record.decisions):
            moves, mine = _ranked(state, decision.roll, q)
            for move, value in zip(moves, mine):
                child = move.position
                if child.winner() is not None:
                    continue
                fresh = q.evaluate_rows(gioul_array([child]))[0]
                if child.turn == state.turn:
                    kinds["same"] += 1
                    assert np.array_equal(value, fresh)
                else:
                    kinds["other"] += 1
                    assert np.array_equal(value, np.array([1 - fresh[0], fresh[2], fresh[1]]))
    assert kinds["same"] > 100 and kinds["other"] > 1000


def test_gioul_kernels_threads_and_instances_give_the_same_bits() -> None:
    rows = _gioul_rows()
    q = _gioul_net()._core
    state = _gioul_games()[0][20]
    try:
        baseline = qnet._use_kernels(False)
        slow = q.evaluate_rows(rows), _ranked(state, None if state.pending else (6, 5), q)[1]
    finally:
        qnet._use_kernels(True)
    assert baseline in ("sse2", qnet.SIMD)
    fast = q.evaluate_rows(rows), _ranked(state, None if state.pending else (6, 5), q)[1]
    assert np.array_equal(slow[0], fast[0]) and np.array_equal(slow[1], fast[1])
    with ThreadPoolExecutor(3) as pool:
        parts = list(pool.map(q.evaluate_rows, np.array_split(rows, 5)))
    assert np.array_equal(np.concatenate(parts), fast[0])
    again = Net.default("gioul").quantised()._core
    assert all(np.array_equal(a, b) for a, b in zip(again.tables(), q.tables()))


def test_a_quantised_gioul_net_is_a_net_of_its_game() -> None:
    q, exact = _gioul_net(), Net.default("gioul")
    assert q.is_quantised and q.game == "gioul" and q != exact and q == exact.quantised()
    assert q.checksum == exact.checksum and "quantised" in repr(q)
    again = pickle.loads(pickle.dumps(q))
    assert again == q and all(np.array_equal(a, b) for a, b in zip(again._core.tables(), q._core.tables()))
    assert Net(exact.params, 128, game="gioul", quantised=True) == q
    with pytest.raises(NetGameError):  # a quantised Gioul net where a Fevga net is due, and the reverse
        evaluate(Position.initial(), net=q)
    with pytest.raises(NetGameError):
        evaluate(GioulPosition.initial(), net=_net())
    with pytest.raises(InvalidArgumentError, match="cannot be trained"):
        q._core.train_rows(_gioul_rows()[:2], np.full((2, 3), 0.25), 0.1)
    params = exact.params.copy()
    params[5] = np.inf
    with pytest.raises(InvalidArgumentError, match="non-finite"):
        qnet.QuantisedGioulNet(CoreGioulNet(params, 128))
    with pytest.raises(TypeError):  # a Fevga net is not a Gioul net
        qnet.QuantisedGioulNet(Net.default()._core)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError):
        q._core.evaluate_rows(np.zeros((2, 58), dtype=np.uint8))
    for kind, rows in ((qnet.QuantisedGioulNet, _gioul_rows()[:1]), (qnet.QuantisedNet, _positions()[:1])):
        unbound = kind.__new__(kind)  # never quantised: refused, not read
        with pytest.raises(InvalidArgumentError, match="no parameters"):
            unbound.evaluate_rows(rows)
        with pytest.raises(InvalidArgumentError, match="no parameters"):
            unbound.tables()


def test_the_gioul_net_policies_play_the_quantised_hint_and_judge_with_it() -> None:
    q = _gioul_net()
    for policy, plies, seed in (("net", 1, 3), ("net2", 2, 4)):
        record = play_game(seed=seed, policy=policy, net=q, game="gioul")
        for state, decision in list(zip(record.positions(), record.decisions))[:40 if plies == 1 else 12]:
            best = hint(state, decision.roll, plies=plies, net=q, every_move=False)[0].move  # net2: the filter's
            assert best.steps == decision.steps
    state = _gioul_games()[1][15]
    for plies in (0, 1, 2):
        judged = evaluate(state, plies=plies, net=q)
        assert judged != evaluate(state, plies=plies)  # the tables judged, not the float net
        assert abs(judged.equity - evaluate(state, plies=plies).equity) < 4 * BOUND


def test_quantised_gioul_rollouts_do_not_depend_on_workers_or_kernels() -> None:
    start = _gioul_games()[2][10]
    one = rollout(start, games=1296 + 72, seed=5, policy="net", net=_gioul_net(), workers=1, progress=False)
    assert one == rollout(start, games=1296 + 72, seed=5, policy="net", net=_gioul_net(), workers=2, progress=False)
    try:
        qnet._use_kernels(False)
        slow = rollout(start, games=1296 + 72, seed=5, policy="net", net=_gioul_net(), workers=2, progress=False)
    finally:
        qnet._use_kernels(True)
    assert slow == one


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 255), st.integers(0, 57), st.integers(-1, 7), st.integers(-1, 7), st.integers(-1, 4))
def test_fuzz_the_entry_points_that_take_a_quantised_gioul_net(value: int, where: int, d1: int, d2: int,
                                                               plies: int) -> None:
    """Hostile rows, dice and plies at the entry points given a quantised Gioul net: each works
    or raises an ordinary exception (.ci/sanitize runs this under AddressSanitizer and UBSan)."""
    q = _gioul_net()._core
    rows = gioul_array([_gioul_games()[0][7], _gioul_games()[1][3]])
    rows[1, where] = value
    try:
        q.evaluate_rows(rows)
    except FevgaError:
        pass
    state = _gioul_games()[0][7]
    try:
        search.rank_position(q, Tables(), state, d1, d2, plies, FLAG_GIOUL, GioulMove)
        search.evaluate_position(q, Tables(), state, plies, FLAG_GIOUL)
    except (FevgaError, TypeError):
        pass
