"""One targeted test per rule of docs/rules.md §3-§8 and per variant option of §9, plus the
worked examples of §10 (positions in own numbering; see tests/boards.py)."""

from __future__ import annotations

import pytest

from boards import START, counts, make, mover_results
from fevga import BLACK, WHITE, Position, Rules, perft
from fevga.game import play_game

STRICT = Rules.strict()


def notations(position: Position, dice: tuple[int, int], rules: Rules | None = None) -> list[str]:
    return sorted(m.notation for m in position.legal_moves(dice, rules))


# --- §10 worked examples -------------------------------------------------------------

def test_example_1_start_6_5() -> None:
    moves = Position.initial().legal_moves((6, 5))
    assert [m.notation for m in moves] == ["24/13"]


def test_example_2_start_6_6_loses_three_sixes() -> None:
    moves = Position.initial().legal_moves((6, 6))
    assert [m.notation for m in moves] == ["24/18"]
    assert len(moves[0].steps) == 1


def test_example_3_start_5_5() -> None:
    assert notations(Position.initial(), (5, 5)) == ["24/4", "24/9 24/19"]


@pytest.mark.parametrize("dice, expected", [((4, 4), "24/16"), ((3, 3), "24/15"), ((2, 2), "24/16"), ((1, 1), "24/20")])
def test_example_4_start_small_doubles(dice: tuple[int, int], expected: str) -> None:
    assert notations(Position.initial(), dice) == [expected]


@pytest.mark.parametrize("a", range(1, 7))
@pytest.mark.parametrize("b", range(1, 7))
def test_example_5_start_non_doubles(a: int, b: int) -> None:
    if a == b:
        return
    assert notations(Position.initial(), (a, b)) == [f"24/{24 - a - b}"]


def test_example_6_full_turn_before_bearing_off() -> None:
    position = make({3: 1}, START)
    moves = position.legal_moves((3, 1))
    assert len(moves) == 1
    assert moves[0].steps == ((3, 2), (2, 0))
    assert moves[0].position.winner() == WHITE


def test_example_7_six_never_bears_off_the_two_while_five_is_occupied() -> None:
    position = make({5: 1, 2: 1}, START)
    results = mover_results(position, (6, 1))
    assert results == {tuple(counts({1: 1})), tuple(counts({2: 1}))}


def test_example_8_two_bear_offs() -> None:
    position = make({1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2}, START)
    assert "6/off 5/off" in notations(position, (6, 5))


TRAPPING_WHITE = {11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 5: 3}


def test_example_9_trapped_black_has_no_move_and_white_must_open() -> None:
    position = make(TRAPPING_WHITE, START)
    black_view = Position.from_counts(position.counts(WHITE), position.counts(BLACK), BLACK)
    assert not black_view.can_move(BLACK)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            for move in position.legal_moves((d1, d2)):
                after = move.position.counts(WHITE)
                assert any(after[p] == 0 for p in range(6, 12)), (d1, d2, move.notation)


# --- §3 moving -----------------------------------------------------------------------

def test_one_opposing_checker_closes_a_point() -> None:
    # Black's single checker on its own 22 is White's own 10; Black's mother is White's 12.
    position = make({24: 14, 13: 1}, {24: 14, 22: 1})
    assert [m.is_pass for m in position.legal_moves((3, 1))] == [True]


def test_checkers_jump_over_closed_points_but_land_only_on_open_ones() -> None:
    # Black on its own 6 closes White's 18: 6-5 from the start must go via 19.
    position = make(START, {24: 14, 6: 1})
    moves = position.legal_moves((6, 5))
    assert [m.steps for m in moves] == [((24, 19), (19, 13))]
    # With White's 19 closed too (Black's own 7), neither die can be played.
    blocked = make(START, {24: 13, 6: 1, 7: 1})
    assert [m.is_pass for m in blocked.legal_moves((6, 5))] == [True]


def test_moves_go_forward_only() -> None:
    for move in make({24: 10, 16: 3, 9: 2}, START).legal_moves((4, 2)):
        for source, target in move.steps:
            assert target < source


# --- §4 mother rule ---------------------------------------------------------------

def test_only_the_first_checker_moves_before_release() -> None:
    position = make({24: 14, 20: 1}, START)
    assert mover_results(position, (2, 1)) == {tuple(counts({24: 14, 17: 1}))}


def test_release_is_per_die() -> None:
    # 13/11 releases, so the 1 may then start a second checker.
    position = make({24: 14, 13: 1}, START)
    assert mover_results(position, (2, 1)) == {
        tuple(counts({24: 14, 10: 1})),
        tuple(counts({24: 13, 23: 1, 11: 1})),
    }


RELEASE_AT_12 = ({24: 14, 14: 1}, {1: 15})  # Black's checkers close White's 13 only


