"""Rollout results: the statistics of a rolled-out position or move, and their export
(JSON, CSV, pandas), computed from a job's additive sums."""

from __future__ import annotations

import csv
import importlib
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError
from fevga.position import Move
from fevga.rules import Rules
from fevga_core.board import ROLLS
from fevga.rollout.jobs import FIELDS, Job, Sums

if TYPE_CHECKING:
    from fevga.gioul import GioulMove

__all__ = ["MoveRollout", "RolloutResult", "moves_to_csv", "moves_to_frame", "statistics"]

Z95 = 1.959963984540054


NOTHING_FINISHED = "stopped before a block of games finished (blocks of 1,296 are the unit): nothing to report"


@dataclass(frozen=True)
class RolloutResult:
    """Outcome statistics of one rolled-out position, for the side on roll at its start.

    `equity` is in points (a mars counts 2); `ci95` is its 95% confidence interval.
    Probabilities are fractions of games (truncated games count their table values). A rollout
    at a match `score` (White's, Black's points) in a match to `length` also has
    `match_chance`, the side's chance of winning the match, and its standard error.
    """

    position: str
    games: int
    win: float
    win_mars: float
    lose_mars: float
    draw: float
    equity: float
    equity_se: float
    ci95: tuple[float, float]
    win_se: float
    raw_equity: float
    raw_equity_se: float
    truncated_games: int
    mean_length: float
    length_counts: tuple[int, ...]
    first_rolls: tuple[tuple[str, int, float], ...]
    policy: str
    seed: int | str
    truncate: bool
    stratified: bool
    luck: bool
    rules: tuple[tuple[str, object], ...]
    interrupted: bool = False
    elapsed: float = field(default=0.0, compare=False)
    workers: int = field(default=1, compare=False)
    backend: str = field(default="local", compare=False)
    resumed_games: int = field(default=0, compare=False)  # loaded from a checkpoint, not played in `elapsed`
    score: tuple[int, int] | None = None
    length: int | None = None
    match_chance: float | None = None
    match_chance_se: float | None = None
    net: str | None = None  # sha256 of the net weights the policy (or the luck) used; None without a net

    @property
    def lose(self) -> float:
        """P(lose) = 1 - win - draw."""
        return 1.0 - self.win - self.draw

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of every statistic."""
        return {
            "position": self.position,
            "games": self.games,
            "win": self.win,
            "win_mars": self.win_mars,
            "lose_mars": self.lose_mars,
            "draw": self.draw,
            "equity": self.equity,
            "equity_se": self.equity_se,
            "ci95": list(self.ci95),
            "win_se": self.win_se,
            "raw_equity": self.raw_equity,
            "raw_equity_se": self.raw_equity_se,
            "truncated_games": self.truncated_games,
            "mean_length": self.mean_length,
            "length_counts": list(self.length_counts),
            "first_rolls": [{"roll": r, "games": n, "equity": e} for r, n, e in self.first_rolls],
            "policy": self.policy,
            "net": self.net,
            "seed": self.seed,
            "truncate": self.truncate,
            "stratified": self.stratified,
            "luck": self.luck,
            "rules": dict(self.rules),
            "interrupted": self.interrupted,
            "elapsed": self.elapsed,
            "workers": self.workers,
            "backend": self.backend,
            "resumed_games": self.resumed_games,
            **({} if self.score is None else {"score": list(self.score), "length": self.length,
                                             "match_chance": self.match_chance,
                                             "match_chance_se": self.match_chance_se}),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    def _row(self) -> dict[str, Any]:
        keys = ("position", "games", "win", "win_mars", "lose_mars", "draw", "equity", "equity_se",
                "win_se", "raw_equity", "raw_equity_se", "truncated_games", "mean_length", "policy", "seed")
        row = {k: getattr(self, k) for k in keys}
        row["ci95_low"], row["ci95_high"] = self.ci95
        if self.score is not None:
            row.update(score=f"{self.score[0]}-{self.score[1]}", length=self.length, match_chance=self.match_chance,
                       match_chance_se=self.match_chance_se)
        return row

    def to_frame(self) -> Any:
        """A one-row pandas DataFrame of the main statistics (pandas imported lazily)."""
        return _pandas().DataFrame([self._row()])

    def first_roll_frame(self) -> Any:
        """The per-first-roll table as a pandas DataFrame: roll, games, equity."""
        return _pandas().DataFrame(list(self.first_rolls), columns=["roll", "games", "equity"])

    def to_csv(self) -> str:
        """The main statistics as CSV text (a header and one row)."""
        return _csv([self._row()])

    def summary(self) -> str:
        """A readable multi-line summary."""
        low, high = self.ci95
        head = (f"position {self.position}: {self.games} games, policy {self.policy}"
                + (f" (net {self.net[:12]})" if self.net else "") + f", seed {self.seed}"
                + (" (interrupted)" if self.interrupted else ""))
        if not self.games:
            return f"{head}\n  {NOTHING_FINISHED}"
        lines = [
            head,
            f"  equity {self.equity:+.4f} +- {self.equity_se:.4f}   95% CI [{low:+.4f}, {high:+.4f}]",
            f"  win {self.win:.2%}   win mars {self.win_mars:.2%}   lose {self.lose:.2%}"
            f"   lose mars {self.lose_mars:.2%}   draw {self.draw:.2%}",
            *([] if self.match_chance is None or self.match_chance_se is None or self.score is None else [
                f"  match winning chance {self.match_chance:.2%} +- {self.match_chance_se:.2%} at "
                f"{self.score[0]}-{self.score[1]} (White-Black) in a match to {self.length}"]),
            f"  mean length {self.mean_length:.1f} {'rolls' if dict(self.rules).get('game') == 'gioul' else 'plies'}"
            + (f", {self.truncated_games} truncated" if self.truncate else ""),
        ]
        if self.elapsed > 0:
            played = self.games - self.resumed_games
            lines.append(f"  {self.elapsed:.2f} s, {played / self.elapsed:,.0f} games/s on {self.workers} worker(s)"
                         f" ({self.backend})"
                         + (f"; {self.resumed_games} games resumed from the checkpoint" if self.resumed_games else ""))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True)
class MoveRollout:
    """One legal move rolled out: its result for the mover, and its equity difference to the best.

    `result.position` is the position before the move (the mover on roll), so the result is for
    the side on roll in its position, like every RolloutResult; `move.position` is the position
    after it. `diff` and `diff_se` are the raw (not luck-adjusted) common-random-number
    difference to the best move and its standard error, computed from the same sums: in
    equity, or in match winning chance for a rollout at a match score.
    """

    move: Move | GioulMove
    result: RolloutResult
    diff: float
    diff_se: float
    stopped: bool = False  # rolled out no further once its CI separated from the best (stop_early)

    @property
    def equity(self) -> float:
        """The move's equity for the mover."""
        return self.result.equity

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"move": self.move.notation, "position": self.result.position, "after": self.move.position.id,
                "equity": self.equity, "diff": self.diff, "diff_se": self.diff_se, "stopped": self.stopped,
                "result": self.result.to_dict()}


