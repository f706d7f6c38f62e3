"""The bear-off tables of both games against an independent brute-force solver (pure Python,
exact fractions).

Nothing here imports fevga's bear-off code for the solving: moves follow docs/rules.md sections 6-7
(and 11.3 for Gioul's chains) directly, values are exact `Fraction`s, and the tables must agree
to 1e-12.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from fractions import Fraction

import pytest

from fevga.bearoff import OneSidedDB, TwoSidedDB

ROLLS = [((a, b), Fraction(1 if a == b else 2, 36)) for a in range(1, 7) for b in range(a, 7)]


def single_die(side: tuple[int, ...], die: int) -> set[tuple[int, ...]]:
    """Positions one die can reach (docs/rules.md section 7)."""
    occupied = [k for k in range(1, len(side) + 1) if side[k - 1]]
    if not occupied:
        return set()
    highest = max(occupied)
    all_home = highest <= 6
    out = set()
    for k in occupied:
        new = list(side)
        if k - die >= 1:
            new[k - 1] -= 1
            new[k - die - 1] += 1
        elif all_home and (k == die or (k == highest and die > highest)):
            new[k - 1] -= 1
        else:
            continue
        out.add(tuple(new))
    return out


@functools.lru_cache(maxsize=None)
def roll_results(side: tuple[int, ...], d1: int, d2: int) -> frozenset[tuple[int, ...]]:
    """Final positions of a roll under the full-turn rule (most dice; else the larger die)."""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def walk(current: tuple[int, ...], order: tuple[int, ...], used: tuple[int, ...]) -> None:
        if not any(current):  # game over: later dice are not played
            found.append((current, order))
            return
        if len(used) == len(order):
            found.append((current, used))
            return
        nexts = single_die(current, order[len(used)])
        if not nexts:
            found.append((current, used))
        for nxt in nexts:
            walk(nxt, order, used + (order[len(used)],))

    for order in orders:
        walk(side, order, ())
    most = max(len(u) for _, u in found)
    keep = [(s, u) for s, u in found if len(u) == most]
    if d1 != d2 and most == 1 and any(max(d1, d2) in u for _, u in keep):
        keep = [(s, u) for s, u in keep if max(d1, d2) in u]
    return frozenset(s for s, _ in keep)


def all_sides(points: int, checkers: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(checkers + 1), repeat=points) if sum(c) <= checkers]


@functools.lru_cache(maxsize=None)
def chain_results(side: tuple[int, ...], die: int) -> frozenset[tuple[int, ...]]:
    """Every final side of a Gioul chain from `die` (docs/rules.md 11.3: blocks of four `die`,
    four `die`+1, ... four 6s, each block as many of its four as possible)."""
    current = {side}
    for block in range(die, 7):
        current = {s for c in current for s in (roll_results(c, block, block) if any(c) else {c})}
    return frozenset(current)


class Solver:
    """What a roll is worth under each game's rules (docs/bearoff.md "Gioul"): in Fevga a roll
    is one decision over its final positions; in Gioul a double is a chain whose blocks the
    roller plays one by one, each block its own decision (the table builders instead take the
    best final position of the whole chain: the two must agree)."""

    def __init__(self, game: str) -> None:
        self.game = game

    def _chain(self, dice: tuple[int, int]) -> bool:
        return self.game == "gioul" and dice[0] == dice[1]

    def results(self, side: tuple[int, ...], dice: tuple[int, int]) -> frozenset[tuple[int, ...]]:
        """The final sides of a roll."""
        return chain_results(side, dice[0]) if self._chain(dice) else roll_results(side, *dice)

    def roll_value(self, side: tuple[int, ...], dice: tuple[int, int], value: Callable[[tuple[int, ...]], Fraction],
                   best: Callable[[Iterable[Fraction]], Fraction]) -> Fraction:
        """best(value of the side left) over the roller's choices."""
        if self._chain(dice):
            return self._blocks(side, dice[0], value, best)
        return best(value(s) for s in roll_results(side, *dice))

    def _blocks(self, side: tuple[int, ...], die: int, value: Callable[[tuple[int, ...]], Fraction],
                best: Callable[[Iterable[Fraction]], Fraction]) -> Fraction:
        """The value after the blocks die..6 of a chain, choosing block by block."""
        if not any(side) or die > 6:
            return Fraction(value(side))
        return best(self._blocks(s, die + 1, value, best) for s in roll_results(side, die, die))


