"""An independent, deliberately simple pure-Python reference of Gioul (docs/rules.md section 11).

Written straight from the rule text. It shares no code with the package (it never imports
`fevga` or `fevga_core`), so the tests can cross-check the compiled engine against it; from
the Fevga reference (tests/reference.py) it takes only `sequences`, the walk over every
order of the dice (section 6 step 1), with Gioul's own single-die rule. Readability, not
speed, is the goal.

Conventions:

- A side's checkers are a tuple of 25 ints in that side's OWN numbering: index 0 is borne
  off, index k is its own point k (24 = its start point, 1-6 = its home).
- Colours: 0 is White, 1 is Black.
- A `State` is the whole Gioul game state of section 11.5:
  * `white`, `black`: the two armies;
  * `turn`: the side that plays the next decision (or rolls next, when `dice` is empty);
  * `rolls`: for each side, the own rolls it has made so far, counted up to 3 (3 means
    "three or more": its next roll is its roll 4 or later, so a double is a chain);
  * `roller`: the side that rolled the dice still to be played (None when `dice` is empty);
  * `dice`: the dice still to play, in order (empty: the next thing is a new roll).

The dice of a decision (section 11.5) are the first "group" of `dice`: a pair of two
different numbers (a non-double, both still unplayed), else the leading run of equal
numbers (a block of four, the rest of one, or the single leftover die of a non-double).

Hand-over, literally (11.4): when the player holding the dice leaves some of the
decision's dice unplayed, the rest passes to the opponent; the dice pass back and forth
as long as the player they come to can play the next one. The holder of a finished block
keeps the later blocks. Whenever neither player can play the next die, the rest is lost
and the opponent of the roller rolls next. So a player never holds dice it cannot start:
the only decision that plays no die is a fresh roll whose dice the roller cannot play (a
pass), after which they go to the opponent (or are lost).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from reference import sequences

WHITE = 0
BLACK = 1
OFF = 0
CHECKERS = 15

Counts = tuple[int, ...]
Dice = tuple[int, ...]

# The 21 distinct rolls (d1 <= d2).
ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


class State(NamedTuple):
    """A Gioul game state (see the module docstring)."""

    white: Counts
    black: Counts
    turn: int
    rolls: tuple[int, int]
    roller: int | None
    dice: Dice

    def army(self, color: int) -> Counts:
        """The counts of `color`."""
        return self.white if color == WHITE else self.black


def opposite_point(k: int) -> int:
    """The same board point in the other side's own numbering (section 1)."""
    return (k + 11) % 24 + 1


def army(points: Mapping[int, int]) -> Counts:
    """Counts from {own point: checkers}; key 0 is borne off. Must total 15."""
    counts = [0] * 25
    for point, n in points.items():
        counts[point] += n
    assert sum(counts) == CHECKERS, points
    return tuple(counts)


def initial() -> State:
    """The start: 15 checkers on each side's own point 24, White to roll its roll 1."""
    start = (0,) * 24 + (CHECKERS,)
    return State(start, start, WHITE, (0, 0), None, ())


def game_over(state: State) -> bool:
    """Someone has borne off all 15 checkers."""
    return state.white[OFF] == CHECKERS or state.black[OFF] == CHECKERS


# --------------------------------------------------------------------------- dice


def roll_dice(rolls_made: int, d1: int, d2: int) -> Dice:
    """The dice a roll gives (11.3): a pair, four of a double, or the chain from roll 4 on."""
    if d1 != d2:
        return (d1, d2)
    if rolls_made >= 3:  # this roll is the roller's roll 4 or later
        return tuple(d for d in range(d1, 7) for _ in range(4))
    return (d1,) * 4


def decision_group(dice: Dice) -> Dice:
    """The dice of the next decision: a non-double pair, else the leading run of one number."""
    if len(dice) == 2 and dice[0] != dice[1]:
        return dice
    run = 1
    while run < len(dice) and dice[run] == dice[0]:
        run += 1
    return dice[:run]


# --------------------------------------------------------------------------- one die


@functools.lru_cache(maxsize=64)
def _closed(op: Counts) -> tuple[bool, ...]:
    """closed[k]: does the opponent hold my own point k? (one checker closes a point)

    Remembered for the last armies asked: a decision's walk asks it for the same opponent at
    every die it plays."""
    return (False, *(op[opposite_point(k)] > 0 for k in range(1, 25)))


def single_die(me: Counts, op: Counts, die: int) -> Iterator[Counts]:
    """Every army after one die: sections 3 and 7, and nothing else (11.1: no mother
    rule, no six-prime restriction)."""
    closed = _closed(op)
    all_home = sum(me[7:25]) == 0
    on_board = [k for k in range(1, 25) if me[k]]
    highest = max(on_board) if on_board else 0
    for source in on_board:
        target = source - die
        if target >= 1:
            if closed[target]:
                continue
        else:
            if not all_home:
                continue
            if target < 0 and source != highest:
                continue
            target = OFF
        after = list(me)
        after[source] -= 1
        after[target] += 1
        yield tuple(after)


def can_play(me: Counts, op: Counts, group: Dice) -> bool:
    """Can `me` play at least one die of `group` right now?"""
    return any(True for die in set(group) for _ in single_die(me, op, die))


# --------------------------------------------------------------------------- one decision


