"""Cross-check the engine's Gioul (fevga.gioul) against the pure-Python reference.

The reference (tests/gioul_reference.py) is a literal reading of docs/rules.md §11 sharing no
code with the package. Each check compares, for one state (and one roll when a new roll
is due), the set of (board after the decision, next state) of `GioulPosition.legal_moves`
with the reference's `successors`, next states compared field by field (turn, roll
counts, roller, dice still to play).

States come from seeded games played by the reference (uniform over the legal moves of
each decision), which pass through chains and hand-overs; from the same boards with
random pending dice (the middle of chains and hand-overs); and from hand-made states for
every clause of §11. The `slow` test raises the seeded sample above 20,000 states.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

import pytest

import gioul_reference as ref
from fevga import InvalidPositionError
from fevga import perft
from fevga.gioul import GioulPosition
from gioul_reference import State

Key = tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, int], int | None, tuple[int, ...]]


def canonical_dice(dice: tuple[int, ...]) -> tuple[int, ...]:
    """The engine keeps a pending pair larger die first."""
    if len(dice) == 2 and dice[0] != dice[1]:
        return (max(dice), min(dice))
    return dice


def ref_key(s: State) -> Key:
    return (s.white, s.black, s.turn, s.rolls, s.roller, canonical_dice(s.dice))


def engine_key(p: GioulPosition) -> Key:
    return (
        p.counts(0),
        p.counts(1),
        p.turn,
        (p.next_roll(0) - 1, p.next_roll(1) - 1),
        p.roller,
        p.pending,
    )


def to_engine(s: State) -> GioulPosition:
    return GioulPosition.from_counts(
        s.white,
        s.black,
        s.turn,
        next_roll=(s.rolls[0] + 1, s.rolls[1] + 1),
        dice=s.dice,
        roller=s.roller,
    )


@functools.lru_cache(maxsize=1)
def successors(s: State, roll: tuple[int, int] | None) -> dict[tuple[tuple[int, ...], tuple[int, ...]], State]:
    """`ref.successors(s, roll)`, kept for the last state asked: `seeded_states` steps each game
    on from the state that `compare` has just checked for the same roll, and the reference is
    the slow side (this halves its work in the seeded tests). The result is only read."""
    return ref.successors(s, roll)


def compare(s: State, roll: tuple[int, int] | None) -> list[str]:
    """Disagreements between engine and reference for one decision (empty if none)."""
    pos = to_engine(s)
    if engine_key(pos) != ref_key(s):
        return [f"state round trip {ref_key(s)} -> {engine_key(pos)}"]
    expected = {ref_key(v) for v in successors(s, roll).values()}
    moves = pos.legal_moves(roll)
    got = [engine_key(m.position) for m in moves]
    problems = []
    if len(got) != len(set(got)):
        problems.append(f"duplicate moves in {pos.id} {roll}")
    if set(got) != expected:
        problems.append(
            f"{pos.id} roll {roll}: engine-only {sorted(set(got) - expected)[:2]} ref-only {sorted(expected - set(got))[:2]}"
        )
    if pos.count_legal_moves(roll) != len(expected):
        problems.append(f"{pos.id} roll {roll}: count_legal_moves {pos.count_legal_moves(roll)} != {len(expected)}")
    return problems


def random_roll(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


def seeded_states(seed: int, count: int) -> Iterator[tuple[State, tuple[int, int] | None]]:
    """(state, roll) pairs along seeded reference games, every decision of them."""
    rng = random.Random(seed)
    produced = 0
    while True:
        s = ref.initial()
        if rng.random() < 0.5:
            s = s._replace(turn=ref.BLACK)
        while not ref.game_over(s):
            roll = None if s.dice else random_roll(rng)
            yield s, roll
            produced += 1
            if produced >= count:
                return
            succ = successors(s, roll)
            if not succ:
                break
            if not s.dice and len(succ) == 1 and all(v.dice == () for v in succ.values()):
                # a lost roll: stop games that cannot progress (dead positions)
                if all(not ref.can_play(s.army(c), s.army(1 - c), (d,)) for c in (0, 1) for d in range(1, 7)):
                    break
            s = succ[sorted(succ)[rng.randrange(len(succ))]]


def with_random_dice(s: State, rng: random.Random) -> State | None:
    """The board of `s` with random pending dice held by a side that can start them."""
    if ref.game_over(s):
        return None
    roller = rng.randint(0, 1)
    rolls = (rng.randint(1, 3), rng.randint(1, 3))
    kind = rng.random()
    if kind < 0.3:
        a, b = rng.sample(range(1, 7), 2)
        dice: tuple[int, ...] = (a, b)
    elif kind < 0.5:
        dice = (rng.randint(1, 6),) * rng.randint(1, 4)
    else:
        d = rng.randint(1, 6)
        dice = (d,) * rng.randint(1, 4) + ref.roll_dice(3, d, d)[4:] if d < 6 else (6,) * rng.randint(1, 4)
        rolls = (3, rolls[1]) if roller == 0 else (rolls[0], 3)
    group = ref.decision_group(dice)
    for holder in (rng.randint(0, 1),):
        if ref.can_play(s.army(holder), s.army(1 - holder), group):
            return State(s.white, s.black, holder, rolls, roller, dice)
    return None


def check_many(pairs: Iterator[tuple[State, tuple[int, int] | None]]) -> tuple[int, int, int, list[str]]:
    """Compare every pair; (states, mid-roll states, hand-over states, problems)."""
    problems: list[str] = []
    n = mid = handed = 0
    for s, roll in pairs:
        n += 1
        if s.dice:
            mid += 1
            handed += s.turn != s.roller
        problems += compare(s, roll)
    return n, mid, handed, problems


# --------------------------------------------------------------------------- seeded


SEEDED = 8_000
PENDING = 3_000


def test_seeded_games_agree() -> None:
    n, mid, handed, problems = check_many(seeded_states(11, SEEDED))
    assert problems == []
    assert n == SEEDED and mid > 200 and handed > 5


def test_random_pending_dice_agree() -> None:
    rng = random.Random(5)
    pairs = []
    for s, _ in seeded_states(12, 4 * PENDING):
        t = with_random_dice(s, rng)
        if t is not None:
            pairs.append((t, None))
        if len(pairs) == PENDING:
            break
    n, mid, handed, problems = check_many(iter(pairs))
    assert problems == []
    assert n == PENDING and handed > 300


@pytest.mark.slow
def test_twenty_thousand_seeded_states_agree() -> None:
    n, mid, handed, problems = check_many(seeded_states(2026, 24_000))
    print(f"{n} states, {mid} in the middle of a roll, {handed} holding handed-over dice")
    assert problems == []
    assert n == 24_000 and mid > 1_000 and handed > 50


# --------------------------------------------------------------------------- hand-made


def full(points: dict[int, int]) -> tuple[int, ...]:
    return ref.army({0: 15 - sum(points.values()), **points})


HAND_MADE: dict[str, State] = {
    # 11.1: no mother rule / no prime rules
    "start": ref.initial(),
    "start quarter may fill": State(full({24: 10, 23: 1, 22: 1, 21: 1, 20: 2}), full({24: 15}), 0, (1, 1), None, ()),
    "prime before the trapped army": State(
        full({11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 24: 3}), full({24: 15}), 0, (1, 1), None, ()
    ),
    "trapped army on roll": State(
        full({11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 24: 3}), full({24: 15}), 1, (1, 1), None, ()
    ),
    # 11.2/11.3: roll counts, chains
    "third roll": State(full({12: 15}), full({6: 10}), 0, (2, 1), None, ()),
    "fourth roll": State(full({12: 15}), full({6: 10}), 0, (3, 1), None, ()),
    "chain mid-block": State(full({12: 13, 9: 2}), full({6: 10}), 0, (3, 1), 0, (3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6)),
    "chain wins with the first die": State(full({1: 1}), full({24: 15}), 0, (3, 3), None, ()),
    "bear-off inside a chain": State(full({6: 2, 5: 2, 3: 1, 1: 2}), full({24: 15}), 1, (3, 3), None, ()),
    # 11.4: hand-overs
    "vector 6": State(full({24: 14, 13: 1}), full({24: 14, 7: 1}), 0, (3, 2), None, ()),
    "single die handed over": State(full({24: 14, 13: 1}), full({20: 1, 14: 1, 7: 1, 6: 1, 24: 11}), 0, (0, 0), None, ()),
    "pass hands a pair": State(full({7: 14, 24: 1}), full({13: 1, 14: 1, 6: 1, 7: 1, 24: 11}), 0, (0, 0), None, ()),
    "lost chain": State(
        (0, 3, 4, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0),
        (0, 4, 0, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0),
        0,
        (3, 3),
        None,
        (),
    ),
    "passed back": State(
        (0, 9, 2, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0),
        (0, 10, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        0,
        (3, 3),
        1,
        (5, 5, 5, 5, 6, 6, 6, 6),
    ),
    "choice stands": State(
        (0, 2, 5, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0, 0, 0, 0, 0),
        (0, 6, 1, 0, 0, 1, 0, 0, 1, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        0,
        (3, 3),
        None,
        (),
    ),
}


@pytest.mark.parametrize("name", list(HAND_MADE))
def test_hand_made_states_agree_on_every_roll_and_every_decision(name: str) -> None:
    s = HAND_MADE[name]
    rolls: list[tuple[int, int] | None] = [None] if s.dice else list(ref.ROLLS)
    problems = []
    for roll in rolls:
        problems += compare(s, roll)
        # and along the whole roll, every decision, every choice
        frontier = [v for v in ref.successors(s, roll).values() if v.dice]
        seen = 0
        while frontier and seen < 200:
            t = frontier.pop()
            seen += 1
            problems += compare(t, None)
            frontier += [v for v in ref.successors(t).values() if v.dice]
    assert problems == []


def test_perft_of_hand_made_states_agrees_with_the_reference() -> None:
    """(From the start: test_crosscheck.py's test_engine_perft_through_legal_moves[gioul-*].)"""
    for name in ("vector 6", "passed back", "chain mid-block", "lost chain"):
        s = HAND_MADE[name]
        assert perft(to_engine(s), 2) == ref.perft(s, 2), name


def test_unsettled_states_are_rejected() -> None:
    s = HAND_MADE["passed back"]
    stuck = HAND_MADE["lost chain"]  # White can play no 5 here: it cannot hold 5s
    with pytest.raises(InvalidPositionError, match="cannot play any of the pending dice"):
        GioulPosition.from_counts(stuck.white, stuck.black, 0, next_roll=(4, 4), dice=(5, 5, 5, 5, 6, 6, 6, 6), roller=0)
    assert to_engine(s).pending == s.dice