class OneSidedSolver(Solver):
    """Exact expected rolls, distributions (None when ties make them ambiguous), first-off."""

    def __init__(self, checkers: int, game: str = "fevga") -> None:
        super().__init__(game)
        self.checkers = checkers

    @functools.lru_cache(maxsize=None)
    def mean(self, side: tuple[int, ...]) -> Fraction:
        if not any(side):
            return Fraction(0)
        return 1 + sum(w * self.roll_value(side, dice, self.mean, min) for dice, w in ROLLS)

    @functools.lru_cache(maxsize=None)
    def distribution(self, side: tuple[int, ...]) -> dict[int, Fraction] | None:
        if not any(side):
            return {0: Fraction(1)}
        total: dict[int, Fraction] = {}
        for dice, w in ROLLS:
            results = self.results(side, dice)
            best = min(self.mean(s) for s in results)
            choices = {frozenset(d.items()) if (d := self.distribution(s)) is not None else None
                       for s in results if self.mean(s) == best}
            if len(choices) != 1 or None in choices:
                return None
            for n, p in dict(next(iter(choices))).items():  # type: ignore[arg-type]
                total[n + 1] = total.get(n + 1, Fraction(0)) + w * p
        return total

    @functools.lru_cache(maxsize=None)
    def first_off(self, side: tuple[int, ...]) -> Fraction:
        if sum(side) < self.checkers:
            return Fraction(0)
        return 1 + sum(w * self.roll_value(side, dice, self.first_off, min) for dice, w in ROLLS)


class TwoSidedSolver(Solver):
    """Exact equity of the side on roll, maximising expected points (mars = 2)."""

    def __init__(self, total: int, game: str = "fevga") -> None:
        super().__init__(game)
        self.total = total

    def _after(self, side: tuple[int, ...], opponent: tuple[int, ...]) -> Fraction:
        """The mover's equity once its roll is over with `side` left."""
        if not any(side):
            return Fraction(2 if sum(opponent) == self.total else 1)
        return -self.equity(opponent, side)

    @functools.lru_cache(maxsize=None)
    def equity(self, on_roll: tuple[int, ...], opponent: tuple[int, ...]) -> Fraction:
        return sum((w * self.roll_value(on_roll, dice, lambda s: self._after(s, opponent), max) for dice, w in ROLLS),
                   Fraction(0))


GAMES = ("fevga", "gioul")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("points", "checkers"), [(3, 4), (6, 3), (8, 2)])
def test_one_sided_matches_brute_force(points: int, checkers: int, game: str) -> None:
    db = OneSidedDB.build(points=points, checkers=checkers, game=game)
    solver = OneSidedSolver(checkers, game)
    compared = 0
    for side in all_sides(points, checkers):
        assert db.mean_rolls(side) == pytest.approx(float(solver.mean(side)), rel=1e-12, abs=1e-12), side
        exact = solver.distribution(side)
        if exact is not None:
            table = db.distribution(side)
            dense = [float(exact.get(n, 0)) for n in range(max(len(table), max(exact) + 1))]
            assert list(table) + [0.0] * (len(dense) - len(table)) == pytest.approx(dense, abs=1e-12), side
            compared += 1
        if sum(side) == checkers:
            assert db.first_off_mean(side) == pytest.approx(float(solver.first_off(side)), rel=1e-12), side
    assert compared >= len(all_sides(points, checkers)) // 2


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("points", "checkers", "total"), [(6, 2, 15), (3, 3, 3), (4, 2, 2)])
def test_two_sided_matches_brute_force(points: int, checkers: int, total: int, game: str) -> None:
    ts = TwoSidedDB.build(checkers=checkers, points=points, total=total, game=game)
    solver = TwoSidedSolver(total, game)
    sides = [s for s in all_sides(points, checkers) if any(s)]
    for a in sides:
        for b in sides:
            assert ts.equity(a, b) == pytest.approx(float(solver.equity(a, b)), abs=1e-12), (a, b)
            assert 0.0 <= ts.win_probability(a, b) <= 1.0


def test_brute_force_rules_example_7() -> None:
    """docs/rules.md 10.7: one on 5, one on 2, roll 6-1: the 6 never bears off the 2 while 5 stands."""
    assert roll_results((0, 1, 0, 0, 1, 0), 6, 1) == {(1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0)}
