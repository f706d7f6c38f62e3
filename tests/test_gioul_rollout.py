"""Gioul rollouts (docs/rollout.md, "Gioul"): the core block runner (fevga_core.rollout, FLAG_GIOUL),
its seeding, stratification, luck and truncation, and its hostile inputs; then fevga.rollout and
rollout_moves on Gioul states (tables, rankings, refusals). What Gioul rollouts share with
Fevga's (workers, Dask, checkpoints, statistics, the default net) runs for both games in
test_rollout.py, and luck with the net in test_net.py. The CLI: test_gioul_cli.py."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest

from boards import counts
from fevga import (
    BLACK,
    WHITE,
    GioulPosition,
    InvalidArgumentError,
    InvalidDiceError,
    InvalidPositionError,
    Rules,
    rollout,
    rollout_moves,
)
from fevga.bearoff import OneSidedDB, TwoSidedDB
from fevga.errors import BearoffFileError, IllegalMoveError, InvalidRulesError, NetGameError
from fevga.net import Net
from fevga.gioul import to_array
from fevga.rollout import STRATA
from fevga_core import game as core_game
from fevga_core import rollout as core
from fevga_core.constants import FLAG_GIOUL
from fevga_core.constants import GIOUL_WIDTH
from fevga_core.race import Tables
from fevga_core.rollout import SUM_FIELDS

F = {name: i for i, name in enumerate(SUM_FIELDS)}
SCALE = 100.0
RANDOM, HEURISTIC = 0, 1
HANDED_OVER = "__4AAAj__AABAAAA5VhH"  # Black plays the rest of White's chain


def rows(*states: GioulPosition) -> bytes:
    return to_array(list(states)).tobytes()


class Block:
    """The arrays of one run_block call."""

    def __init__(self, targets: int) -> None:
        self.sums = np.zeros((targets, len(SUM_FIELDS)))
        self.first = np.zeros((targets, 36, 3))
        self.cross = np.zeros((targets, targets))
        self.lengths = np.zeros((targets, 512), dtype=np.int64)
        self.stop = np.zeros(1, dtype=np.int32)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.sums, self.first, self.cross, self.lengths, self.stop)


def run(states: bytes, first: int = 0, games: int = 36, *, color: int = WHITE, policy: int = RANDOM,
        tables: Tables | None = None, truncate: bool = False, luck: bool = False, stratify: bool = True,
        master: int = 99, block: Block | None = None) -> Block:
    out = block or Block(len(states) // GIOUL_WIDTH)
    done = core.run_block(states, color, FLAG_GIOUL, policy, policy, None, tables or Tables(), None, None, truncate,
                          luck, SCALE, stratify, master, first, games, *out.arrays())
    assert done == games
    return out


def run_block(states: bytes, master: int, first: int, games: int, *arrays: Any, tables: Tables | None = Tables(),
              scale: float = SCALE) -> int:
    """The core's run_block for a stratified random-policy Gioul job from White's view."""
    return int(core.run_block(states, WHITE, FLAG_GIOUL, RANDOM, RANDOM, None, tables, None, None, False, False, scale,
                              True, master, first, games, *arrays))


# --------------------------------------------------------------------------- seeding


@pytest.mark.parametrize("start", [GioulPosition.initial(), GioulPosition.from_id(HANDED_OVER)])
def test_game_i_is_the_same_whatever_the_split(start: GioulPosition) -> None:
    """Games 0..199 in one block, in uneven pieces, and one by one: the same games (these
    sums are of whole numbers, so equal games give bit-equal sums in any order)."""
    whole = run(rows(start), 0, 200)
    pieces = Block(1)
    for first, n in ((0, 7), (7, 93), (100, 1), (101, 99)):
        run(rows(start), first, n, block=pieces)
    singles = Block(1)
    for i in range(200):
        run(rows(start), i, 1, block=singles)
    for other in (pieces, singles):
        assert np.array_equal(whole.sums, other.sums)
        assert np.array_equal(whole.first, other.first)
        assert np.array_equal(whole.lengths, other.lengths)
    assert whole.sums[0, F["games"]] == 200
    assert run(rows(start), 0, 200, master=100).sums[0, F["equity_sq"]] != 0  # another seed plays
    assert not np.array_equal(run(rows(start), 0, 200, master=100).first, whole.first)


def test_common_random_numbers_and_cross_products() -> None:
    """Two identical targets play identical games; cross holds the products of their values."""
    start = GioulPosition.initial()
    pair = run(rows(start, start), 0, 144, policy=HEURISTIC)
    one = run(rows(start), 0, 144, policy=HEURISTIC)
    assert np.array_equal(pair.sums[0], one.sums[0]) and np.array_equal(pair.sums[1], one.sums[0])
    assert np.all(pair.cross == one.sums[0, F["equity_sq"]])


def test_outcome_fields_add_up() -> None:
    b = run(rows(GioulPosition.initial()), 0, 1296)
    s = b.sums[0]
    n = s[F["games"]]
    assert n == 1296 and s[F["draw"]] <= n
    lose = n - s[F["win"]] - s[F["draw"]]
    assert s[F["equity"]] == s[F["win"]] + s[F["win_mars"]] - lose - s[F["lose_mars"]]
    assert s[F["luck"]] == s[F["luck_sq"]] == s[F["truncated"]] == 0
    assert b.lengths[0].sum() == n
    assert s[F["plies"]] == sum(i * c for i, c in enumerate(b.lengths[0]))
    assert b.first[0, :, 0].sum() == n and b.first[0, :, 1].sum() == s[F["equity"]]


# --------------------------------------------------------------------------- stratification


@pytest.mark.parametrize("start", [GioulPosition.initial(), GioulPosition.from_id(HANDED_OVER)])
def test_first_random_roll_is_stratified(start: GioulPosition) -> None:
    """Every 36 consecutive games make each first roll once; a rotation of 1,296 games plays
    every ordered pair of first and second rolls once. For a state with dice pending the
    first random roll is the one after them."""
    b = run(rows(start), 0, 1296)
    assert np.all(b.first[0, :, 0] == 36)
    part = run(rows(start), 36 * 5, 36)
    assert np.all(part.first[0, :, 0] == 1)
    free = run(rows(start), 0, 1296, stratify=False)
    assert free.first[0, :, 0].min() < 36 < free.first[0, :, 0].max()


def test_first_roll_of_game_i_is_roll_i_mod_36() -> None:
    """The shared schedule (rollout.strata_rolls): game i's first roll is roll index i mod 36,
    (d1 - 1) * 6 + (d2 - 1), whichever block plays it."""
    for i in (0, 5, 35, 36, 1297, 5000):
        b = run(rows(GioulPosition.initial()), i, 1)
        assert b.first[0, i % 36, 0] == 1


# --------------------------------------------------------------------------- luck


def _greedy_roll_value(state: GioulPosition, dice: tuple[int, int], roller: int) -> float:
    """Reference of gioul_roll_values through the public API: every decision of the roll
    played by the heuristic policy (the first move with the best heuristic_eval), then the
    evaluator (final points, else tanh(heuristic / 100): no tables here)."""
    state = state.rolled(dice)
    while state.pending and state.winner() is None:
        mover = state.turn
        moves = state.legal_moves()
        values = [core_game.evaluate(m.position._fields()[0], mover) for m in moves]
        state = moves[values.index(max(values))].position
    winner = state.winner()
    if winner is not None:
        return float(state.points() if winner == roller else -state.points())
    return math.tanh(core_game.evaluate(state._fields()[0], roller) / SCALE)


ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


@pytest.mark.parametrize("state", [
    GioulPosition.initial(),
    # White's fourth roll: doubles are chains; Black's army blocks some of them (hand-overs)
    GioulPosition.from_counts(counts({24: 9, 20: 2, 14: 2, 10: 2}), counts({24: 5, 23: 2, 21: 2, 19: 2, 17: 2, 15: 2}),
                              WHITE, next_roll=(4, 4)),
    # White to roll its fourth with three checkers left: any chain ends the game mid-roll
    GioulPosition.from_counts(counts({1: 2, 2: 1}), counts({6: 3, 5: 3, 12: 3, 20: 2}), WHITE, next_roll=(4, 4)),
])
def test_roll_values_play_each_roll_through_its_chain_and_hand_overs(state: GioulPosition) -> None:
    values, mean = core.roll_values(rows(state), FLAG_GIOUL, Tables(), SCALE)
    expected = [_greedy_roll_value(state, d, state.turn) for d in ROLLS]
    assert values == pytest.approx(expected, abs=1e-12)
    assert mean == pytest.approx(sum(v * (1 if a == b else 2) / 36 for v, (a, b) in zip(expected, ROLLS)), abs=1e-12)


def test_luck_changes_no_game_and_is_unbiased() -> None:
    """The luck evaluator draws nothing: raw sums are those of the job without luck. Each
    luck term has mean zero, so the mean luck is near 0 and the adjusted mean lies within the
    CI of the raw mean."""
    start = GioulPosition.from_id(HANDED_OVER)
    plain = run(rows(start), 0, 216, policy=HEURISTIC, master=5)
    lucky = run(rows(start), 0, 216, policy=HEURISTIC, luck=True, master=5)
    for name in ("games", "equity", "equity_sq", "win", "win_mars", "lose_mars", "draw", "plies"):
        assert plain.sums[0, F[name]] == lucky.sums[0, F[name]]
    s = lucky.sums[0]
    n = s[F["games"]]
    mean, luck = s[F["equity"]] / n, s[F["luck"]] / n
    var, var_luck = s[F["equity_sq"]] / n - mean**2, s[F["luck_sq"]] / n - luck**2
    assert var_luck > 0
    assert abs(luck) < 4 * math.sqrt(var_luck / n)
    beta = (s[F["equity_luck"]] / n - mean * luck) / var_luck
    assert abs((mean - beta * luck) - mean) < 1.96 * math.sqrt(var / n)


def test_luck_reduces_variance_in_a_race() -> None:
    """In a no-contact race the heuristic's pip term values rolls well: the control variate
    removes most of the variance."""
    race = GioulPosition.from_counts(counts({6: 2, 5: 2, 4: 2, 3: 1}), counts({6: 2, 5: 2, 4: 2, 2: 1}), WHITE,
                                     next_roll=(4, 4))
    s = run(rows(race), 0, 216, policy=HEURISTIC, luck=True).sums[0]
    n = s[F["games"]]
    mean, luck = s[F["equity"]] / n, s[F["luck"]] / n
    var, var_luck = s[F["equity_sq"]] / n - mean**2, s[F["luck_sq"]] / n - luck**2
    cov = s[F["equity_luck"]] / n - mean * luck
    adjusted = var - cov * cov / var_luck
    assert adjusted < 0.5 * var


# --------------------------------------------------------------------------- truncation


@functools.cache
def gioul_tables(two_sided: bool = True) -> Tables:
    """Gioul bear-off tables (every double a chain) in the core's layout: 6x15 one-sided,
    6x6 two-sided."""
    one = OneSidedDB.build(6, 15, game="gioul")
    two = TwoSidedDB.build(6, game="gioul") if two_sided else None
    return Tables((one.points, one.checkers, {k: np.asarray(v) for k, v in one._a.items()}),
                  None if two is None else (two.points, two.checkers, two.total, np.asarray(two._equity), two._win))


def test_a_covered_race_is_scored_exactly_from_the_gioul_tables() -> None:
    race = GioulPosition.from_counts(counts({6: 2, 5: 1, 1: 2}), counts({6: 1, 4: 2, 2: 1, 1: 1}), BLACK,
                                     next_roll=(4, 4))
    exact = TwoSidedDB.build(6, game="gioul").equity(race)
    for color, sign in ((BLACK, 1.0), (WHITE, -1.0)):
        s = run(rows(race), 0, 72, color=color, tables=gioul_tables(), truncate=True).sums[0]
        assert s[F["truncated"]] == 72
        assert s[F["equity"]] / 72 == pytest.approx(sign * exact, abs=1e-12)
    assert OneSidedDB.build(6, 15, game="gioul").game == "gioul"


def test_truncation_only_where_every_double_is_a_chain() -> None:
    """A covered race is scored from the tables when a roll is due and both sides are at
    their fourth roll or later (what Gioul tables assume); earlier the game plays on."""
    tables = gioul_tables(two_sided=False)
    white, black = counts({6: 2, 5: 2, 4: 2, 3: 1}), counts({6: 2, 5: 2, 4: 2, 2: 1})
    late = GioulPosition.from_counts(white, black, WHITE, next_roll=(4, 4))
    b = run(rows(late), 0, 36, tables=tables, truncate=True)
    assert b.sums[0, F["truncated"]] == 36 and b.sums[0, F["plies"]] == 0
    early = GioulPosition.from_counts(white, black, WHITE, next_roll=(1, 4))
    b = run(rows(early), 0, 36, tables=tables, truncate=True)
    # truncated only once White has made its first three rolls (5 rolls in all), unless a
    # Black chain (Black is at its fourth roll) wins first
    assert b.sums[0, F["truncated"]] > 0 and np.all(b.lengths[0, :2] == 0)
    assert b.sums[0, F["truncated"]] + b.lengths[0, 2:5].sum() == 36 and b.lengths[0, 6:].sum() == 0
    assert run(rows(late), 0, 36, truncate=True).sums[0, F["truncated"]] == 0  # no tables: no truncation
    pending = GioulPosition.from_counts(white, black, WHITE, next_roll=(4, 4), dice="5 5", roller=WHITE)
    b = run(rows(pending), 0, 36, tables=tables, truncate=True)
    assert b.sums[0, F["truncated"]] == 36 and np.all(b.lengths[0, 1:] == 0)  # the pending dice first


# --------------------------------------------------------------------------- start states


def test_chain_and_hand_over_starts() -> None:
    """A pending chain that wins at once: no roll is made, the result is exact; a handed-over
    chain starts with the opponent's decision."""
    win = GioulPosition.from_counts(counts({1: 1}), counts({24: 15}), WHITE, next_roll=(4, 4),
                                    dice="5 5 6 6 6 6", roller=WHITE)
    b = run(rows(win), 0, 72)
    assert b.sums[0, F["equity"]] == 144 and b.sums[0, F["plies"]] == 0 and b.lengths[0, 0] == 72
    assert np.all(b.first[0, :, 0] == 2)  # counted in their strata's first roll
    black_view = run(rows(win), 0, 72, color=BLACK)
    assert black_view.sums[0, F["equity"]] == -144 and black_view.sums[0, F["lose_mars"]] == 72
    handed = GioulPosition.from_id(HANDED_OVER)
    assert handed.turn == BLACK and handed.roller == WHITE
    b = run(rows(handed), 0, 72, color=BLACK, policy=HEURISTIC)
    assert b.sums[0, F["games"]] == 72 and b.lengths[0, 0] == 0


