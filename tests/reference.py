"""An independent, deliberately simple pure-Python reference of the Fevga move rules.

Written straight from docs/rules.md and sharing no code with the package (it never imports
`fevga` or `fevga_core`), so the tests can cross-check the compiled engine against it.
Speed is not a goal; readability and a literal reading of the rules are.

Conventions (the same as the package's public `counts()` form):

- A side's checkers are a tuple of 25 ints in that side's OWN numbering: index 0 is
  borne off, index k is the side's own point k (24 = its mother, 1-6 = its home).
- `turn` 0 is White, 1 is Black.
- `rules` is a dict with the five option names of docs/rules.md section 9; a missing key
  (or `rules=None`) means the default value.

The full-turn procedure is the six steps of docs/rules.md section 6, done literally:
enumerate every single-die sequence (every prefix, the empty one included), drop the
end-of-turn violators, apply the opening obligation, keep the most dice, keep the
larger die, return the distinct final positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

WHITE = 0
BLACK = 1
OFF = 0
MOTHER = 24
CHECKERS = 15

Counts = tuple[int, ...]
Dice = tuple[int, int]

DEFAULT_RULES: dict[str, object] = {
    "release": "pass",
    "first_roll": "fresh",
    "start_quarter_check": "each_die",
    "ban_prime_before_opponent_mother": False,
    "must_open": "fifteen_behind",
}
STRICT_RULES: dict[str, object] = {
    **DEFAULT_RULES,
    "release": "reach",
    "ban_prime_before_opponent_mother": True,
    "must_open": "no_playable_roll",
}
_ALLOWED: dict[str, tuple[object, ...]] = {
    "release": ("pass", "reach"),
    "first_roll": ("fresh", "opening_dice"),
    "start_quarter_check": ("each_die", "end_of_turn"),
    "ban_prime_before_opponent_mother": (False, True),
    "must_open": ("fifteen_behind", "no_playable_roll"),
}

# The 21 distinct rolls (d1 <= d2).
ROLLS: tuple[Dice, ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))

START_QUARTER = range(19, 25)  # own points 19-24 (section 5.1)
BAN_PRIME_POINTS = range(6, 12)  # own 6-11 = the opponent's own 23-18 (section 9)


def opposite_point(k: int) -> int:
    """The same board point in the other side's own numbering (section 1)."""
    return (k + 11) % 24 + 1


def initial() -> tuple[Counts, Counts]:
    """The start: 15 checkers on each side's own point 24."""
    start = (0,) * 24 + (CHECKERS,)
    return start, start


def side(points: Mapping[int, int]) -> Counts:
    """Counts from {own point: checkers}; key 0 is borne off. Must total 15."""
    counts = [0] * 25
    for point, n in points.items():
        counts[point] += n
    assert sum(counts) == 15, points
    return tuple(counts)


def full_rules(rules: Mapping[str, object] | None) -> dict[str, object]:
    """`rules` with the missing options filled in by their defaults (and checked)."""
    merged = dict(DEFAULT_RULES)
    for key, value in (rules or {}).items():
        if key not in _ALLOWED:
            raise ValueError(f"unknown rule option {key!r}")
        if value not in _ALLOWED[key]:
            raise ValueError(f"rule option {key}={value!r} is not one of {_ALLOWED[key]}")
        merged[key] = value
    return merged


def _check_counts(counts: Sequence[int]) -> Counts:
    counts = tuple(int(c) for c in counts)
    if len(counts) != 25 or min(counts) < 0 or sum(counts) != CHECKERS:
        raise ValueError(f"counts must be 25 non-negative ints summing to 15, got {counts}")
    return counts


# --------------------------------------------------------------------------- single dice


def _released(me: Counts, rules: Mapping[str, object]) -> bool:
    """Section 4: a checker on own point 11 (12 with "reach") or lower, or borne off."""
    last = 12 if rules["release"] == "reach" else 11
    return any(me[k] for k in range(0, last + 1))


def _fills(me: Counts, points: range) -> bool:
    return all(me[k] > 0 for k in points)


def _breaks_prime_rules(me: Counts, rules: Mapping[str, object]) -> bool:
    """The six-prime restrictions of section 5.1 and the ban_prime variant."""
    if _fills(me, START_QUARTER):
        return True
    return bool(rules["ban_prime_before_opponent_mother"]) and _fills(me, BAN_PRIME_POINTS)


