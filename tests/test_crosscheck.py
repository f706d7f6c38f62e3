"""Cross-check the engine's move generator against the pure-Python reference.

The reference (tests/reference.py) is a literal reading of docs/rules.md that shares no code
with the package. Every check here compares, for one position and one roll, the set of
resulting positions of `Position.legal_moves` with the reference's `legal_results`
(and asserts the engine lists no result twice).

Positions come from:
- seeded random games driven by the reference itself (uniform over the distinct legal
  results), under the default rules and the strict preset (>= 20,000 positions together),
  and under every single variant option on its own;
- games where both sides greedily build primes, to reach blocks and primes often;
- generated families (trapped armies, primed runners, bear-offs) that random play
  almost never reaches;
- hand-made positions around each rule, checked for all 21 rolls under all variant mixes.

The reference is the slow side, so sample sizes are set by its speed (about 0.2-0.8 ms a
roll) to keep this file within a few minutes of CPU.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

import gioul_reference as gioul_ref
import reference as ref
from boards import initial
from fevga import BLACK, WHITE, Position, Rules
from fevga import perft as fevga_perft
from reference import Counts, side

RuleDict = Mapping[str, object]
Result = tuple[Counts, Counts]

DEFAULT: RuleDict = {}
STRICT: RuleDict = {"release": "reach", "ban_prime_before_opponent_mother": True, "must_open": "no_playable_roll"}
SINGLE_OPTIONS: dict[str, RuleDict] = {
    "release_reach": {"release": "reach"},
    "opening_dice": {"first_roll": "opening_dice"},
    "end_of_turn": {"start_quarter_check": "end_of_turn"},
    "ban_prime": {"ban_prime_before_opponent_mother": True},
    "no_playable_roll": {"must_open": "no_playable_roll"},
}
# Every mix of the four options that change move generation (first_roll does not).
ALL_MIXES: list[RuleDict] = [
    {
        "release": release,
        "start_quarter_check": timing,
        "ban_prime_before_opponent_mother": ban,
        "must_open": must_open,
    }
    for release, timing, ban, must_open in itertools.product(
        ("pass", "reach"), ("each_die", "end_of_turn"), (False, True), ("fifteen_behind", "no_playable_roll")
    )
]

# Sample sizes (positions). Random games: default + strict >= 20,000.
RANDOM_GAME_POSITIONS = 11_000
ALL_ROLLS_EVERY = 25  # also compare all 21 rolls at every n-th sampled position
VARIANT_POSITIONS = 2_000
BLOCKING_POSITIONS = 1_500
FAMILY_POSITIONS = 300
MAX_REPORTED = 5


# --------------------------------------------------------------------------- comparing


def engine_rules(rules: RuleDict) -> Rules:
    return Rules(**rules)


def describe_side(counts: Counts) -> str:
    """`24x14 13x1 offx0` style, own numbering, highest point first."""
    parts = [f"{k}x{counts[k]}" for k in range(24, 0, -1) if counts[k]]
    if counts[0]:
        parts.append(f"offx{counts[0]}")
    return " ".join(parts)


def describe_result(result: Result) -> str:
    return f"W[{describe_side(result[0])}] B[{describe_side(result[1])}]"


@dataclass
class Mismatches:
    """Collects disagreements; the test fails with the first few, fully described."""

    checked: int = 0
    found: list[str] = field(default_factory=list)

    def compare(self, white: Counts, black: Counts, turn: int, dice: tuple[int, int], rules: RuleDict,
                expected: set[Result] | None = None) -> None:
        self.checked += 1
        if expected is None:
            expected = ref.legal_results(white, black, turn, dice, rules)
        moves = Position.from_counts(white, black, turn).legal_moves(dice, rules=engine_rules(rules))
        got_list = [(tuple(m.position.counts(WHITE)), tuple(m.position.counts(BLACK))) for m in moves]
        got = set(got_list)
        problems = []
        if got != expected:
            problems.append("reference only: " + "; ".join(sorted(map(describe_result, expected - got))))
            problems.append("engine only: " + "; ".join(sorted(map(describe_result, got - expected))))
        if len(got_list) != len(got):
            problems.append(f"duplicates: {len(got_list)} moves for {len(got)} positions")
        if any(m.position.turn != 1 - turn for m in moves):
            problems.append("a result does not have the other side on roll")
        if problems:
            self.found.append(
                f"{describe_result((white, black))} {'White' if turn == WHITE else 'Black'} to play, "
                f"dice {dice[0]}-{dice[1]}, rules {dict(rules)}\n    " + "\n    ".join(problems)
            )

    def assert_none(self, minimum: int = 1) -> None:
        assert self.checked >= minimum, f"only {self.checked} comparisons, expected at least {minimum}"
        shown = "\n".join(self.found[:MAX_REPORTED])
        assert not self.found, f"{len(self.found)} of {self.checked} comparisons disagree:\n{shown}"


def compare_all_rolls(check: Mismatches, white: Counts, black: Counts, turn: int, rules: RuleDict) -> None:
    for d1, d2 in ref.ROLLS:
        check.compare(white, black, turn, (d1, d2), rules)


# --------------------------------------------------------------------------- random games


@dataclass(frozen=True)
class Sample:
    """A position met in a game, the roll played there and the reference's results."""

    white: Counts
    black: Counts
    turn: int
    dice: tuple[int, int]
    results: frozenset[Result]