def test_stop_flag_stops_before_the_next_game() -> None:
    b = Block(1)
    b.stop[0] = 1
    assert run_block(rows(GioulPosition.initial()), 1, 0, 100, *b.arrays()) == 0
    assert b.sums[0, F["games"]] == 0


# --------------------------------------------------------------------------- hostile input


def _field_row(**fields: int) -> bytes:
    row = bytearray(rows(GioulPosition.initial()))
    names = ("rolls_white", "rolls_black", "roller", "die", "count", "last", "pair")
    for name, value in fields.items():
        row[51 + names.index(name)] = value
    return bytes(row)


@pytest.mark.parametrize("fields, message", [
    ({"rolls_white": 4}, "roll count"),
    ({"die": 3}, "no pending dice"),
    ({"rolls_white": 1, "count": 1, "die": 9, "last": 9}, "not the rest of a roll"),
    ({"rolls_white": 1, "count": 5, "die": 3, "last": 3}, "not the rest of a roll"),
    ({"rolls_white": 1, "count": 1, "die": 3, "last": 3, "pair": 5}, "not the rest of a roll"),
    ({"rolls_white": 1, "count": 4, "die": 3, "last": 6}, "fourth roll"),
    ({"rolls_white": 3, "count": 4, "die": 3, "last": 5}, "not the rest of a roll"),
    ({"rolls_white": 0, "count": 4, "die": 3, "last": 3}, "made no roll"),
    ({"rolls_black": 1, "roller": 2, "count": 4, "die": 3, "last": 3}, "roller"),
    ({"rolls_white": 1, "count": 4, "die": 6, "last": 6}, "cannot play any of the pending dice"),
])
def test_bad_state_rows_are_refused(fields: dict[str, int], message: str) -> None:
    if fields.get("die") == 6 and fields.get("count") == 4:  # White cannot play 6s here: 18 is open, so block it
        row = bytearray(_field_row(**fields))
        black = counts({24: 14, 6: 1})  # Black's own 6 is White's printed/own 18
        row[25:50] = bytes(black)
        fields_row = bytes(row)
    else:
        fields_row = _field_row(**fields)
    with pytest.raises(InvalidPositionError, match=message):
        run(fields_row)