def _single_die(me: Counts, closed: Sequence[bool], die: int, rules: Mapping[str, object]) -> Iterator[Counts]:
    """Every position after playing one die `die` (sections 3, 4, 5.1, 7).

    `closed[k]` says whether own point k holds an opposing checker.
    """
    # (the release is asked, and the highest point found, only where the rule needs them: this
    # is the cross-checks' hottest loop, and most calls need neither)
    away_from_mother = sum(me[1:MOTHER])
    all_home = sum(me[7:25]) == 0
    highest = max(k for k in range(1, 25) if me[k]) if all_home and any(me[1:]) else 0
    for source in range(1, 25):
        if me[source] == 0:
            continue
        if source == MOTHER and away_from_mother > 0 and not _released(me, rules):
            continue  # mother rule: only one checker away until released
        target = source - die
        if target >= 1:
            if closed[target]:
                continue  # one opposing checker closes a point
        else:
            if not all_home:
                continue  # bearing off only with every checker in the home
            if target < 0 and source != highest:
                continue  # a larger die bears off from the highest point only
            target = OFF
        after = list(me)
        after[source] -= 1
        after[target] += 1
        result = tuple(after)
        if rules["start_quarter_check"] == "each_die" and _breaks_prime_rules(result, rules):
            continue
        yield result


OPPOSITE = (0, *(opposite_point(k) for k in range(1, 25)))  # OPPOSITE[k] = opposite_point(k), looked up


def _closed_points(op: Counts) -> list[bool]:
    """closed[k]: does the opponent hold my own point k?"""
    return [False] + [op[OPPOSITE[k]] > 0 for k in range(1, 25)]


def sequences(me: Counts, dice: Sequence[int], single_die: Callable[[Counts, int], Iterable[Counts]]) -> set[tuple[Counts, tuple[int, ...]]]:
    """Every (final position, sorted dice used) of every order of `dice` and every prefix
    (the empty one included), a die played wherever `single_die(position, die)` yields a
    result; no die is played once all 15 are off. The walk of docs/rules.md section 6 step 1,
    shared with the Gioul reference (a Gioul decision walks its group of dice the same way)."""
    found: set[tuple[Counts, tuple[int, ...]]] = set()
    seen: set[tuple[Counts, tuple[int, ...]]] = set()

    def walk(position: Counts, remaining: tuple[int, ...], used: tuple[int, ...]) -> None:
        if (position, remaining) in seen:
            return
        seen.add((position, remaining))
        found.add((position, tuple(sorted(used))))
        if position[OFF] == CHECKERS:
            return  # the game is over: later dice are not played
        for die in sorted(set(remaining)):
            rest = list(remaining)
            rest.remove(die)
            for after in single_die(position, die):
                walk(after, tuple(rest), used + (die,))

    walk(me, tuple(dice), ())
    return found


def _candidates(me: Counts, op: Counts, dice: Dice, rules: Mapping[str, object]) -> set[tuple[Counts, tuple[int, ...]]]:
    """Step 1: every (final position, dice used) of every sequence and every prefix."""
    closed = _closed_points(op)
    d1, d2 = dice
    return sequences(me, (d1,) * 4 if d1 == d2 else sorted(dice),
                     lambda position, die: _single_die(position, closed, die, rules))


# --------------------------------------------------------------------------- obligations


def _trapped_front(me: Counts, op: Counts) -> list[int] | None:
    """Rule 5.2: my own points in front of an opponent army of 15 on one point X >= 7
    that I hold completely; None when there is no such obligation."""
    for x in range(7, 25):
        if op[x] == CHECKERS:
            front = [opposite_point(x - i) for i in range(1, 7)]
            if all(me[p] > 0 for p in front):
                return front
    return None


def _side_can_move(me: Counts, op: Counts, rules: Mapping[str, object]) -> bool:
    """Does `me` (on roll against `op`) have a non-pass move for some roll?

    That is: for some roll, a candidate that plays at least one die survives steps 1-2.
    The obligation filter (step 3) is not applied here: it would make the question
    recursive, and section 6 says a player passes only when no die can be played.
    """
    closed = _closed_points(op)
    end_of_turn = rules["start_quarter_check"] == "end_of_turn"
    for die in range(1, 7):
        for after in _single_die(me, closed, die, rules):
            if not (end_of_turn and _breaks_prime_rules(after, rules)):
                return True
    if not end_of_turn:
        return False  # every candidate starts with one playable die
    # With end-of-turn checks a longer sequence may repair a violating first die.
    for dice in ROLLS:
        for final, used in _candidates(me, op, dice, rules):
            if used and not _breaks_prime_rules(final, rules):
                return True
    return False