Chooser = Callable[[random.Random, list[Result], int], Result]


def uniform_choice(rng: random.Random, results: list[Result], turn: int) -> Result:
    return rng.choice(results)


def _prime_score(counts: Counts) -> tuple[int, int]:
    """Longest run of held points, then number of points held."""
    longest = run = 0
    for k in range(1, 25):
        run = run + 1 if counts[k] else 0
        longest = max(longest, run)
    return longest, sum(1 for k in range(1, 25) if counts[k])


def blocking_choice(rng: random.Random, results: list[Result], turn: int) -> Result:
    """Mostly the move that builds the longest prime: reaches blocks and primes often."""
    if rng.random() < 0.1:
        return rng.choice(results)
    best = max(_prime_score(r[turn]) for r in results)
    return rng.choice([r for r in results if _prime_score(r[turn]) == best])


def random_game(seed: int, rules: RuleDict, choose: Chooser = uniform_choice, max_plies: int = 2_000) -> Iterator[Sample]:
    """The positions of one seeded game, each with the roll played and its legal results."""
    rng = random.Random(seed)
    white, black = ref.initial()
    turn = WHITE
    for _ in range(max_plies):
        if ref.is_game_over(white, black):
            return
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        results = sorted(ref.legal_results(white, black, turn, dice, rules))
        yield Sample(white, black, turn, dice, frozenset(results))
        after = choose(rng, results, turn)
        if after == (white, black) and not (
            ref.has_any_move(white, black, WHITE, rules) or ref.has_any_move(white, black, BLACK, rules)
        ):
            return  # a dead position: the game is a draw
        (white, black), turn = after, 1 - turn


def game_samples(first_seed: int, count: int, rules: RuleDict, choose: Chooser = uniform_choice) -> Iterator[Sample]:
    """`count` positions from consecutive seeded games."""
    produced = 0
    for seed in itertools.count(first_seed):
        for sample in random_game(seed, rules, choose):
            yield sample
            produced += 1
            if produced == count:
                return


def check_games(rules: RuleDict, first_seed: int, count: int, choose: Chooser = uniform_choice) -> Mismatches:
    """Compare each sampled position for its game roll (dice order random) and one more roll."""
    check = Mismatches()
    rng = random.Random(first_seed)
    for index, s in enumerate(game_samples(first_seed, count, rules, choose)):
        dice = s.dice if rng.random() < 0.5 else (s.dice[1], s.dice[0])
        check.compare(s.white, s.black, s.turn, dice, rules, set(s.results))
        check.compare(s.white, s.black, s.turn, rng.choice(ref.ROLLS), rules)
        if index % ALL_ROLLS_EVERY == 0:
            compare_all_rolls(check, s.white, s.black, s.turn, rules)
    return check