def moves_to_csv(ranking: Sequence[MoveRollout]) -> str:
    """CSV text of a move ranking (one row per move)."""
    rows = []
    for rank, m in enumerate(ranking, 1):
        row = {"rank": rank, "move": m.move.notation, "diff": m.diff, "diff_se": m.diff_se}
        row.update(m.result._row())
        rows.append(row)
    return _csv(rows)


def moves_to_frame(ranking: Sequence[MoveRollout]) -> Any:
    """A pandas DataFrame of a move ranking."""
    return _pandas().read_csv(io.StringIO(moves_to_csv(ranking)))


def _pandas() -> Any:
    """pandas, imported on first use (an optional dependency: fevga[frame])."""
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise InvalidArgumentError("DataFrame export needs pandas: pip install 'fevga[frame]'") from exc


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def statistics(job: Job, total: Sums, k: int, position: str, policy: str, seed: int | str,
               rules: Rules, interrupted: bool, elapsed: float, workers: int, backend: str,
               resumed: int = 0, score: tuple[int, int] | None = None, length: int | None = None) -> RolloutResult:
    """The RolloutResult of target `k` of a job from its summed statistics."""
    s = total.sums[k]
    n = float(s[FIELDS["games"]])
    if n == 0:
        nan = float("nan")
        empty = RolloutResult(position, 0, nan, nan, nan, nan, nan, nan, (nan, nan), nan, nan, nan, 0, nan, (), (),
                              policy, seed, job.truncate, job.stratify, job.luck, tuple(rules.to_dict().items()),
                              interrupted, elapsed, workers, backend, resumed)
        empty = replace(empty, net=None if job.net is None else job.net.checksum)
        return empty if job.match_weights is None else replace(empty, score=score, length=length)
    mean, var = _mean(s, n, "equity")
    raw_se = math.sqrt(var / n)
    if job.stratify:
        raw_se = _stratified_se(total.first[k], n, raw_se)
    equity, se = _luck_adjusted(s, n, "equity", raw_se) if job.luck else (mean, raw_se)
    win = s[FIELDS["win"]] / n
    lengths = total.lengths[k]
    last = int(np.nonzero(lengths)[0][-1]) + 1 if lengths.any() else 0
    result = RolloutResult(
        position=position,
        games=int(n),
        win=float(win),
        win_mars=float(s[FIELDS["win_mars"]] / n),
        lose_mars=float(s[FIELDS["lose_mars"]] / n),
        draw=float(s[FIELDS["draw"]] / n),
        equity=float(equity),
        equity_se=float(se),
        ci95=(float(equity - Z95 * se), float(equity + Z95 * se)),
        win_se=float(math.sqrt(max(win * (1 - win), 0.0) / n)),
        raw_equity=float(mean),
        raw_equity_se=float(raw_se),
        truncated_games=int(s[FIELDS["truncated"]]),
        mean_length=float(s[FIELDS["plies"]] / n),
        length_counts=tuple(int(c) for c in lengths[:last]),
        first_rolls=_first_roll_table(total.first[k]),
        policy=policy,
        seed=seed,
        truncate=job.truncate,
        stratified=job.stratify,
        luck=job.luck,
        rules=tuple(rules.to_dict().items()),
        interrupted=bool(interrupted),
        elapsed=elapsed,
        workers=workers,
        backend=backend,
        resumed_games=resumed,
    )
    if job.net is not None:
        result = replace(result, net=job.net.checksum)
    if job.match_weights is None:
        return result
    chance, chance_var = _mean(s, n, "match")
    chance_se = math.sqrt(chance_var / n)  # unstratified: the first-roll table holds equities
    if job.luck:
        chance, chance_se = _luck_adjusted(s, n, "match", chance_se)
    return replace(result, score=score, length=length, match_chance=chance, match_chance_se=chance_se)


