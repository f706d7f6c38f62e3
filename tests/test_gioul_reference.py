"""Tests of the pure-Python Gioul reference (tests/gioul_reference.py) against docs/rules.md §11.

Every test vector of section 11.6 is checked here, plus a hand-made case for each clause
of 11.1-11.5. The reference is then the oracle of tests/test_gioul_crosscheck.py.
"""

from __future__ import annotations

import pytest

import gioul_reference as g
from gioul_reference import BLACK, WHITE, State, army

START = army({24: 15})


def state(white: dict[int, int], black: dict[int, int], turn: int = WHITE, rolls: tuple[int, int] = (0, 0),
          roller: int | None = None, dice: tuple[int, ...] = ()) -> State:
    """A state waiting for a roll (or, with `roller` and `dice`, holding dice pending); the
    dicts are {own point: checkers}, the rest borne off."""

    def full(points: dict[int, int]) -> tuple[int, ...]:
        return army({0: 15 - sum(points.values()), **points})

    return State(full(white), full(black), turn, rolls, roller, dice)


def finals(s: State, roll: tuple[int, int] | None = None) -> set[tuple[int, ...]]:
    return g.finals_of(s, roll)


# --------------------------------------------------------------------------- 11.6 vectors


def test_vector_1_five_five_at_the_start_has_five_moves() -> None:
    expected = {
        army({24: 14, 4: 1}),  # 24/4
        army({24: 13, 9: 1, 19: 1}),  # 24/9 24/19
        army({24: 13, 14: 2}),  # 24/14(2)
        army({24: 12, 14: 1, 19: 2}),  # 24/14 24/19(2)
        army({24: 11, 19: 4}),  # 24/19(4)
    }
    assert finals(g.initial(), (5, 5)) == expected


def test_vector_2_six_six_at_the_start() -> None:
    assert finals(g.initial(), (6, 6)) == {army({24: 11, 18: 4})}


def test_vector_3_six_five_at_the_start() -> None:
    assert finals(g.initial(), (6, 5)) == {army({24: 14, 13: 1}), army({24: 13, 18: 1, 19: 1})}


def test_vector_4_chain_of_two_two_is_five_decisions_then_black_rolls() -> None:
    # White's 15 on its own 12, every Black checker behind it: nothing blocks White.
    s = state({12: 15}, {6: 10}, WHITE, rolls=(3, 1))
    states = g.play_roll(s, (2, 2))
    assert len(states) == 6  # the start and five decisions
    for before, after, die in zip(states, states[1:], (2, 3, 4, 5, 6)):
        assert before.turn == WHITE
        assert sum(k * c for k, c in enumerate(before.white)) - sum(k * c for k, c in enumerate(after.white)) == 4 * die
    assert [s.dice for s in states[1:-1]] == [
        tuple(d for d in range(k, 7) for _ in range(4)) for k in range(3, 7)
    ]
    last = states[-1]
    assert last.turn == BLACK and last.dice == () and last.roller is None
    assert last.rolls == (3, 1)


def test_vector_5_first_die_of_the_chain_wins() -> None:
    s = state({1: 1}, {24: 15}, WHITE, rolls=(3, 3))
    nxt = g.successors(s, (5, 5))
    assert len(nxt) == 1
    (white, black), after = next(iter(nxt.items()))
    assert white[0] == 15 and g.game_over(after) and after.dice == ()
    assert black[0] == 0  # a mars: 2 points


def test_vector_6_chain_handed_over_to_black() -> None:
    # White: 14 on own 24 (24/19 closed by Black's checker on its own 7 = White's 19),
    # one runner on own 13 that can play 13/8/3 and no further five.
    s = state({24: 14, 13: 1}, {24: 14, 7: 1}, WHITE, rolls=(3, 2))
    nxt = g.successors(s, (5, 5))
    assert list(nxt) == [(army({24: 14, 3: 1}), s.black)]
    after = nxt[list(nxt)[0]]
    assert after.turn == BLACK and after.roller == WHITE
    assert after.dice == (5, 5, 6, 6, 6, 6)
    assert after.rolls == (3, 2)  # White rolled (count capped at 3); Black's unchanged
    # Black plays the two fives, keeps the block of sixes, then rolls its own next roll.
    cur = after
    seen_dice = []
    while cur.dice:
        seen_dice.append((cur.turn, g.decision_group(cur.dice)))
        cur = next(iter(g.successors(cur).values()))
    assert seen_dice == [(BLACK, (5, 5)), (BLACK, (6, 6, 6, 6))]
    assert cur.turn == BLACK and cur.rolls == (3, 2)