@pytest.mark.slow
@pytest.mark.parametrize("name", ["default", "strict"])
def test_random_games(name: str) -> None:
    rules = {"default": DEFAULT, "strict": STRICT}[name]
    first_seed = 1_000 if name == "default" else 2_000
    check_games(rules, first_seed, RANDOM_GAME_POSITIONS).assert_none(2 * RANDOM_GAME_POSITIONS)


@pytest.mark.parametrize("name", sorted(SINGLE_OPTIONS))
def test_single_option_games(name: str) -> None:
    first_seed = 10_000 + 1_000 * sorted(SINGLE_OPTIONS).index(name)
    check_games(SINGLE_OPTIONS[name], first_seed, VARIANT_POSITIONS).assert_none(2 * VARIANT_POSITIONS)


BLOCKING_RULES: dict[str, RuleDict] = {
    "default": DEFAULT,
    "strict": STRICT,
    "end_of_turn": SINGLE_OPTIONS["end_of_turn"],
    "ban_prime": SINGLE_OPTIONS["ban_prime"],
}


@pytest.mark.parametrize("name", list(BLOCKING_RULES))
def test_blocking_games(name: str) -> None:
    first_seed = 20_000 + 1_000 * list(BLOCKING_RULES).index(name)
    check_games(BLOCKING_RULES[name], first_seed, BLOCKING_POSITIONS, blocking_choice).assert_none(
        2 * BLOCKING_POSITIONS
    )


def test_strict_preset_matches_the_reference() -> None:
    assert Rules.strict() == engine_rules(STRICT)
    assert engine_rules(STRICT).to_dict() == ref.full_rules(STRICT)


# --------------------------------------------------------------------------- generated families


def _place(rng: random.Random, counts: list[int], points: list[int], n: int) -> None:
    for _ in range(n):
        counts[rng.choice(points)] += 1


def _opponent_points(op: list[int] | Counts) -> set[int]:
    """My own points held by the opponent."""
    return {ref.opposite_point(k) for k in range(1, 25) if op[k]}


def _free(points: range | list[int], blocked: set[int]) -> list[int]:
    return [p for p in points if p not in blocked]


def _reachable_looking(me: list[int], rules: RuleDict) -> bool:
    """Could a game under `rules` reach this side's counts? (no forbidden prime, mother
    rule, bear-off only with everything home)."""
    counts = tuple(me)
    if all(counts[k] for k in ref.START_QUARTER):
        return False
    if rules.get("ban_prime_before_opponent_mother") and all(counts[k] for k in ref.BAN_PRIME_POINTS):
        return False
    if counts[0] and any(counts[7:]):
        return False
    last = 12 if rules.get("release") == "reach" else 11
    released = any(counts[: last + 1])
    return released or sum(counts[1:24]) <= 1


def trapped_army(rng: random.Random, rules: RuleDict) -> tuple[list[int], list[int]]:
    """Rule 5.2: the opponent's 15 (or 14) on one point X, the mover holding the six in front."""
    last = 12 if rules.get("release") == "reach" else 11
    x = rng.randint(7, last)  # an army of 15 away from its mother must be released
    op = [0] * 25
    op[x] = 15 if rng.random() < 0.75 else 14
    if op[x] == 14:
        op[rng.choice(range(1, x))] += 1
    me = [0] * 25
    front = [ref.opposite_point(x - i) for i in range(1, 7)]
    for p in front:
        me[p] += 1
    _place(rng, me, _free(front + list(range(1, 19)), _opponent_points(op)), 9)
    return me, op


def primed_runner(rng: random.Random, rules: RuleDict) -> tuple[list[int], list[int]]:
    """An unreleased opponent (14 on its mother, a runner) in front of a (nearly) full prime."""
    runner = rng.randint(13, 23)
    op = [0] * 25
    op[24], op[runner] = 14, 1
    front = [ref.opposite_point(runner - i) for i in range(1, 7)]
    if rng.random() < 0.6:
        front.remove(rng.choice(front))  # leave a hole to close or keep
    me = [0] * 25
    for p in front:
        me[p] += 1
    _place(rng, me, _free(range(1, 24), _opponent_points(op)), 15 - len(front))
    return me, op