def test_reaching_point_12_does_not_release_by_default() -> None:
    position = make(*RELEASE_AT_12)
    assert mover_results(position, (2, 1)) == {tuple(counts({24: 14, 11: 1}))}


def test_release_reach_variant_releases_at_12() -> None:
    position = make(*RELEASE_AT_12)
    assert mover_results(position, (2, 1), Rules(release="reach")) == {
        tuple(counts({24: 14, 11: 1})),
        tuple(counts({24: 13, 23: 1, 12: 1})),
    }


# --- §5.1 start quarter -----------------------------------------------------------

QUARTER = ({24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 10: 2}, {24: 14, 6: 1})  # White's 18 closed


def test_start_quarter_never_filled_after_any_die() -> None:
    position = make(*QUARTER)
    # 24/19 would fill 19-24; 24/18 is closed: the checker cannot reach 13 from 24.
    assert tuple(counts({24: 8, 23: 1, 22: 1, 21: 1, 20: 1, 13: 1, 10: 2})) not in mover_results(position, (6, 5))
    for move in position.legal_moves((6, 5)):
        after = move.position.counts(WHITE)
        assert not all(after[p] for p in range(19, 25))


def test_start_quarter_end_of_turn_variant_allows_passing_through() -> None:
    rules = Rules(start_quarter_check="end_of_turn")
    results = mover_results(make(*QUARTER), (6, 5), rules)
    assert tuple(counts({24: 8, 23: 1, 22: 1, 21: 1, 20: 1, 13: 1, 10: 2})) in results
    for after in results:
        assert not all(after[p] for p in range(19, 25))


def test_ban_prime_before_opponent_mother_variant() -> None:
    # White holds its own 11, 10, 9, 8, 7; 12/6 would complete 6-11.
    white = {24: 5, 12: 1, 11: 2, 10: 2, 9: 2, 8: 2, 7: 1}
    position = make(white, {1: 15})
    assert any(all(after[p] for p in range(6, 12)) for after in mover_results(position, (6, 6)))
    banned = mover_results(position, (6, 6), Rules(ban_prime_before_opponent_mother=True))
    assert banned and not any(all(after[p] for p in range(6, 12)) for after in banned)


def test_six_prime_in_front_of_the_opponents_mother_is_legal_by_default() -> None:
    # Black's own 23-18 are White's own 11-6; 12/6 completes them.
    position = make({24: 9, 12: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1}, {1: 15})
    assert any(all(a[p] for p in range(6, 12)) for a in mover_results(position, (6, 1)))


# --- §5.2 trapped army --------------------------------------------------------------

def test_trapped_obligation_needs_all_fifteen_on_one_point() -> None:
    position = make(TRAPPING_WHITE, {24: 14, 1: 1})
    results = mover_results(position, (1, 1))
    assert any(all(a[p] for p in range(6, 12)) for a in results)
    trapped = mover_results(make(TRAPPING_WHITE, START), (1, 1))
    assert trapped and all(not all(a[p] for p in range(6, 12)) for a in trapped)


def test_trapper_must_open_when_a_sequence_opens() -> None:
    # Moves that keep all of 11-6 (e.g. 10/4 6/1) are dropped; with 14 trapped they stay.
    white = {11: 1, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 4: 4}
    black = START
    position = make(white, black)
    results = mover_results(position, (6, 5))
    assert results
    assert all(any(after[p] == 0 for p in range(6, 12)) for after in results)
    assert tuple(counts({11: 1, 10: 1, 9: 2, 8: 2, 7: 2, 6: 1, 4: 5, 1: 1})) not in results
    assert any(all(a[p] for p in range(6, 12)) for a in mover_results(make(white, {24: 14, 1: 1}), (6, 5)))


# --- §6 using the dice ---------------------------------------------------------------

EITHER_DIE = ({24: 14, 11: 1}, {24: 13, 6: 1, 7: 1})  # White's 18 and 19 closed


def test_when_only_one_die_can_be_played_the_larger_is_played() -> None:
    assert notations(make(*EITHER_DIE), (6, 5)) == ["11/5"]


def test_when_only_the_smaller_die_can_be_played_it_is_played() -> None:
    white, black = EITHER_DIE
    position = make(white, {24: 12, 6: 1, 7: 1, 17: 1})  # White's 5 closed as well
    assert notations(position, (6, 5)) == ["11/6"]


def test_both_dice_must_be_played_when_possible() -> None:
    for move in make({24: 13, 10: 1, 8: 1}, START).legal_moves((4, 3)):
        assert len(move.steps) == 2


def test_doubles_play_as_many_as_possible() -> None:
    position = make({24: 14, 19: 1}, START)  # not released: 19/14/9 then 9/4, the 4th from the mother
    move_lengths = {len(m.steps) for m in position.legal_moves((5, 5))}
    assert move_lengths == {4}


