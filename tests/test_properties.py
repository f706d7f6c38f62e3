"""Property tests (hypothesis): conservation, exclusivity, round trips and key equality."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fevga import BLACK, WHITE, Position, Rules
from fevga import batch
from fevga.game import play_game
from fevga.notation import other_point
from fevga_core.board import zobrist_entry, zobrist_turn_key

RULESETS = [Rules(), Rules.strict(), Rules(start_quarter_check="end_of_turn"), Rules(release="reach")]


@st.composite
def random_positions(draw: st.DrawFn) -> Position:
    """Any structurally valid position: both armies spread over disjoint points."""
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    taken: set[int] = set()
    for color in (WHITE, BLACK):
        left = 15
        points = draw(st.lists(st.integers(1, 24), min_size=1, max_size=10, unique=True))
        for point in points:
            printed = point if color == WHITE else other_point(point)
            if printed in taken or left == 0:
                continue
            n = draw(st.integers(1, left))
            sides[color][point] = n
            taken.add(printed)
            left -= n
        sides[color][0] = left
    if sides[WHITE][0] == 15 and sides[BLACK][0] == 15:
        sides[BLACK][0], sides[BLACK][24 if 12 not in taken else 1] = 14, 1
    return Position.from_counts(sides[WHITE], sides[BLACK], draw(st.sampled_from([WHITE, BLACK])))


@st.composite
def game_positions(draw: st.DrawFn) -> Position:
    """A position from a seeded random self-play game."""
    record = play_game(seed=draw(st.integers(0, 2**32)))
    positions = record.positions()
    return positions[draw(st.integers(0, len(positions) - 1))]


positions = st.one_of(random_positions(), game_positions())
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=300, deadline=None)
@given(positions, dice, st.sampled_from(RULESETS))
def test_moves_conserve_checkers_and_keep_points_exclusive(pos: Position, roll: tuple[int, int], rules: Rules) -> None:
    moves = pos.legal_moves(roll, rules)
    if pos.winner() is not None:
        assert moves == []
        return
    assert moves, "a live position always has at least the pass"
    mover, other = pos.turn, 1 - pos.turn
    for move in moves:
        after = move.position
        assert sum(after.counts(mover)) == 15 and after.counts(other) == pos.counts(other)
        assert after.turn == other
        # re-validating through the checked constructor proves no point is held by both
        assert Position.from_counts(after.counts(WHITE), after.counts(BLACK), after.turn) == after
        assert after.pips(mover) <= pos.pips(mover)
        assert len(move.steps) <= (4 if roll[0] == roll[1] else 2)
    assert len({m.position for m in moves}) == len(moves)
    assert len({len(m.steps) for m in moves}) == 1, "every legal move plays the same number of dice"


@settings(max_examples=300, deadline=None)
@given(positions)
def test_id_and_json_round_trip(pos: Position) -> None:
    assert len(pos.id) == 16
    assert Position.from_id(pos.id) == pos
    assert Position.from_json(pos.to_json()) == pos
    assert eval(repr(pos), {"Position": Position}) == pos


@settings(max_examples=200, deadline=None)
@given(positions, dice)
def test_notation_round_trips(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.legal_moves(roll):
        assert pos.parse_move(move.notation, roll) == move
        assert pos.play(move.notation, roll) == move.position


@settings(max_examples=300, deadline=None)
@given(positions, dice)
def test_incremental_key_equals_recomputed_key(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.legal_moves(roll):
        rebuilt = Position.from_counts(move.position.counts(WHITE), move.position.counts(BLACK), move.position.turn)
        assert rebuilt.zobrist == move.position.zobrist and hash(rebuilt) == hash(move.position)


def _replay_key(pos: Position, steps: tuple[tuple[int, int], ...]) -> int:
    """Key after `steps`, updated one step at a time from the documented table."""
    color, key = pos.turn, pos.zobrist ^ zobrist_turn_key()
    side = list(pos.counts(color))
    for source, target in steps:
        for slot, delta in ((source, -1), (target, +1)):
            key ^= zobrist_entry(color, slot, side[slot]) ^ zobrist_entry(color, slot, side[slot] + delta)
            side[slot] += delta
    return key


@settings(max_examples=200, deadline=None)
@given(positions, dice)
def test_equal_positions_reached_by_different_move_orders_have_equal_keys(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.legal_moves(roll):
        orders = set(itertools.permutations(move.steps))
        keys = {_replay_key(pos, order) for order in orders if _is_sequence(pos, order)}
        assert keys == {move.position.zobrist}


def _is_sequence(pos: Position, steps: tuple[tuple[int, int], ...]) -> bool:
    side = list(pos.counts(pos.turn))
    for source, target in steps:
        if side[source] == 0:
            return False
        side[source] -= 1
        side[target] += 1
    return True


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(positions, dice), min_size=1, max_size=20), st.sampled_from(RULESETS))
def test_batch_matches_single_calls(pairs: list[tuple[Position, tuple[int, int]]], rules: Rules) -> None:
    rows = batch.to_array(p for p, _ in pairs)
    rolls = np.array([r for _, r in pairs], dtype=np.uint8)
    counts = batch.count_legal_moves(rows, rolls, rules)
    result = batch.legal_moves(rows, rolls, rules)
    assert counts.tolist() == result.counts().tolist()
    for i, (pos, roll) in enumerate(pairs):
        expected = pos.legal_moves(roll, rules)
        got = batch.from_array(result.results[result.offsets[i]:result.offsets[i + 1]])
        assert got == [m.position for m in expected]
        steps = [tuple(map(tuple, result.steps[k][: result.nsteps[k]])) for k in range(result.offsets[i], result.offsets[i + 1])]
        assert steps == [m.steps for m in expected]


def _steps_are_die_by_die(me: tuple[int, ...], closed: list[bool], steps: tuple[tuple[int, int], ...],
                          remaining: tuple[int, ...], rules: dict[str, object], final: tuple[int, ...]) -> bool:
    """Whether `steps` can be played one die of `remaining` at a time, each step legal on its
    own by the independent reference (tests/reference.py `_single_die`), ending on `final`."""
    import reference

    if not steps:
        return me == final
    (source, target), rest = steps[0], steps[1:]
    for die in sorted(set(remaining)):
        if target > 0 and source - target != die or target == 0 and die < source:
            continue
        after = list(me)
        after[source] -= 1
        after[target] += 1
        if tuple(after) not in set(reference._single_die(me, closed, die, rules)):
            continue
        left = list(remaining)
        left.remove(die)
        if _steps_are_die_by_die(tuple(after), closed, rest, tuple(left), rules, final):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(positions, dice, st.sampled_from(RULESETS))
def test_every_move_steps_is_a_legal_die_by_die_sequence(pos: Position, roll: tuple[int, int], rules: Rules) -> None:
    import reference

    ref_rules = reference.full_rules(rules.to_dict())
    mover = pos.turn
    me, op = pos.counts(mover), pos.counts(1 - mover)
    closed = reference._closed_points(op)
    all_dice = (roll[0],) * 4 if roll[0] == roll[1] else roll
    for move in pos.legal_moves(roll, rules):
        assert len(move.steps) <= len(all_dice)
        assert _steps_are_die_by_die(me, closed, move.steps, all_dice, ref_rules, move.position.counts(mover)), (
            pos.id, roll, move.steps)
