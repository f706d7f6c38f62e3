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

import numpy as np

from fevga.checks import check_workers
from fevga.errors import InvalidArgumentError
from fevga.limits import MAX_GAMES, MAX_RATED_GAMES, check_int
from fevga.parallel import run_chunks
from fevga.seeding import master_key
from fevga_core import constants
from fevga_core.rollout import gioul_games
from fevga.match import GameOdds
from fevga.net import Net, net_of
from fevga.bearoff.core_tables import tables_of
from fevga.policy import GIOUL_POLICIES, Policy, policy_name, uses_net
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
    if check_int("games", games, 2, MAX_GAMES) % 2:
        raise InvalidArgumentError(f"games={games!r} must be an even integer (half the games with each colour)")
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


GIOUL_DUEL_CHUNK = 64  # games per task of a Gioul duel (Ctrl-C waits for one per thread)
GIOUL_NET2_CHUNK = 2  # the same with "net2" playing (a net2 game takes about 0.3 s)


def gioul_duel(a: str, b: str, games: int = 2592, seed: SeedLike = 0, *, net_a: Net | None = None,
               net_b: Net | None = None, workers: int | None = None) -> Duel:
    """Play `games` Gioul games of `a` against `b` in the core (half with `a` as White), the same
    dice streams in both halves; the "net" and "net2" policies play `net_a` / `net_b` (default: the
    shipped Gioul net) and the default Gioul bear-off tables in covered races, as `hint` does.

    Each game starts with the one-die draw and the starter rolls fresh dice (no stratified
    first rolls, unlike the Fevga duel's rollouts): the swapped halves cancel most of the luck.
    """
    if check_int("games", games, 2, MAX_GAMES) % 2:
        raise InvalidArgumentError(f"games={games!r} must be an even integer (half the games with each colour)")
    ids, nets = [], []
    for policy, net in ((a, net_a), (b, net_b)):
        if not isinstance(policy, str) or policy not in GIOUL_POLICIES:
            raise InvalidArgumentError(f"Gioul duel policy {repr(policy)[:40]} must be one of {list(GIOUL_POLICIES)}")
        ids.append(int(constants.POLICY_IDS[policy]))
        nets.append(net_of(net, "gioul")._core if uses_net((policy,)) else None)
    threads = check_workers(workers)
    master = master_key(seed_sequence(seed))
    half = games // 2
    points = np.zeros(games, dtype=np.float64)  # for `a`
    tables = tables_of("gioul-default") if uses_net((a, b)) else None  # exact in covered races, as hint is

    def play(start: int, stop: int) -> None:
        for swap in (0, 1):  # a as White, then as Black, over the same games (dice streams)
            white, black = (0, 1) if not swap else (1, 0)
            result, _ = gioul_games(master, start, stop - start, False, ids[white], ids[black], nets[white],
                                    nets[black], tables)
            points[swap * half + start: swap * half + stop] = result if not swap else -result.astype(np.float64)

    run_chunks(half, threads, play, chunk=GIOUL_NET2_CHUNK if "net2" in (a, b) else GIOUL_DUEL_CHUNK)
    ppg = float(points.mean())
    win = float(np.mean(points > 0) + 0.5 * np.mean(points == 0))
    draws = float(np.mean(points == 0))
    return Duel(a, b, games, ppg, Z95 * float(points.std(ddof=1)) / math.sqrt(games), win,
                Z95 * math.sqrt(max(win * (1 - win), 0.0) / games), draws)


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
    check_int("games", games, 1, MAX_RATED_GAMES)
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


# ---------------------------------------------------------------------- game odds


@dataclass(frozen=True)
class OddsMeasurement:
    """Outcome odds of a game for its starter measured by self-play, with 95% confidence half-widths."""

    odds: GameOdds
    games: int
    seed: int | str
    policy: str
    net: str | None  # the first 16 hex digits of the net's SHA-256 when the policy uses a net
    win: float
    win_mars: float
    lose_mars: float
    draw: float
    ci95: dict[str, float]  # half-width of the 95% interval of win, win_mars, lose_mars, draw

    def consistent_with(self, odds: GameOdds, widen: float = 1.0) -> bool:
        """Whether `odds` lie within `widen` times this measurement's 95% intervals (every outcome)."""
        other = {"win": odds.win_single + odds.win_mars, "win_mars": odds.win_mars,
                 "lose_mars": odds.lose_mars, "draw": odds.draw}
        return all(abs(other[k] - getattr(self, k)) <= widen * self.ci95[k] for k in other)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"policy": self.policy, "net": self.net, "games": self.games, "seed": self.seed,
                "win": self.win, "win_mars": self.win_mars, "lose_mars": self.lose_mars, "draw": self.draw,
                "ci95": dict(self.ci95), "odds": self.odds.to_dict()}


def measure_odds(games: int, seed: int = 2026, policy: str = "net", workers: int | None = None,
                 net: Any = None, *, rules: Any = None, opening: bool = False) -> OddsMeasurement:
    """Measure `GameOdds` by `policy` playing itself from the start position.

    By default the games start with the side on roll of `Position.initial()` rolling two fresh
    dice (`fevga.rollout`, first two rolls stratified, so `games` is rounded up to a multiple of
    1,296): a game begun by the previous winner, and under the default rules every game of a
    match. With `opening` the games are begun by the one-die draw (`fevga.game.play_game`, one
    at a time, game i seeded by the i-th spawned child of `seed`): under
    ``first_roll="opening_dice"`` the starter then plays the draw's two dice (the `opening` odds
    of `fevga.match.match_equity_table`). The 95% half-widths are 1.96 binomial standard errors (conservative
    for the stratified sample); for an outcome never seen, the rule-of-three bound 3 / games.
    """
    check_int("games", games, 1, MAX_GAMES)
    if opening:
        n, win, win_mars, lose_mars, draw = _play_openings(games, seed, policy, net, rules)
    else:
        result = rollout(Position.initial(), games=games, seed=seed, workers=workers, policy=policy,
                         net=net, rules=rules)
        if result.interrupted:  # Ctrl-C: partial odds are no measurement
            raise KeyboardInterrupt
        n, win, win_mars, lose_mars, draw = result.games, result.win, result.win_mars, result.lose_mars, result.draw

    def half(p: float) -> float:
        return 1.96 * math.sqrt(p * (1.0 - p) / n) if 0.0 < p < 1.0 else 3.0 / n

    values = {"win": win, "win_mars": win_mars, "lose_mars": lose_mars, "draw": draw}
    return OddsMeasurement(
        odds=GameOdds.from_probabilities(win, win_mars, lose_mars, draw), games=n, seed=seed, policy=policy,
        net=net_of(net).checksum[:16] if policy in ("net", "net2") else None,
        win=win, win_mars=win_mars, lose_mars=lose_mars, draw=draw,
        ci95={k: half(v) for k, v in values.items()})


def _play_openings(games: int, seed: int, policy: str, net: Any,
                   rules: Any) -> tuple[int, float, float, float, float]:
    """(games, win, win_mars, lose_mars, draw) for the starter of games begun by the one-die draw."""
    win = win_mars = lose_mars = draw = 0
    for child in seed_sequence(seed).spawn(games):
        record = play_game(seed=child, policy=policy, rules=rules, net=net)
        starter = record.plies[0].turn
        if record.winner is None:
            draw += 1
        elif record.winner == starter:
            win += 1
            win_mars += record.points == 2
        else:
            lose_mars += record.points == 2
    return games, win / games, win_mars / games, lose_mars / games, draw / games