# --------------------------------------------------------------------------- 11.1


def test_no_mother_rule_second_checker_may_leave_at_once() -> None:
    # Fevga's 4-4 from the start is 24/16 only (16/12 is closed); Gioul may move more checkers.
    assert finals(g.initial(), (4, 4)) == {
        army({24: 13, 16: 2}),
        army({24: 12, 16: 1, 20: 2}),
        army({24: 11, 20: 4}),
    }
    assert finals(g.initial(), (1, 5)) == {army({24: 14, 18: 1}), army({24: 13, 23: 1, 19: 1})}


def test_start_quarter_may_be_filled() -> None:
    # White holds own 24..20; 2-1 played 24/22 20/19 fills all six points 19-24.
    s = state({24: 10, 23: 1, 22: 1, 21: 1, 20: 2}, {24: 15})
    assert army({24: 9, 23: 1, 22: 2, 21: 1, 20: 1, 19: 1}) in finals(s, (2, 1))


def test_prime_in_front_of_the_trapped_army_need_not_open() -> None:
    # Black's 15 on its mother (printed 12); White holds printed 11..6 = own 11..6 and has
    # runners. In Fevga White must open; in Gioul keeping the prime is legal.
    s = state({11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 24: 3}, {24: 15})
    results = finals(s, (1, 2))
    assert any(all(f[k] for k in range(6, 12)) for f in results)
    # and Black then cannot play anything at all
    blocked = State(army({0: 0, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 24: 3}), army({24: 15}), BLACK, (1, 1), None, ())
    for roll in g.ROLLS:
        assert g.finals_of(blocked, roll) == {blocked.black}


# --------------------------------------------------------------------------- 11.2 / 11.3


def test_roll_dice_chain_only_from_the_fourth_roll() -> None:
    assert g.roll_dice(0, 3, 3) == (3,) * 4
    assert g.roll_dice(2, 3, 3) == (3,) * 4
    assert g.roll_dice(3, 3, 3) == (3,) * 4 + (4,) * 4 + (5,) * 4 + (6,) * 4
    assert g.roll_dice(3, 1, 1) == tuple(d for d in range(1, 7) for _ in range(4))  # 24 dice
    assert g.roll_dice(3, 6, 6) == (6,) * 4
    assert g.roll_dice(3, 6, 5) == (6, 5)


@pytest.mark.parametrize("made", [0, 1, 2, 3])
def test_roll_count_advances_per_own_roll(made: int) -> None:
    s = state({12: 15}, {6: 10}, WHITE, rolls=(made, 0))
    after = g.play_roll(s, (5, 5))[-1]
    assert after.rolls == (min(3, made + 1), 0)
    assert after.turn == BLACK
    # roll 4 (three made before) played a chain: 20 + 24 = 44 pips; else 4 x 5 = 20
    pips = sum(k * c for k, c in enumerate(after.white))
    assert 180 - pips == (44 if made >= 3 else 20)


def test_handed_dice_do_not_advance_the_receivers_count() -> None:
    s = state({24: 14, 13: 1}, {24: 14, 7: 1}, WHITE, rolls=(3, 0))
    cur = next(iter(g.successors(s, (5, 5)).values()))
    while cur.dice:
        cur = next(iter(g.successors(cur).values()))
    assert cur.rolls == (3, 0)


# A position met in seeded reference games: White's roll 4+ is 4-4.
CHOICE = state({1: 2, 2: 5, 3: 1, 4: 2, 9: 1, 16: 1, 18: 2, 19: 1},
                {1: 6, 2: 1, 5: 1, 8: 1, 9: 3, 10: 2, 11: 1}, WHITE, rolls=(3, 3))


def test_choice_in_an_earlier_block_stands() -> None:
    # Some ways of playing the four 4s leave White a playable 5 (White keeps the chain),
    # others do not (the 5s and 6s go to Black): both are legal, no look-ahead.
    results = g.successors(CHOICE, (4, 4))
    holders = {after.turn for after in results.values()}
    assert holders == {WHITE, BLACK}
    assert {after.dice for after in results.values()} == {(5,) * 4 + (6,) * 4}


def test_blocks_are_played_in_order() -> None:
    s = state({12: 15}, {6: 10}, WHITE, rolls=(3, 0))
    first = g.successors(s, (4, 4))
    for after in first.values():
        assert after.dice == (5,) * 4 + (6,) * 4 and after.turn == WHITE


