"""Tests of the pure-Python reference (tests/reference.py) against docs/rules.md.

Every worked example of docs/rules.md section 10 is checked here, plus the perft numbers and
small hand-derived cases for each rule and variant. The reference is then trusted as the
oracle of tests/test_crosscheck.py.
"""

from __future__ import annotations


import pytest

import reference as ref
from reference import BLACK, WHITE, Counts, side

START = (0,) * 24 + (15,)
REACH = {"release": "reach"}
END_OF_TURN = {"start_quarter_check": "end_of_turn"}
BAN_PRIME = {"ban_prime_before_opponent_mother": True}
NO_PLAYABLE = {"must_open": "no_playable_roll"}


def white_results(white: Counts, black: Counts, dice: tuple[int, int], rules: dict | None = None) -> set[Counts]:
    """White's final counts of every legal move (Black is unchanged by a White move)."""
    results = ref.legal_results(white, black, WHITE, dice, rules)
    assert all(b == black for _, b in results)
    return {w for w, _ in results}


def black_results(white: Counts, black: Counts, dice: tuple[int, int], rules: dict | None = None) -> set[Counts]:
    results = ref.legal_results(white, black, BLACK, dice, rules)
    assert all(w == white for w, _ in results)
    return {b for _, b in results}


# --------------------------------------------------------------------------- basics


def test_initial_and_rolls() -> None:
    assert ref.initial() == (START, START)
    assert len(ref.ROLLS) == 21 and len(set(ref.ROLLS)) == 21


def test_numbering() -> None:
    # Black's own k is printed k+12 (k <= 12) or k-12; printed = White's own numbering.
    for k in range(1, 25):
        printed = k + 12 if k <= 12 else k - 12
        assert ref.opposite_point(k) == printed
        assert ref.opposite_point(ref.opposite_point(k)) == k
    assert ref.opposite_point(24) == 12  # Black's mother is printed 12


def test_rules_validation() -> None:
    assert ref.full_rules(None) == ref.DEFAULT_RULES
    with pytest.raises(ValueError):
        ref.full_rules({"release": "never"})
    with pytest.raises(ValueError):
        ref.full_rules({"no_such_option": 1})


def test_rejects_shared_points() -> None:
    with pytest.raises(ValueError):
        ref.legal_results(side({24: 14, 12: 1}), START, WHITE, (1, 2))  # White on Black's mother
    with pytest.raises(ValueError):
        ref.legal_results(START, (0,) * 25, WHITE, (1, 2))


@pytest.mark.parametrize(("depth", "expected"), [(1, 22), (2, 479), (3, 21_893)])
def test_perft_from_start(depth: int, expected: int) -> None:
    assert ref.perft(START, START, WHITE, depth) == expected


def test_perft_black_mirror() -> None:
    # The start is symmetric: Black on roll sees the same tree.
    assert ref.perft(START, START, BLACK, 2) == 479


# --------------------------------------------------------------------------- section 10 vectors


def test_vector_1_start_6_5() -> None:
    assert white_results(START, START, (6, 5)) == {side({24: 14, 13: 1})}
    assert white_results(START, START, (5, 6)) == {side({24: 14, 13: 1})}


def test_vector_2_start_6_6_loses_three_sixes() -> None:
    assert white_results(START, START, (6, 6)) == {side({24: 14, 18: 1})}


def test_vector_3_start_5_5() -> None:
    assert white_results(START, START, (5, 5)) == {side({24: 14, 4: 1}), side({24: 13, 19: 1, 9: 1})}


@pytest.mark.parametrize(("die", "target"), [(4, 16), (3, 15), (2, 16), (1, 20)])
def test_vector_4_start_doubles(die: int, target: int) -> None:
    assert white_results(START, START, (die, die)) == {side({24: 14, target: 1})}


@pytest.mark.parametrize("dice", [(a, b) for a, b in ref.ROLLS if a != b])
def test_vector_5_start_non_doubles(dice: tuple[int, int]) -> None:
    a, b = dice
    expected = {side({24: 14, 24 - a - b: 1})}
    assert white_results(START, START, (a, b)) == expected
    assert black_results(START, START, (b, a)) == expected


def test_vector_6_full_turn_before_bearing_off_at_once() -> None:
    white = side({0: 14, 3: 1})
    assert white_results(white, START, (3, 1)) == {side({0: 15})}
    # ...and it is the two-dice sequence 3/2 2/off: the one-die 3/off is not legal.
    assert white_results(white, START, (1, 3)) == {side({0: 15})}


def test_vector_7_larger_die_from_highest_point_only() -> None:
    white = side({0: 13, 5: 1, 2: 1})
    expected = {side({0: 14, 1: 1}), side({0: 14, 2: 1})}
    assert white_results(white, START, (6, 1)) == expected


def test_vector_8_bear_off_two() -> None:
    white = side({0: 6, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2})
    assert side({0: 8, 1: 1, 2: 1, 3: 1, 4: 2, 5: 1, 6: 1}) in white_results(white, START, (6, 5))