def test_pass_only_when_no_die_can_be_played() -> None:
    moves = make({24: 14, 13: 1}, {24: 14, 22: 1}).legal_moves((3, 1))
    assert len(moves) == 1 and moves[0].is_pass and moves[0].notation == "pass"
    assert moves[0].position.turn == BLACK


def test_sequences_reaching_the_same_position_are_one_move() -> None:
    position = make({24: 13, 16: 1, 10: 1}, START)
    moves = position.legal_moves((3, 2))
    assert len({m.position for m in moves}) == len(moves)


# --- §7 bearing off ------------------------------------------------------------------

def test_bearing_off_needs_every_checker_home() -> None:
    position = make({10: 1, 5: 14}, START)
    assert mover_results(position, (6, 5)) == {
        tuple(counts({5: 14})),           # 10/5 5/off
        tuple(counts({5: 13, 4: 1})),     # 10/4 5/off
    }


def test_larger_die_bears_off_from_the_highest_point_only() -> None:
    position = make({4: 1, 2: 1}, START)
    assert tuple(counts({4: 1})) not in mover_results(position, (6, 6))
    assert mover_results(position, (6, 5)) == {tuple(counts({}))}


def test_bearing_off_is_not_compulsory() -> None:
    position = make({6: 1, 5: 2}, START)
    results = mover_results(position, (1, 1))
    assert tuple(counts({5: 2, 2: 1})) in results


def test_game_ends_with_the_fifteenth_checker() -> None:
    position = make({1: 1}, START)
    moves = position.legal_moves((6, 6))
    assert [len(m.steps) for m in moves] == [1]
    assert moves[0].position.is_game_over() and moves[0].position.legal_moves((3, 2)) == []


# --- §8 winning, scoring, dead positions -------------------------------------------

def test_single_win_and_mars() -> None:
    won = make({}, {24: 10, 3: 4})
    assert won.winner() == WHITE and won.points() == 1
    mars = make({}, {3: 15})
    assert mars.winner() == WHITE and mars.points() == 2
    assert Position.initial().winner() is None and Position.initial().points() == 0


DEAD = ({24: 14, 13: 1}, {24: 5, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2})


def test_dead_position_is_a_draw() -> None:
    # White's lone runner faces Black's 19-24 (White's 12-7); every Black move would
    # leave Black's own start quarter full, so neither side can ever move.
    position = make(*DEAD)
    assert position.is_dead() and position.is_game_over() and position.winner() is None
    record = play_game(seed=1, start=position)
    assert record.result == "draw" and record.points == 0 and record.plies == ()
    assert not Position.initial().is_dead()


# --- §9 variants and presets ------------------------------------------------------------

def test_strict_preset() -> None:
    assert Rules.strict() == Rules(release="reach", ban_prime_before_opponent_mother=True, must_open="no_playable_roll")


def test_no_playable_roll_variant_keeps_the_opponent_alive() -> None:
    # White can complete Black's 23-18 (White's 11-6) with 7/6; strict forbids leaving
    # Black without any playable roll when another sequence avoids it.
    white = {24: 3, 12: 0, 11: 2, 10: 2, 9: 2, 8: 2, 7: 3, 2: 1}
    position = make(white, START)
    default = mover_results(position, (1, 1))
    assert any(all(a[p] for p in range(6, 12)) for a in default)
    for move in position.legal_moves((1, 1), Rules(must_open="no_playable_roll")):
        assert move.position.can_move(BLACK)


def test_opening_dice_variant_first_roll_is_never_a_double() -> None:
    rules = Rules(first_roll="opening_dice")
    for seed in range(200):
        record = play_game(seed=seed, rules=rules)
        assert record.opening_dice is not None
        first = record.plies[0]
        assert first.dice[0] != first.dice[1]
        starter_die = max(record.opening_dice)
        assert first.dice == (starter_die, min(record.opening_dice))
        assert first.turn == (WHITE if record.opening_dice[0] > record.opening_dice[1] else BLACK)


def test_fresh_first_roll_can_be_a_double_and_higher_die_starts() -> None:
    doubles = 0
    for seed in range(300):
        record = play_game(seed=seed)
        assert record.opening_dice is not None and record.opening_dice[0] != record.opening_dice[1]
        assert record.plies[0].turn == (WHITE if record.opening_dice[0] > record.opening_dice[1] else BLACK)
        doubles += record.plies[0].dice[0] == record.plies[0].dice[1]
    assert 20 <= doubles <= 85  # expected 50 of 300


@pytest.mark.parametrize("depth, expected", [(1, 22), (2, 479), (3, 21893)])
def test_perft_from_the_start(depth: int, expected: int) -> None:
    assert perft(Position.initial(), depth) == expected
