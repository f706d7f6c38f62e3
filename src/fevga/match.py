"""Match play: the match equity table and match winning chances.

A Fevga match is played to N points; a game is worth 1 point, or 2 for a mars, or 0 for a
draw (a dead position); there is no cube (so no Crawford rule). The winner of a game
starts the next one; the first game and a game after a draw start with the one-die draw,
which each side wins half the time (docs/rules.md §2).

The table is computed **exactly** from the outcome probabilities of one game for the side
that starts it (`GameOdds`): ``S(a, b)``, the probability that the side needing `a` more
points wins the match when it starts the next game against a side needing `b`, satisfies

    S(a, b) = ws * S(a-1, b) + wm * S(a-2, b)
            + ls * (1 - S(b-1, a)) + lm * (1 - S(b-2, a))
            + d * U(a, b),          U(a, b) = (S(a, b) + 1 - S(b, a)) / 2,

with ``S(a <= 0, b) = 1`` and ``S(a, b <= 0) = 0`` (a won game hands the next start to its
winner, a draw goes back to the one-die draw: ``U`` is the value before that draw). Every
term on the right except the draw term has a smaller ``a + b``, so the table is filled in
order of ``a + b``: with ``R`` the four non-draw terms, ``U(a, b) = 1/2 + (R(a, b) -
R(b, a)) / (2 (1 - d))`` in closed form, then ``S(a, b) = R(a, b) + d U(a, b)``. Games begun
by the one-die draw may have odds of their own (``opening=``, the ``opening_dice`` variant).
docs/match.md gives the derivation and checks.

>>> table = match_equity_table(5, GameOdds(0.4, 0.15, 0.35, 0.1, 0.0))
>>> round(table.starter(1, 1), 4), round(table.starter(2, 1), 4)
(0.55, 0.37)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError
from fevga.limits import MAX_LENGTH, check_int, check_real
from fevga.rules import rules_of

Starter = Literal["me", "opponent", "draw"]


@dataclass(frozen=True)
class GameOdds:
    """Outcome probabilities of one game from its start, for the side that rolls first."""

    win_single: float
    win_mars: float
    lose_single: float
    lose_mars: float
    draw: float = 0.0

    def __post_init__(self) -> None:
        values = (self.win_single, self.win_mars, self.lose_single, self.lose_mars, self.draw)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) and 0.0 <= v <= 1.0 for v in values):
            raise InvalidArgumentError(f"game odds {values} must be probabilities in [0, 1]")
        if abs(sum(values) - 1.0) > 1e-9:
            raise InvalidArgumentError(f"game odds {values} must sum to 1, not {sum(values)!r}")
        if self.draw >= 1.0:
            raise InvalidArgumentError("game odds: a game that is always drawn never ends a match")

    @classmethod
    def from_probabilities(cls, win: float, win_mars: float, lose_mars: float, draw: float = 0.0) -> GameOdds:
        """Odds from P(win), P(win with mars), P(lose with mars), P(draw) (the form of rollouts
        and evaluations: win includes win_mars)."""
        win, win_mars, lose_mars, draw = (check_real(name, value) for name, value in
                                          (("win", win), ("win_mars", win_mars), ("lose_mars", lose_mars), ("draw", draw)))
        lose = 1.0 - win - draw
        return cls(win - win_mars, win_mars, lose - lose_mars, lose_mars, draw)

    @classmethod
    def from_rollout(cls, result: Any) -> GameOdds:
        """Odds from a `fevga.RolloutResult` of the starting position (its side on roll starts)."""
        return cls.from_probabilities(result.win, result.win_mars, result.lose_mars, result.draw)

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return {"win_single": self.win_single, "win_mars": self.win_mars, "lose_single": self.lose_single,
                "lose_mars": self.lose_mars, "draw": self.draw}


# Measured input, not a result (the one place these numbers live; docs/match.md shows the run):
# the shipped net 3 (policy "net", parameters' sha256 3cb6235b...) playing itself from the start,
# `python benchmarks/game_odds.py --games 518400 --seed 2026`, i.e.
# `measure_odds(games=518400, seed=2026, policy="net")`; 95% CI half-widths in docs/match.md.
ODDS_SOURCE: dict[str, str | int] = {"policy": "net", "net": "3cb6235b62a5eb64", "games": 518400, "seed": 2026}
WIN, WIN_MARS, LOSE_MARS, DRAW = 0.5813483796296296, 0.12313271604938271, 0.048352623456790124, 0.0
DEFAULT_ODDS = GameOdds.from_probabilities(win=WIN, win_mars=WIN_MARS, lose_mars=LOSE_MARS, draw=DRAW)


@dataclass(frozen=True)
class MatchEquityTable:
    """Match winning chances for every pair of away scores up to `length`.

    ``starter(a, b)``: I need `a` points, the opponent `b`, and I start the next game;
    ``receiver(a, b)``: the opponent starts it; ``draw(a, b)``: the one-die draw decides
    (the first game, or after a drawn game). ``a, b <= 0`` means that side has won.
    """

    length: int
    odds: GameOdds
    starts: npt.NDArray[np.float64]  # starts[a, b] = S(a, b), a, b in 0..length
    drawn: npt.NDArray[np.float64] | None = None  # drawn[a, b] = U(a, b), before the one-die draw
    opening: GameOdds | None = None  # odds of a game begun by the one-die draw, when they differ

    def starter(self, a: int, b: int) -> float:
        """P(I win the match) needing `a` against `b`, when I start the next game."""
        i, j = self._index(a), self._index(b)
        return float(self.starts[i, j]) if i > 0 or j > 0 else self._both_won()

    def receiver(self, a: int, b: int) -> float:
        """P(I win the match) needing `a` against `b`, when the opponent starts the next game."""
        return 1.0 - self.starter(b, a)

    def draw(self, a: int, b: int) -> float:
        """P(I win the match) needing `a` against `b`, before the one-die draw for the start."""
        if self.drawn is None or self._index(a) == 0 or self._index(b) == 0:
            return 0.5 * (self.starter(a, b) + self.receiver(a, b))
        return float(self.drawn[self._index(a), self._index(b)])

    def value(self, a: int, b: int, starter: Starter = "draw") -> float:
        """P(I win the match) needing `a` against `b`; `starter` says who starts the next game."""
        starter = _starter(starter)
        if starter == "me":
            return self.starter(a, b)
        if starter == "opponent":
            return self.receiver(a, b)
        if starter == "draw":
            return self.draw(a, b)
        raise InvalidArgumentError(f"starter {starter!r} must be 'me', 'opponent' or 'draw'")

    def _index(self, away: int) -> int:
        if not isinstance(away, (int, np.integer)) or isinstance(away, bool) or away > self.length:
            raise InvalidArgumentError(f"away score {away!r} must be an integer <= the table's length {self.length}")
        return max(int(away), 0)

    def _both_won(self) -> float:
        raise InvalidArgumentError("both sides cannot have won the match")

    def grid(self, starter: Starter = "draw") -> npt.NDArray[np.float64]:
        """The (length, length) array of value(a, b, starter) for a, b = 1..length."""
        s = self.starts[1:, 1:]
        starter = _starter(starter)
        if starter == "me":
            return s.copy()
        if starter == "opponent":
            return np.asarray(1.0 - s.T)
        if starter == "draw":
            return np.asarray(0.5 * (s + 1.0 - s.T)) if self.drawn is None else self.drawn[1:, 1:].copy()
        raise InvalidArgumentError(f"starter {starter!r} must be 'me', 'opponent' or 'draw'")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the odds and the three grids (row a-1, column b-1)."""
        return {"length": self.length, "odds": self.odds.to_dict(),
                "opening": None if self.opening is None else self.opening.to_dict(),
                "starter": self.grid("me").tolist(), "receiver": self.grid("opponent").tolist(),
                "draw": self.grid("draw").tolist()}

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    def to_text(self, starter: Starter = "draw", size: int | None = None) -> str:
        """A readable table in percent: rows = my away score, columns = the opponent's."""
        n = self.length if size is None else min(self.length, check_int("size", size, 0) or self.length)
        grid = self.grid(starter)
        head = "away " + "".join(f"{b:>6d}" for b in range(1, n + 1))
        lines = [head]
        for a in range(1, n + 1):
            lines.append(f"{a:>4d} " + "".join(f"{100 * grid[a - 1, b - 1]:6.1f}" for b in range(1, n + 1)))
        return "\n".join(lines)