def test_vector_9_trapped_army_must_be_opened() -> None:
    black = START  # all 15 on Black's mother (printed 12)
    white = side({6: 2, 7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 13: 3})  # printed 11..6 held
    assert not ref.has_any_move(white, black, BLACK)
    for dice in ref.ROLLS:
        assert ref.legal_results(white, black, BLACK, dice) == {(white, black)}  # Black passes
        results = white_results(white, black, dice)
        assert results
        for w in results:
            assert any(w[p] == 0 for p in range(6, 12)), (dice, w)
    # The obligation matters: without it (only 14 trapped) 4-4 could keep the block.
    fourteen = side({24: 14, 2: 1})  # Black's 2 is White's 14
    kept = [w for w in white_results(white, fourteen, (4, 4)) if all(w[p] for p in range(6, 12))]
    assert kept


# --------------------------------------------------------------------------- moving


def test_one_opposing_checker_closes_a_point() -> None:
    black = side({24: 14, 6: 1})  # Black's own 6 is White's 18
    assert white_results(START, black, (6, 6)) == {side({24: 15})}  # pass: 24/18 is closed
    assert white_results(START, black, (6, 1)) == {side({24: 14, 17: 1})}  # via 23 only


def test_intermediate_landing_must_be_open() -> None:
    black = side({24: 13, 6: 1, 5: 1})  # White's 18 and 17 closed
    # 6-1 from the start: 24/18 and 24/23/17 both need a closed point.
    assert white_results(START, black, (6, 1)) == {side({24: 14, 23: 1})}


def test_pass_keeps_position() -> None:
    black = side({24: 9, 6: 1, 5: 1, 4: 1, 3: 1, 2: 1, 1: 1})  # White's 18..13 closed
    white = side({24: 14, 19: 1})
    assert ref.legal_results(white, black, WHITE, (6, 6)) == {(white, black)}


# --------------------------------------------------------------------------- the full-turn rule


def test_larger_die_when_only_one_can_be_played() -> None:
    black = side({24: 14, 1: 1})  # closes White's 13
    white = side({24: 14, 20: 1})  # not released: only the runner may move
    assert white_results(white, black, (4, 3)) == {side({24: 14, 16: 1})}
    assert white_results(white, black, (3, 4)) == {side({24: 14, 16: 1})}


def test_smaller_die_when_the_larger_cannot_be_played() -> None:
    black = side({24: 13, 1: 1, 4: 1})  # closes White's 13 and 16
    white = side({24: 14, 20: 1})
    assert white_results(white, black, (4, 3)) == {side({24: 14, 17: 1})}


# --------------------------------------------------------------------------- mother rule


def test_mother_rule_single_runner() -> None:
    white = side({24: 14, 16: 1})
    assert white_results(white, START, (2, 1)) == {side({24: 14, 13: 1})}


def test_release_pass_versus_reach_at_12() -> None:
    black = side({13: 15})  # Black has left its mother: White's 12 is open
    white = side({24: 14, 14: 1})
    assert white_results(white, black, (2, 1)) == {side({24: 14, 11: 1})}
    assert white_results(white, black, (2, 1), REACH) == {
        side({24: 14, 11: 1}),
        side({24: 13, 23: 1, 12: 1}),
    }


def test_release_at_11_per_die() -> None:
    black = side({13: 15})
    white = side({24: 14, 13: 1})
    assert white_results(white, black, (2, 1)) == {side({24: 13, 23: 1, 11: 1}), side({24: 14, 10: 1})}
    assert white_results(white, black, (2, 1), REACH) == {
        side({24: 13, 23: 1, 11: 1}),
        side({24: 13, 22: 1, 12: 1}),
        side({24: 14, 10: 1}),
    }


# --------------------------------------------------------------------------- six-primes


def _quarter_position() -> tuple[Counts, Counts]:
    white = side({24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1})  # own 19 empty, released
    black = side({24: 14, 6: 1})  # closes White's 18
    return white, black


VIA_19 = side({24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 13: 1, 5: 1})  # 24/19/13 (24/18 is closed)


def test_start_quarter_each_die() -> None:
    white, black = _quarter_position()
    for dice in ref.ROLLS:
        for w in white_results(white, black, dice):
            assert not all(w[p] for p in range(19, 25)), (dice, w)
    assert VIA_19 not in white_results(white, black, (5, 6))


def test_start_quarter_end_of_turn() -> None:
    white, black = _quarter_position()
    assert VIA_19 in white_results(white, black, (5, 6), END_OF_TURN)
    for dice in ref.ROLLS:
        for w in white_results(white, black, dice, END_OF_TURN):
            assert not all(w[p] for p in range(19, 25)), (dice, w)


PRIME_WHITE = side({6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 13: 1, 3: 9})


def test_ban_prime_each_die() -> None:
    closes_11 = side({6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 2: 1, 3: 8})  # 13/11 3/2
    assert closes_11 in white_results(PRIME_WHITE, START, (2, 1))  # allowed by default
    banned = white_results(PRIME_WHITE, START, (2, 1), BAN_PRIME)
    assert banned and closes_11 not in banned
    assert all(not all(w[p] for p in range(6, 12)) for w in banned)


