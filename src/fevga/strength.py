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
from fevga.position import Position
from fevga.rollout import rollout
from fevga.seeding import SeedLike

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
    second = rollout(start, policy=(b, a), net=swapped, **common)
    n = first.games + second.games
    ppg = (first.equity * first.games - second.equity * second.games) / n
    win = (first.win * first.games + second.lose * second.games) / n
    draws = (first.draw * first.games + second.draw * second.games) / n
    # the two halves are positively correlated through common dice: treating them as
    # independent overstates the error, never understates it
    ppg_se = math.hypot(first.equity_se * first.games, second.equity_se * second.games) / n
    win_se = math.sqrt(max(win * (1 - win), 0.0) / n)
    return Duel(policy_name(a), policy_name(b), n, ppg, Z95 * ppg_se, win, Z95 * win_se, draws)