def test_hostile_arguments() -> None:
    good = rows(GioulPosition.initial())
    with pytest.raises(InvalidArgumentError, match="58 bytes"):
        run(good[:-1])
    with pytest.raises(InvalidArgumentError, match="58 bytes"):
        run(b"")
    with pytest.raises(InvalidPositionError):
        run(bytes(58))  # an empty board
    with pytest.raises(InvalidArgumentError, match="color"):
        run(good, color=2)
    with pytest.raises(InvalidArgumentError, match="policy"):
        run(good, policy=3)  # the bear-off policy is Fevga's
    with pytest.raises(InvalidArgumentError, match="need a net"):
        run(good, policy=5)  # "net" without a net
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        run_block(good, 1, -1, 10, *Block(1).arrays())
    with pytest.raises(InvalidArgumentError, match="shape"):
        run_block(good * 2, 1, 0, 10, *Block(1).arrays())
    with pytest.raises(InvalidArgumentError, match="scale"):
        run_block(good, 1, 0, 10, *Block(1).arrays(), scale=0.0)
    with pytest.raises(InvalidArgumentError, match="Tables"):
        run_block(good, 1, 0, 10, *Block(1).arrays(), tables=None)
    with pytest.raises(InvalidArgumentError, match="roll is due"):
        core.roll_values(rows(GioulPosition.from_id(HANDED_OVER)), FLAG_GIOUL, Tables(), SCALE)
    with pytest.raises(InvalidArgumentError, match="no callback"):
        core.run_block(good, WHITE, FLAG_GIOUL, RANDOM, RANDOM, lambda *_: 0, Tables(), None, None, False, False, SCALE,
                       True, 1, 0, 10, *Block(1).arrays())
    with pytest.raises(InvalidRulesError):  # a Fevga rule bit beside FLAG_GIOUL
        core.run_block(good, WHITE, FLAG_GIOUL | 1, RANDOM, RANDOM, None, Tables(), None, None, False, False, SCALE,
                       True, 1, 0, 10, *Block(1).arrays())
    with pytest.raises(InvalidArgumentError, match="58 bytes"):
        core.value(good[:51], WHITE, Tables(), SCALE, flags=FLAG_GIOUL)
    # At the start no side has made a roll: the Gioul evaluator is the heuristic's, like Fevga's without tables
    assert core.value(good, WHITE, Tables(), SCALE, flags=FLAG_GIOUL) == core.value(good[:51], WHITE, Tables(), SCALE)
    finished = GioulPosition.from_counts([15] + [0] * 24, counts({24: 15}), BLACK)
    b = run(rows(finished), 0, 36)  # a finished start is scored at once
    assert b.sums[0, F["equity"]] == 72 and b.sums[0, F["plies"]] == 0