def bear_off(rng: random.Random, rules: RuleDict) -> tuple[list[int], list[int]]:
    """The mover in its home (some off, or one straggler outside), the opponent anywhere."""
    me = [0] * 25
    on_board = rng.randint(1, 15)
    me[0] = 15 - on_board
    _place(rng, me, list(range(1, 7)), on_board)
    if me[0] == 0 and rng.random() < 0.3:
        me[rng.choice([k for k in range(1, 7) if me[k]])] -= 1
        me[rng.randint(7, 12)] += 1
    op = [0] * 25
    if rng.random() < 0.3:  # the opponent bearing off too
        op[0] = rng.randint(0, 12)
        _place(rng, op, list(range(1, 7)), 15 - op[0])
    else:  # the opponent on its own 7-18 (my 19-24 and my home)
        _place(rng, op, _free(range(7, 19), _opponent_points(me)), 15)
    return me, op


FAMILIES = {"trapped_army": trapped_army, "primed_runner": primed_runner, "bear_off": bear_off}


def family_positions(name: str, rules: RuleDict, seed: int, count: int) -> Iterator[tuple[Counts, Counts, int]]:
    """`count` consistent positions of a family, the mover White or Black at random."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        me, op = FAMILIES[name](rng, rules)
        if sum(op) != 15 or sum(me) != 15 or not (_reachable_looking(me, rules) and _reachable_looking(op, rules)):
            continue
        if any(me[k] and op[ref.opposite_point(k)] for k in range(1, 25)) or me[0] == 15 or op[0] == 15:
            continue
        turn = rng.choice((WHITE, BLACK))
        white, black = (me, op) if turn == WHITE else (op, me)
        made += 1
        yield tuple(white), tuple(black), turn


FAMILY_RULES: dict[str, RuleDict] = {
    "default": DEFAULT,
    "strict": STRICT,
    "end_of_turn+ban": {"start_quarter_check": "end_of_turn", "ban_prime_before_opponent_mother": True},
    "no_playable_roll": SINGLE_OPTIONS["no_playable_roll"],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("rules_name", list(FAMILY_RULES))
def test_generated_families(family: str, rules_name: str) -> None:
    rules = FAMILY_RULES[rules_name]
    check = Mismatches()
    seed = 40_000 + 100 * sorted(FAMILIES).index(family) + list(FAMILY_RULES).index(rules_name)
    rng = random.Random(seed)
    for white, black, turn in family_positions(family, rules, seed, FAMILY_POSITIONS):
        for dice in rng.sample(ref.ROLLS, 4):
            check.compare(white, black, turn, dice, rules)
    check.assert_none(4 * FAMILY_POSITIONS)


# --------------------------------------------------------------------------- hand-made positions


START = side({24: 15})
FAR = side({1: 15})  # on the other side's 13, out of the way of a bear-off
CRAFTED: dict[str, tuple[Counts, Counts]] = {
    # (mover, opponent), mover on roll; each is also checked mirrored and with the other on roll
    "start": (START, START),
    "mother_runner": (side({24: 14, 16: 1}), START),
    "release_at_12": (side({24: 14, 14: 1}), side({13: 15})),
    "release_at_11": (side({24: 14, 13: 1}), side({13: 15})),
    "runner_on_12": (side({24: 14, 12: 1}), side({13: 15})),
    "reach_released": (side({24: 13, 12: 1, 20: 1}), side({13: 15})),
    "runner_blocked": (side({24: 14, 20: 1}), side({24: 13, 1: 1, 4: 1})),
    "closed_points": (START, side({24: 13, 6: 1, 5: 1})),
    "quarter_hole": (side({24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1}), side({24: 14, 6: 1})),
    "quarter_two_holes": (side({24: 9, 23: 2, 22: 1, 20: 1, 11: 2}), side({24: 14, 3: 1})),
    "ban_prime_hole": (side({6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 13: 1, 3: 9}), START),
    "ban_prime_stacked": (side({6: 2, 7: 2, 8: 2, 9: 2, 11: 2, 14: 3, 2: 2}), side({24: 14, 8: 1})),
    "trap_vector_9": (side({6: 2, 7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 13: 3}), START),
    "trap_singles": (side({6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 13: 9}), START),
    "trap_on_own_7": (side({6: 1, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 4}), side({19: 15})),
    "trap_fourteen": (side({6: 1, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 4}), side({19: 14, 20: 1})),
    "trap_cannot_open": (side({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3}), side({19: 15})),
    "trap_released_army": (side({20: 1, 19: 1, 18: 1, 17: 2, 16: 1, 15: 1, 14: 4, 3: 4}), side({9: 15})),
    "half_block": (side({7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 13: 5}), START),
    "half_block_singles": (side({7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 14: 10}), START),
    "vector_6": (side({0: 14, 3: 1}), FAR),
    "vector_7": (side({0: 13, 5: 1, 2: 1}), FAR),
    "vector_8": (side({0: 6, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2}), FAR),
    "bear_off_straggler": (side({7: 1, 6: 6, 5: 4, 1: 4}), FAR),
    "bear_off_inside": (side({0: 13, 6: 1, 3: 1}), FAR),
    "bear_off_two_left": (side({0: 13, 1: 2}), FAR),
    "bear_off_last_on_6": (side({0: 14, 6: 1}), FAR),
    "bear_off_gap": (side({0: 5, 6: 5, 1: 5}), side({6: 3, 5: 3, 4: 3, 3: 3, 2: 3})),
    "bear_off_blocked_inside": (side({0: 8, 6: 3, 5: 2, 4: 2}), side({15: 2, 14: 2, 10: 11})),
}
_MIXES_AND_OPENING = [*ALL_MIXES, {"first_roll": "opening_dice"}]


def crafted_cases(mover: Counts, opponent: Counts) -> Iterator[tuple[Counts, Counts, int]]:
    """The position with either colour as the mover and either side on roll."""
    yield mover, opponent, WHITE
    yield opponent, mover, BLACK
    yield mover, opponent, BLACK
    yield opponent, mover, WHITE


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_positions(name: str) -> None:
    check = Mismatches()
    for white, black, turn in crafted_cases(*CRAFTED[name]):
        for rules in _MIXES_AND_OPENING:
            compare_all_rolls(check, white, black, turn, rules)
    check.assert_none()


# --------------------------------------------------------------------------- other answers


# Perft from each game's start at depths 1-3 (Gioul: a decision of a chain is a level, docs/perft.md).
PERFT = {"fevga": (22, 479, 21_893), "gioul": (53, 2_768, 480_752)}
REFERENCE_PERFT: dict[str, Callable[[int], int]] = {
    "fevga": lambda depth: ref.perft(ref.initial()[0], ref.initial()[1], WHITE, depth),
    "gioul": lambda depth: gioul_ref.perft(gioul_ref.initial(), depth),
}


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_engine_perft_through_legal_moves(game: str, depth: int) -> None:
    """A perft written here over legal_moves (no dice for a Gioul decision pending) is the
    engine's perft and the known count, and at depths the reference reaches quickly, the reference's."""
    def perft(position: Any, depth: int) -> int:
        if depth == 0 or position.is_game_over():
            return 1
        rolls = [None] if getattr(position, "pending", ()) else ref.ROLLS
        return sum(perft(m.position, depth - 1) for d in rolls for m in position.legal_moves(d))

    start = initial(game)
    expected = PERFT[game][depth - 1]
    assert perft(start, depth) == expected == fevga_perft(start, depth)
    if depth <= 2:
        assert REFERENCE_PERFT[game](depth) == expected


def test_can_move_matches_the_reference() -> None:
    disagreements = []
    positions = [(s.white, s.black) for s in game_samples(30_000, 400, DEFAULT, blocking_choice)]
    positions += [(w, b) for w, b, _ in family_positions("primed_runner", DEFAULT, 5, 200)]
    positions += [(w, b) for w, b, _ in family_positions("trapped_army", DEFAULT, 6, 100)]
    for rules in (DEFAULT, STRICT, SINGLE_OPTIONS["end_of_turn"]):
        for white, black in positions:
            position = Position.from_counts(white, black, WHITE)
            for color in (WHITE, BLACK):
                expected = ref.has_any_move(white, black, color, rules)
                if position.can_move(color, engine_rules(rules)) != expected:
                    disagreements.append((describe_result((white, black)), color, dict(rules), expected))
    assert not disagreements, disagreements[:MAX_REPORTED]