def _starter(starter: object) -> Starter:
    """`starter` if it names who starts the next game."""
    if not isinstance(starter, str) or starter not in ("me", "opponent", "draw"):
        raise InvalidArgumentError(f"starter {repr(starter)[:60]} must be 'me', 'opponent' or 'draw'")
    return starter  # type: ignore[return-value]


def match_equity_table(length: int = 25, odds: GameOdds | None = None,
                       opening: GameOdds | None = None) -> MatchEquityTable:
    """The exact match equity table up to `length` points from one game's outcome odds.

    `opening` are the odds of a game begun by the one-die draw (the first game, and any game
    after a draw) when they differ from those of a game begun by the previous winner: under
    ``first_roll="opening_dice"`` the former opens with the draw's two dice, never a double.
    Under the default rules both open with fresh dice, and `opening` is left out.
    """
    n = check_int("match length", length, 1, MAX_LENGTH)
    odds = DEFAULT_ODDS if odds is None else odds
    for given in (odds, opening):
        if given is not None and not isinstance(given, GameOdds):
            raise InvalidArgumentError(f"odds {given!r} must be a fevga.match.GameOdds")
    first = odds if opening is None else opening
    s = np.zeros((n + 1, n + 1))
    s[0, 1:] = 1.0  # I have won
    u = np.full((n + 1, n + 1), 0.5)
    u[0, 1:], u[1:, 0] = 1.0, 0.0

    def at(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return float(s[a, b])

    def rest(o: GameOdds, a: int, b: int) -> float:
        """The non-draw terms of S(a, b) for a game with odds `o` (smaller a + b only)."""
        return (o.win_single * at(a - 1, b) + o.win_mars * at(a - 2, b)
                + o.lose_single * (1.0 - at(b - 1, a)) + o.lose_mars * (1.0 - at(b - 2, a)))

    # A game begun by the draw: U(a, b) = (S'(a, b) + 1 - S'(b, a)) / 2 with S'(a, b) = R'(a, b)
    # + d' U(a, b) and U(b, a) = 1 - U(a, b), hence U(a, b) = 1/2 + (R'(a, b) - R'(b, a)) / (2 (1 - d')).
    # Then S(a, b) = R(a, b) + d U(a, b) and S(b, a) = R(b, a) + d (1 - U(a, b)).
    for total in range(2, 2 * n + 1):
        for a in range(max(1, total - n), min(n, total - 1) + 1):
            b = total - a
            if a > b:
                continue
            level = 0.5 if a == b else 0.5 + (rest(first, a, b) - rest(first, b, a)) / (2.0 * (1.0 - first.draw))
            u[a, b], u[b, a] = level, 1.0 - level
            s[a, b] = rest(odds, a, b) + odds.draw * level
            s[b, a] = rest(odds, b, a) + odds.draw * (1.0 - level)
    return MatchEquityTable(length=n, odds=odds, starts=s, drawn=u, opening=opening)


def match_winning_chance(table: MatchEquityTable, away: tuple[int, int], win: float, win_mars: float,
                         lose_mars: float, draw: float = 0.0) -> float:
    """P(win the match) for the side on roll in a game, from its outcome probabilities.

    `away` = (points the side on roll still needs, points the opponent needs); `win`
    includes `win_mars`, and P(lose) = 1 - win - draw. The winner of the game starts the
    next one; a draw goes back to the one-die draw.
    """
    if not (isinstance(away, tuple) and len(away) == 2):
        raise InvalidArgumentError(f"away scores {repr(away)[:60]} must be a pair (mine, the opponent's)")
    a, b = (check_int("away score", value, -(2**31), table.length) for value in away)
    win, win_mars, lose_mars, draw = (check_real(name, value) for name, value in
                                      (("win", win), ("win_mars", win_mars), ("lose_mars", lose_mars), ("draw", draw)))
    if a <= 0 or b <= 0:
        raise InvalidArgumentError(f"away scores {away!r} must be positive while the match is on")
    lose = 1.0 - win - draw
    return ((win - win_mars) * table.starter(a - 1, b) + win_mars * table.starter(a - 2, b)
            + (lose - lose_mars) * table.receiver(a, b - 1) + lose_mars * table.receiver(a, b - 2)
            + draw * table.draw(a, b))


def away_scores(score: tuple[int, int], length: int, side: int) -> tuple[int, int]:
    """(points `side` still needs, points the other side needs) at `score` in a match to `length`."""
    if length < 1 or any(not 0 <= s < length for s in score):
        raise InvalidArgumentError(f"score {score!r} is not a running score of a match to {length}")
    return (length - score[side], length - score[1 - side])


class MatchScore:
    """A running match score: the table and each side's points still needed."""

    def __init__(self, score: object, length: object) -> None:
        if not (isinstance(score, tuple) and len(score) == 2 and all(isinstance(v, int) for v in score)):
            raise InvalidArgumentError(f"score {score!r} must be a (white, black) pair of integers")
        length = check_int("match length", length, 1, MAX_LENGTH)
        self.away = (away_scores(score, length, 0), away_scores(score, length, 1))
        self.table = match_equity_table(length)

    def chance(self, side: int, win: float, win_mars: float, lose_mars: float) -> float:
        """P(`side` wins the match) from its outcome probabilities in this game."""
        return match_winning_chance(self.table, self.away[side], win, win_mars, lose_mars)

    def weights(self, side: int) -> tuple[float, float, float, float, float]:
        """(constant, win, win_mars, lose_mars, draw): `side`'s match winning chance is this
        linear function of its outcome probabilities in the game (what rollouts sum per game)."""
        def chance(win: float, win_mars: float, lose_mars: float, draw: float) -> float:
            return match_winning_chance(self.table, self.away[side], win, win_mars, lose_mars, draw)

        base = chance(0.0, 0.0, 0.0, 0.0)
        return (base, chance(1.0, 0.0, 0.0, 0.0) - base, chance(0.0, 1.0, 0.0, 0.0) - base,
                chance(0.0, 0.0, 1.0, 0.0) - base, chance(0.0, 0.0, 0.0, 1.0) - base)


def match_score(score: tuple[int, int] | None, length: int | None) -> MatchScore | None:
    if score is None and length is None:
        return None
    if score is None or length is None:
        raise InvalidArgumentError("a match score needs both score=(white, black) and length=N")
    return MatchScore(score, length)



class EvaluatorPolicy:
    """A move-choice policy from an evaluator (``rank(position, dice, rules)``, best first).

    In a match, `fevga.game.play_match` calls ``at_score(score, length)`` before each game;
    when the evaluator itself has ``at_score`` (a match-aware evaluator such as
    `fevga.analyser.ApiEvaluator`), the policy then ranks moves by match winning chance.
    """

    def __init__(self, evaluator: Any, rules: Any = None, name: str | None = None) -> None:
        if not callable(getattr(evaluator, "rank", None)):
            raise InvalidArgumentError(f"evaluator {evaluator!r} has no rank(position, dice, rules) method")
        self.evaluator = evaluator
        self.rules = rules_of(rules)
        self.__name__ = name or str(getattr(evaluator, "name", type(evaluator).__name__))

    def __call__(self, position: Any, dice: tuple[int, int], moves: Any) -> Any:
        """The evaluator's best move."""
        return self.evaluator.rank(position, dice, self.rules)[0][0]

    def at_score(self, score: tuple[int, int], length: int) -> EvaluatorPolicy:
        """This policy for a game at `score` in a match to `length`."""
        at_score = getattr(self.evaluator, "at_score", None)
        if at_score is None or length <= 0:
            return self
        return EvaluatorPolicy(at_score(score, length), self.rules, self.__name__)