# --------------------------------------------------------------------------- 11.4


def test_non_double_single_die_handed_over() -> None:
    # White can play only the 6 of 6-5; Black then gets the 5. White: one checker on own 13
    # with 8 and 2 closed (Black own 20 and 14) and 7 open; the rest on 24 with 19 and 18
    # closed (Black own 7 and 6).
    s = state({24: 14, 13: 1}, {20: 1, 14: 1, 7: 1, 6: 1, 24: 11}, WHITE, rolls=(0, 0))
    nxt = g.successors(s, (6, 5))
    assert set(w for w, _ in nxt) == {army({24: 14, 7: 1})}
    after = next(iter(nxt.values()))
    assert after.turn == BLACK and after.dice == (5,) and after.roller == WHITE
    black_moves = g.successors(after)
    assert black_moves and all(v.turn == BLACK and v.dice == () for v in black_moves.values())


# White's roll 4+ is 5-5 and no White checker can play a 5; nor can Black (seeded game).
STUCK = state({1: 3, 2: 4, 3: 5, 4: 1, 20: 2},
               {1: 4, 3: 2, 4: 2, 5: 3, 18: 4}, WHITE, rolls=(3, 3))


def test_dice_lost_when_neither_player_can_play() -> None:
    nxt = g.successors(STUCK, (5, 5))
    assert list(nxt) == [(STUCK.white, STUCK.black)]  # White passes
    after = nxt[(STUCK.white, STUCK.black)]
    # Black cannot play a 5 either: the whole chain is lost and Black rolls.
    assert after.turn == BLACK and after.dice == () and after.roller is None
    # With 6-6 White can play (20/14) and nothing is handed over.
    assert all(v.turn == BLACK and v.dice == () for v in g.successors(STUCK, (6, 6)).values())


def test_pass_hands_a_pair_to_the_opponent() -> None:
    # White: 14 on own 7, one on 24; Black holds White's 1, 2, 18 and 19. White cannot
    # play 6-5 at all; Black can, so Black gets both dice as a pair.
    s = state({7: 14, 24: 1}, {13: 1, 14: 1, 6: 1, 7: 1, 24: 11}, WHITE)
    nxt = g.successors(s, (6, 5))
    assert list(nxt) == [(s.white, s.black)]
    after = nxt[(s.white, s.black)]
    assert after.turn == BLACK and after.dice == (6, 5) and after.roller == WHITE
    black = g.successors(after)
    assert black and all(v.turn == BLACK and v.dice == () for v in black.values())
    pips = sum(k * c for k, c in enumerate(s.black))
    assert all(sum(k * c for k, c in enumerate(b)) == pips - 11 for _, b in black)


# Black rolled a chain of 5s; White holds the four 5s handed to it (seeded game).
BACK = state({1: 9, 2: 2, 4: 2, 6: 1, 18: 1},
              {1: 10, 2: 4, 8: 1}, WHITE, rolls=(3, 3), roller=BLACK, dice=(5, 5, 5, 5, 6, 6, 6, 6))


def test_dice_pass_back_and_forth() -> None:
    nxt = g.successors(BACK)
    assert len(nxt) == 1  # White can play one 5 only
    after = next(iter(nxt.values()))
    # the other three 5s go back to Black (who can play a 5), then the 6s follow
    assert after.turn == BLACK and after.roller == BLACK and after.dice == (5, 5, 5, 6, 6, 6, 6)


def test_after_hand_over_next_roll_is_the_opponent_of_the_roller() -> None:
    s = state({24: 14, 13: 1}, {24: 14, 7: 1}, WHITE, rolls=(3, 0))
    cur = next(iter(g.successors(s, (5, 5)).values()))
    assert cur.turn == BLACK
    while cur.dice:
        cur = next(iter(g.successors(cur).values()))
    assert cur.turn == BLACK and cur.roller is None


# --------------------------------------------------------------------------- perft


def test_perft_small_depths() -> None:
    assert g.perft(g.initial(), 0) == 1
    depth1 = g.perft(g.initial(), 1)
    assert depth1 == sum(len(g.successors(g.initial(), r)) for r in g.ROLLS)
    assert depth1 > 22  # more moves than Fevga (no mother rule)


def test_successor_argument_checks() -> None:
    with pytest.raises(ValueError):
        g.successors(g.initial())
    with pytest.raises(ValueError):
        g.successors(g.initial(), (0, 3))