def test_match_weights_value_gioul_games_like_fevga_ones() -> None:
    """The Gioul runner takes the Fevga runner's match weights: weights (0, 1, 0, 0, 0) value a
    game by its win, and the cross sums take those values."""
    start = GioulPosition.initial()
    b = Block(2)
    run_block(rows(start, start), 3, 0, 72, *b.arrays(), np.array([0.0, 1.0, 0.0, 0.0, 0.0]))
    assert np.array_equal(b.sums[:, F["match"]], b.sums[:, F["win"]])
    assert np.all(b.cross == b.sums[0, F["win"]])  # win is 0 or 1: its square is itself
    with pytest.raises(InvalidArgumentError, match="match_weights"):
        run_block(rows(start), 3, 0, 72, *Block(1).arrays(), np.zeros(4))


# --------------------------------------------------------------------------- the public API


def test_truncated_rollout_with_the_gioul_tables() -> None:
    race = GioulPosition.from_counts(counts({6: 2, 5: 1, 1: 2}), counts({6: 1, 4: 2, 2: 1, 1: 1}), BLACK,
                                     next_roll=(4, 4))
    exact = TwoSidedDB.build(6, game="gioul").equity(race)
    r = rollout(race, games=72, seed=1, truncate=True, progress=False)
    assert r.truncated_games == 72 and r.equity == pytest.approx(exact, abs=1e-12) and r.mean_length == 0
    # Played out instead: in a two-checker race the heuristic plays (nearly) the tables' optimal
    # play, so the engine's games agree with the table (in the race above it loses ~0.1 to it).
    small = GioulPosition.from_counts(counts({6: 1, 5: 1}), counts({4: 1, 3: 1}), BLACK, next_roll=(4, 4))
    played = rollout(small, games=3 * STRATA, seed=1, workers=2, progress=False)
    assert abs(played.equity - TwoSidedDB.build(6, game="gioul").equity(small)) < 3 * played.equity_se
    with pytest.raises(BearoffFileError, match="Fevga table"):
        rollout(race, games=36, truncate=True, bearoff=TwoSidedDB.build(2), progress=False)
    custom = rollout(race, games=36, seed=1, truncate=True, one_sided=OneSidedDB.build(6, 15, game="gioul"),
                     bearoff=TwoSidedDB.build(6, game="gioul"), progress=False)
    assert custom.equity == pytest.approx(exact, abs=1e-12)