def test_ban_prime_end_of_turn() -> None:
    through_11 = side({6: 1, 7: 1, 8: 1, 9: 1, 10: 2, 3: 9})  # 13/11/10; 13/12 is closed
    assert through_11 in white_results(PRIME_WHITE, START, (2, 1))
    assert through_11 not in white_results(PRIME_WHITE, START, (2, 1), BAN_PRIME)
    assert through_11 in white_results(PRIME_WHITE, START, (2, 1), {**BAN_PRIME, **END_OF_TURN})


# --------------------------------------------------------------------------- rule 5.2

ARMY_ON_7 = side({19: 15})  # Black's own 19 = White's 7
TRAPPING = side({6: 1, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 4})  # White holds its 1-6
OPENED = side({5: 3, 4: 2, 3: 2, 2: 2, 1: 2, 13: 4})  # 6/5


def test_rule_5_2_opening_beats_most_dice() -> None:
    # Opening (6/5) plays one die; 13/12/6 would play two but keeps the block.
    assert not ref.has_any_move(TRAPPING, ARMY_ON_7, BLACK)
    assert white_results(TRAPPING, ARMY_ON_7, (6, 1)) == {OPENED}


def test_rule_5_2_needs_fifteen() -> None:
    black = side({19: 14, 20: 1})
    assert white_results(TRAPPING, black, (6, 1)) == {side({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3})}


def test_rule_5_2_no_opening_possible() -> None:
    white = side({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3})
    expected = {side({6: 2, 5: 2, 4: 2, 3: 2, 2: 3, 1: 2, 13: 2})}  # 13/8/2
    assert white_results(white, ARMY_ON_7, (6, 5)) == expected
    assert white_results(white, ARMY_ON_7, (6, 5), NO_PLAYABLE) == expected


def test_rule_5_2_judged_for_the_mover_only() -> None:
    # Black (the trapped side) has no obligation of its own; it simply passes.
    assert ref.legal_results(TRAPPING, ARMY_ON_7, BLACK, (3, 2)) == {(TRAPPING, ARMY_ON_7)}


# --------------------------------------------------------------------------- no_playable_roll

HALF_BLOCK = side({7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 13: 5})  # White's 6 open: Black's 6s play


def test_no_playable_roll_variant() -> None:
    assert ref.has_any_move(HALF_BLOCK, START, BLACK)
    default = white_results(HALF_BLOCK, START, (1, 1))
    assert any(not ref.has_any_move(w, START, BLACK) for w in default)  # e.g. 7/6(2)
    variant = white_results(HALF_BLOCK, START, (1, 1), NO_PLAYABLE)
    assert variant == {w for w in default if ref.has_any_move(w, START, BLACK)}
    assert variant and variant < default


def test_no_playable_roll_beats_most_dice() -> None:
    # Same as rule 5.2's example, but through the variant: only 6/5 frees Black.
    assert white_results(TRAPPING, ARMY_ON_7, (6, 1), NO_PLAYABLE) == {OPENED}


# --------------------------------------------------------------------------- bearing off

FAR_BLACK = side({1: 15})  # Black on White's 13: out of White's home


def test_bear_off_needs_every_checker_home() -> None:
    white = side({0: 8, 7: 1, 6: 6})
    assert white_results(white, FAR_BLACK, (6, 1)) == {side({0: 9, 6: 6}), side({0: 8, 6: 5, 5: 1, 1: 1})}


def test_smaller_die_with_higher_checker_plays_inside() -> None:
    white = side({0: 13, 6: 1, 3: 1})
    # The 5 cannot bear off (6 is occupied): 6/1; the 4 is then larger than the highest.
    assert white_results(white, FAR_BLACK, (5, 4)) == {side({0: 14, 1: 1}), side({0: 14, 2: 1})}


def test_bearing_off_not_compulsory() -> None:
    white = side({0: 10, 6: 3, 1: 2})
    results = white_results(white, FAR_BLACK, (1, 1))
    assert side({0: 10, 6: 2, 2: 1, 1: 2}) in results  # 6/2: nothing borne off
    assert side({0: 12, 6: 2, 4: 1}) in results  # 1/off(2) 6/4


def test_game_ends_with_fifteenth_checker() -> None:
    assert white_results(side({0: 13, 1: 2}), FAR_BLACK, (2, 2)) == {side({0: 15})}
    assert white_results(side({0: 14, 6: 1}), FAR_BLACK, (6, 6)) == {side({0: 15})}
    assert white_results(side({0: 14, 6: 1}), FAR_BLACK, (1, 1)) == {side({0: 14, 2: 1})}
    assert ref.perft(side({0: 15}), FAR_BLACK, BLACK, 3) == 1


def test_has_any_move() -> None:
    assert ref.has_any_move(START, START, WHITE)
    assert ref.has_any_move(START, START, BLACK)
    assert not ref.has_any_move(side({6: 2, 7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 13: 3}), START, BLACK)