# --------------------------------------------------------------------------- full turn


def _legal_finals(me: Counts, op: Counts, dice: Dice, rules: Mapping[str, object]) -> set[Counts]:
    """Steps 1-6 of section 6 for the side `me`; returns its distinct final counts."""
    d1, d2 = dice
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be in 1..6, got {dice}")
    candidates = _candidates(me, op, dice, rules)  # step 1

    if rules["start_quarter_check"] == "end_of_turn":  # step 2
        candidates = {c for c in candidates if not _breaks_prime_rules(c[0], rules)}

    if rules["must_open"] == "no_playable_roll":  # step 3
        can_move: dict[Counts, bool] = {}  # one answer per final position (candidates repeat finals)
        for final, _ in candidates:
            if final not in can_move:
                can_move[final] = _side_can_move(op, final, rules)
        fulfilling = {c for c in candidates if can_move[c[0]]}
    else:
        front = _trapped_front(me, op)
        fulfilling = {c for c in candidates if any(c[0][p] == 0 for p in front)} if front else set()
    if fulfilling:
        candidates = fulfilling

    if not candidates:
        return {me}
    most = max(len(used) for _, used in candidates)  # step 4
    candidates = {c for c in candidates if len(c[1]) == most}

    if d1 != d2 and most == 1:  # step 5
        larger = {c for c in candidates if c[1] == (max(dice),)}
        if larger:
            candidates = larger

    if most == 0:  # step 6
        return {me}
    return {final for final, _ in candidates}


def _sides(white: Sequence[int], black: Sequence[int], turn: int) -> tuple[Counts, Counts]:
    if turn not in (WHITE, BLACK):
        raise ValueError(f"turn must be 0 (White) or 1 (Black), got {turn!r}")
    white, black = _check_counts(white), _check_counts(black)
    for k in range(1, 25):
        if white[k] and black[opposite_point(k)]:
            raise ValueError(f"White's own point {k} also holds Black checkers")
    return (white, black) if turn == WHITE else (black, white)


def legal_results(
    white: Sequence[int],
    black: Sequence[int],
    turn: int,
    dice: Dice,
    rules: Mapping[str, object] | None = None,
) -> set[tuple[Counts, Counts]]:
    """The distinct (white, black) results of the full turn of `turn` for `dice`.

    A pass gives the unchanged position; the other side is on roll afterwards.
    """
    rules = full_rules(rules)
    me, op = _sides(white, black, turn)
    finals = _legal_finals(me, op, (int(dice[0]), int(dice[1])), rules)
    if turn == WHITE:
        return {(final, op) for final in finals}
    return {(op, final) for final in finals}


def has_any_move(
    white: Sequence[int],
    black: Sequence[int],
    turn: int,
    rules: Mapping[str, object] | None = None,
) -> bool:
    """Whether the side `turn` has a legal non-pass move for at least one of the 21 rolls."""
    rules = full_rules(rules)
    me, op = _sides(white, black, turn)
    return _side_can_move(me, op, rules)


def is_game_over(white: Sequence[int], black: Sequence[int]) -> bool:
    """Someone has borne off all 15 checkers."""
    return white[OFF] == CHECKERS or black[OFF] == CHECKERS


def perft(
    white: Sequence[int],
    black: Sequence[int],
    turn: int,
    depth: int,
    rules: Mapping[str, object] | None = None,
) -> int:
    """Leaves of the tree over the 21 rolls and then the distinct legal moves.

    A pass is one move; finished games are leaves counted once.
    """
    rules = full_rules(rules)
    white, black = _check_counts(white), _check_counts(black)
    if depth == 0 or is_game_over(white, black):
        return 1
    total = 0
    for dice in ROLLS:
        for w, b in legal_results(white, black, turn, dice, rules):
            total += perft(w, b, 1 - turn, depth - 1, rules)
    return total