def _mean(s: npt.NDArray[np.float64], n: float, value: str) -> tuple[float, float]:
    """The mean of a per-game value (field `value`, its squares in `value`_sq) and its sample variance."""
    mean = float(s[FIELDS[value]] / n)
    return mean, max(float(s[FIELDS[value + "_sq"]] / n) - mean * mean, 0.0) * n / max(n - 1.0, 1.0)


def _luck_adjusted(s: npt.NDArray[np.float64], n: float, value: str, se: float) -> tuple[float, float]:
    """The mean of a per-game value less its regression on the games' luck (a control variate:
    the luck terms have expectation 0) and the standard error that remains; (mean, `se`) when
    the luck never varied."""
    mean, var = _mean(s, n, value)
    luck_mean = s[FIELDS["luck"]] / n
    var_luck = s[FIELDS["luck_sq"]] / n - luck_mean * luck_mean
    if var_luck <= 0:
        return mean, se
    cov = s[FIELDS["equity_luck" if value == "equity" else value + "_luck"]] / n - mean * luck_mean
    beta = cov / var_luck  # regression (control-variate) coefficient of the luck terms
    return float(mean - beta * luck_mean), math.sqrt(max(var - cov * cov / var_luck, 0.0) / n)


def _stratified_se(first: npt.NDArray[np.float64], n: float, fallback: float) -> float:
    """Standard error of the mean over the 36 first-roll strata (every stratum needs 2+ games)."""
    counts, sums, squares = first[:, 0], first[:, 1], first[:, 2]
    used = counts > 0
    if (counts[used] < 2).any():
        return fallback
    c = counts[used]
    var = (squares[used] - sums[used] ** 2 / c) / (c - 1)
    return float(math.sqrt(max(float(np.sum((c / n) ** 2 * np.maximum(var, 0.0) / c)), 0.0)))


def _first_roll_table(first: npt.NDArray[np.float64]) -> tuple[tuple[str, int, float], ...]:
    rows = []
    for a, b in ROLLS:
        cells = {(a - 1) * 6 + (b - 1), (b - 1) * 6 + (a - 1)}
        games = sum(first[c, 0] for c in cells)
        if games:
            rows.append((f"{b}-{a}", int(games), float(sum(first[c, 1] for c in cells) / games)))
    return tuple(rows)