def decision(me: Counts, op: Counts, group: Dice) -> tuple[set[Counts], Dice]:
    """The distinct final armies of one decision and the dice it plays (section 6 steps
    4-6 applied to the group, 11.3-11.5): as many dice as possible, and for a pair of
    which one die can be played, the larger when it can be played alone."""
    candidates = sequences(me, group, lambda position, die: single_die(position, op, die))
    most = max(len(used) for _, used in candidates)
    kept = {c for c in candidates if len(c[1]) == most}
    if len(group) == 2 and group[0] != group[1] and most == 1:
        larger = {c for c in kept if c[1] == (max(group),)}
        if larger:
            kept = larger
    used_sets = {used for _, used in kept}
    assert len(used_sets) == 1, used_sets  # every legal move of a decision plays the same dice
    return {final for final, _ in kept}, used_sets.pop()


def _remove(dice: Dice, used: Dice) -> Dice:
    rest = list(dice)
    for die in used:
        rest.remove(die)
    return tuple(rest)


def _settle(white: Counts, black: Counts, rolls: tuple[int, int], holder: int, roller: int, rest: Dice) -> State:
    """The state once a decision left `rest` to `holder`: pass it on or lose it (11.4)."""
    armies = (white, black)
    if rest and (white[OFF] == CHECKERS or black[OFF] == CHECKERS):
        rest = ()  # the game has ended: nothing more is played
    if rest:
        group = decision_group(rest)
        for player in (holder, 1 - holder):
            if can_play(armies[player], armies[1 - player], group):
                return State(white, black, player, rolls, roller, rest)
    # every die played, or neither player can play the next one: the rest is lost
    return State(white, black, 1 - roller, rolls, None, ())


def successors(state: State, roll: tuple[int, int] | None = None) -> dict[tuple[Counts, Counts], State]:
    """The legal moves of the next decision: {(white, black) after it: the next state}.

    A state waiting for a roll needs `roll`; a state with dice pending must get None.
    A finished game has no moves.
    """
    if game_over(state):
        return {}
    rolls = state.rolls
    if state.dice:
        if roll is not None:
            raise ValueError("the state has dice pending; no new roll")
        roller, dice = state.roller, state.dice
        assert roller is not None
    else:
        if roll is None:
            raise ValueError("a new roll is due: give the dice")
        d1, d2 = roll
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError(f"dice must be in 1..6, got {roll}")
        roller = state.turn
        dice = roll_dice(rolls[roller], d1, d2)
        rolls = tuple(min(3, r + 1) if c == roller else r for c, r in enumerate(rolls))  # type: ignore[assignment]
    mover = state.turn
    me, op = state.army(mover), state.army(1 - mover)
    group = decision_group(dice)
    finals, used = decision(me, op, group)
    rest = _remove(dice, used)
    holder = mover if len(used) == len(group) else 1 - mover
    out: dict[tuple[Counts, Counts], State] = {}
    for final in finals:
        white, black = (final, op) if mover == WHITE else (op, final)
        out[(white, black)] = _settle(white, black, rolls, holder, roller, rest)
    return out


def finals_of(state: State, roll: tuple[int, int] | None = None, color: int | None = None) -> set[Counts]:
    """The mover's distinct final armies of the next decision (for the test vectors)."""
    mover = state.turn if color is None else color
    return {(w if mover == WHITE else b) for (w, b) in successors(state, roll)}


def perft(state: State, depth: int) -> int:
    """Leaves of the decision tree: a state waiting for a roll branches over the 21 rolls
    and then the legal moves of the roll's first decision; a state with dice pending
    branches over the legal moves of its pending decision. Each decision is one level;
    a pass is one move; finished games are leaves counted once."""
    if depth == 0 or game_over(state):
        return 1
    rolls: Sequence[tuple[int, int] | None] = (None,) if state.dice else ROLLS
    return sum(perft(child, depth - 1) for roll in rolls for child in successors(state, roll).values())


def play_roll(state: State, roll: tuple[int, int], choose: int = 0) -> list[State]:
    """Every state through one roll until the next roll is due (or the game ends),
    choosing the `choose`-th (mod count, in sorted order) legal move at each decision."""
    states = [state]
    nxt = successors(state, roll)
    while True:
        keys = sorted(nxt)
        state = nxt[keys[choose % len(keys)]]
        states.append(state)
        if not state.dice or game_over(state):
            return states
        nxt = successors(state)


def perft_levels(state: State, depth: int) -> int:
    """The same count as `perft`, expanded level by level with equal states merged (each
    distinct state of a level is expanded once, weighted by the paths reaching it); the
    last level is only counted."""
    level: dict[State, int] = {state: 1}
    leaves = 0
    for remaining in range(depth, 0, -1):
        following: dict[State, int] = {}
        for current, paths in level.items():
            if game_over(current):
                leaves += paths  # a finished game is a leaf at any depth
                continue
            rolls: Sequence[tuple[int, int] | None] = (None,) if current.dice else ROLLS
            for roll in rolls:
                children = successors(current, roll)
                if remaining == 1:
                    leaves += paths * len(children)
                    continue
                for child in children.values():
                    following[child] = following.get(child, 0) + paths
        level = following
    return leaves + sum(level.values())


if __name__ == "__main__":
    import sys
    import time

    started = time.perf_counter()
    depth = int(sys.argv[1])
    print(f"perft {depth} from the start: {perft_levels(initial(), depth)} ({time.perf_counter() - started:.0f} s)")