def test_rank_chosen_moves_and_a_pending_decision() -> None:
    """(Every move of a roll ranked, each a rollout of its position, and stopping early:
    test_rollout.py's test_ranked_moves_are_rollouts_of_their_positions[gioul].)"""
    start = GioulPosition.initial()
    chosen = rollout_moves(start, "5-5", games=72, seed=3, policy="random", moves=["24/4", "24/19(4)"], progress=False)
    assert sorted(m.move.notation for m in chosen) == ["24/19(4)", "24/4"]
    handed = GioulPosition.from_id(HANDED_OVER)
    pending = rollout_moves(handed, games=72, seed=3, policy="heuristic", progress=False)
    assert {m.move.notation for m in pending} == {m.notation for m in handed.legal_moves()}


def test_a_move_that_wins_at_once_ranks_first() -> None:
    """White's last checker on its 1 and its chain pending: bearing it off wins 2 points now."""
    state = GioulPosition.from_counts(counts({1: 1, 6: 1}), counts({24: 15}), WHITE, next_roll=(4, 4), dice="6 6 6 6",
                                      roller=WHITE)
    ranked = rollout_moves(state, games=36, seed=1, policy="random", progress=False)
    assert ranked[0].result.equity == 2.0 and ranked[0].move.position.winner() == WHITE


