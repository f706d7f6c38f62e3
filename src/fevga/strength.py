"""Strength of one player against another: seeded games from the start, colours alternated.

Each of the two halves plays the same dice streams (game i of both halves uses the seed of
game i) with the colours swapped, so the luck of the dice largely cancels between them, and
the first two rolls are stratified as in every rollout (docs/rollout.md). White rolls first
in every game, so each player moves first in exactly half of them.

>>> result = duel("heuristic", "random", games=72, seed=1, workers=1)
>>> result.ppg > 0
True
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from fevga.errors import InvalidArgumentError
from fevga.net import Net
from fevga.policy import Policy, policy_name
from fevga.game import play_game
from fevga.position import Position
from fevga.rollout import rollout
from fevga.seeding import SeedLike, seed_repr, seed_sequence
from fevga.analyser import analyse

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Duel:
    """Result of `a` against `b`: points per game and win rate for `a`, each with a 95% CI."""

    a: str
    b: str
    games: int
    ppg: float
    ppg_ci: float  # half-width of the 95% confidence interval
    win_rate: float
    win_ci: float
    draws: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)

    def __str__(self) -> str:
        return (f"{self.a} vs {self.b}: {self.ppg:+.3f} ± {self.ppg_ci:.3f} points/game, "
                f"win rate {100 * self.win_rate:.1f}% ± {100 * self.win_ci:.1f} ({self.games} games)")


def duel(a: Policy, b: Policy, games: int = 2592, seed: SeedLike = 0, *, net_a: Net | None = None,
         net_b: Net | None = None, workers: int | None = None, progress: bool | None = False,
         rules: Any = None) -> Duel:
    """Play `games` games of `a` against `b` (half with `a` as White), identical dice streams in
    both halves; `net_a` / `net_b` are the nets of net policies (default: the shipped net)."""
    if not isinstance(games, int) or isinstance(games, bool) or games < 2 or games % 2:
        raise InvalidArgumentError(f"games={games!r} must be an even integer >= 2")
    start = Position.initial()
    half = games // 2
    common = dict(games=half, seed=seed, workers=workers, progress=progress, rules=rules)
    nets: Any = (net_a, net_b)
    swapped: Any = (net_b, net_a)
    first = rollout(start, policy=(a, b), net=nets, **common)
    if first.interrupted:  # Ctrl-C: a duel of partial halves is no result
        raise KeyboardInterrupt
    second = rollout(start, policy=(b, a), net=swapped, **common)
    if second.interrupted:
        raise KeyboardInterrupt
    n = first.games + second.games
    ppg = (first.equity * first.games - second.equity * second.games) / n
    win = (first.win * first.games + second.lose * second.games) / n
    draws = (first.draw * first.games + second.draw * second.games) / n
    # the two halves are positively correlated through common dice: treating them as
    # independent overstates the error, never understates it
    ppg_se = math.hypot(first.equity_se * first.games, second.equity_se * second.games) / n
    win_se = math.sqrt(max(win * (1 - win), 0.0) / n)
    return Duel(policy_name(a), policy_name(b), n, ppg, Z95 * ppg_se, win, Z95 * win_se, draws)


@dataclass(frozen=True)
class PolicyRating:
    """Performance ratings (`fevga.analyse`) of one policy's self-play games, one per side and game."""

    policy: str
    games: int
    plies: int
    seed: int | str
    ratings: tuple[float, ...]  # 2 per game: White's and Black's rating of that game
    pooled: float  # 500 x total equity loss / total unforced decisions, over every game

    @property
    def mean(self) -> float:
        """Mean of the per-game ratings."""
        return sum(self.ratings) / len(self.ratings)

    @property
    def sd(self) -> float:
        """Standard deviation of the per-game ratings (the spread one game shows)."""
        m = self.mean
        return math.sqrt(sum((r - m) ** 2 for r in self.ratings) / max(len(self.ratings) - 1, 1))

    def quantile(self, q: float) -> float:
        """The `q` quantile (0..1) of the per-game ratings (linear interpolation)."""
        ordered = sorted(self.ratings)
        x = q * (len(ordered) - 1)
        lo = int(math.floor(x))
        hi = min(lo + 1, len(ordered) - 1)
        return ordered[lo] + (x - lo) * (ordered[hi] - ordered[lo])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the summary, not every rating)."""
        return {"policy": self.policy, "games": self.games, "plies": self.plies, "seed": self.seed,
                "pooled": self.pooled, "mean": self.mean, "sd": self.sd,
                "p10": self.quantile(0.1), "median": self.quantile(0.5), "p90": self.quantile(0.9)}


def rate_policy(policy: Policy, games: int = 100, seed: SeedLike = 2026, plies: int = 1, *,
                net: Net | None = None, label: str | None = None, evaluator: Any = None) -> PolicyRating:
    """Analyse `games` seeded self-play games of `policy` at `plies` and collect its ratings.

    Game i is ``play_game(seed=child_i, policy=policy, net=net)`` with ``child_i`` the i-th
    spawned child of the seed's SeedSequence; each game is analysed on its own (as a user
    analyses one game), so each side of each game gives one rating. `net` is the policy's net
    (default: the shipped one); the analysis always uses `evaluator` (default: the shipped net,
    ``fevga.analyse``'s default at `plies`).
    """
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise InvalidArgumentError(f"games={games!r} must be a positive integer")
    sequence = seed_sequence(seed)
    ratings: list[float] = []
    loss = 0.0
    decisions = 0
    for child in sequence.spawn(games):
        record = play_game(seed=child, policy=policy, net=net)
        analysis = analyse(record, plies=plies, evaluator=evaluator)
        for player in analysis.players:
            if player.decisions:
                ratings.append(player.rating)
                loss += player.total_loss
                decisions += player.decisions
    if not ratings:
        raise InvalidArgumentError(f"no unforced decision in {games} games of {policy_name(policy)}")
    return PolicyRating(policy=label or policy_name(policy), games=games, plies=plies, seed=seed_repr(sequence),
                        ratings=tuple(ratings), pooled=500.0 * loss / decisions)


def equal_error_edge(better: PolicyRating, worse: PolicyRating) -> float:
    """The rating that splits two policies' per-game ratings with equal error rates.

    The edge e where the share of `better`'s ratings above e equals the share of `worse`'s
    ratings below e (each misfiled into the other's band equally often), on the midpoints
    between observed ratings.
    """
    values = sorted(set(better.ratings) | set(worse.ratings))
    candidates = [0.5 * (a + b) for a, b in zip(values, values[1:])] or values

    def imbalance(e: float) -> float:
        above = sum(r > e for r in better.ratings) / len(better.ratings)
        below = sum(r < e for r in worse.ratings) / len(worse.ratings)
        return abs(above - below)

    return min(candidates, key=imbalance)