def test_api_refusals() -> None:
    start = GioulPosition.initial()
    for policy in ("lookahead", "bearoff", lambda position, dice, moves: moves[0]):
        with pytest.raises(InvalidArgumentError, match="cannot play Gioul"):
            rollout(start, games=36, policy=policy, progress=False)  # type: ignore[arg-type]
    with pytest.raises(NetGameError):  # a Fevga net for a Gioul rollout
        rollout(start, games=36, policy="net", net=Net.default(), progress=False)
    with pytest.raises(InvalidArgumentError, match="match score"):
        rollout(start, games=36, score=(0, 0), length=3, progress=False)
    with pytest.raises(InvalidRulesError):
        rollout(start, games=36, rules=Rules(), progress=False)
    with pytest.raises(NetGameError):  # candidates are ranked by the rollout's net: a Gioul one
        rollout_moves(start, "6-5", games=36, candidates=1, net=Net.default(), progress=False)
    with pytest.raises(IllegalMoveError):
        rollout_moves(start, "6-5", games=36, moves=["24/18 18/13 13/7"], progress=False)
    with pytest.raises(InvalidArgumentError, match="twice"):
        rollout_moves(start, "6-5", games=36, moves=["24/13", "24/18/13"], progress=False)
    with pytest.raises(InvalidDiceError):
        rollout_moves(GioulPosition.from_id(HANDED_OVER), "6-5", games=36, progress=False)
    with pytest.raises(InvalidDiceError):
        rollout_moves(start, None, games=36, progress=False)
    with pytest.raises(InvalidArgumentError, match="GioulPosition"):
        rollout(start.id, games=36)  # type: ignore[arg-type]
