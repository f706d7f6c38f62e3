"""Analysis of recorded games and matches: every decision's error, every roll's luck, per-player ratings.

The analysis runs against a small evaluator interface (`Evaluator`): ``rank(position, dice,
rules)`` returns the legal moves with their equity for the mover, best first, and
``value(position, rules)`` the equity of the side on roll before it rolls. Today's default,
`HeuristicEvaluator`, is built on the core's expectimax over the heuristic with exact
bear-off tables in covered races; `ApiEvaluator` adapts the trained evaluator's
``fevga.hint`` / ``fevga.evaluate`` API, so that the net drops in with one line:

    fevga.analyse(record, evaluator=ApiEvaluator(plies=1))

Plies count as in ``fevga.hint`` / ``fevga.evaluate``: at 1 ply a move is rated by the
static value of its result; every further ply looks one roll deeper.

Definitions (docs/analysis.md):

* equity loss of a decision = equity of the best move - equity of the played move (>= 0),
  both for the mover, by the decision evaluator; marked ``doubtful`` / ``bad`` /
  ``very bad`` from 0.04 / 0.08 / 0.16 (configurable). A ply with one legal move is
  *forced* and is not a decision.
* luck of a roll = equity after the roll (best move's equity) - equity before it, by the
  luck evaluator (1 ply, the static evaluation, by default); marked ``lucky`` / ``very lucky`` from
  +0.3 / +0.6 and ``unlucky`` / ``very unlucky`` from -0.3 / -0.6.
* performance rating = 500 x mean equity loss per unforced decision (lower is better;
  eXtreme Gammon's PR scale: 0 is perfect play), with a band (`RATING_BANDS`) measured on
  policies of known strength (benchmarks/ratings.py).

>>> from fevga.game import play_game
>>> report = analyse(play_game(seed=3, policy="heuristic"), plies=1)
>>> report.players[0].decisions > 0
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from fevga.errors import InvalidArgumentError
from fevga.game import GameRecord, MatchRecord
from fevga.policy import Policy
from fevga.position import COLOR_NAMES, Move, Position
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike

if TYPE_CHECKING:
    from fevga.rollout import MoveRollout
    from fevga.match import MatchEquityTable

MARKS = ("doubtful", "bad", "very bad")
LUCK_MARKS = ("very unlucky", "unlucky", "lucky", "very lucky")


class Evaluator(Protocol):
    """What the analysis needs from an evaluator (equities in points, mars = 2)."""

    name: str

    def rank(self, position: Position, dice: tuple[int, int], rules: Rules) -> list[tuple[Move, float]]:
        """Every legal move with its equity for the mover, best first."""

    def value(self, position: Position, rules: Rules) -> float:
        """The equity of the side on roll before it rolls."""


def _finished_equity(after: Position) -> float | None:
    """Points for the player who just moved, if its move ended the game."""
    winner = after.winner()
    if winner is None:
        return None
    return float(after.points()) if winner != after.turn else -float(after.points())


class HeuristicEvaluator:
    """Today's evaluator: expectimax over the core's evaluation, counting plies as
    ``fevga.hint`` and ``fevga.evaluate`` do (docs/net.md): at 1 ply a move is rated by the
    static value of its result, at n plies by the expectimax n - 1 plies below its result;
    ``value(position)`` at n plies averages over the 21 rolls the best move at n plies, so
    that luck (``rank``'s best minus ``value``) has mean zero over the rolls.

    The static value is the heuristic (tanh-scaled); with ``tables="bearoff"`` (default) a
    position that is already a race covered by the bear-off tables is valued exactly
    instead, and so is everything after it. The choice is made once per position to move
    from, never per move, so the moves of one roll (and the luck of the roll) are always
    compared on one scale: mixing exact race values with heuristic values of uncovered
    siblings would invent errors.

    Above 1 ply, ``rank`` rates every move at 1 ply, then re-rates at `plies` the best
    `candidates` of them that are within `window` of the best (and any result position in
    `keep`): gnubg's move filter. The others keep their 1-ply equity and rank below.
    """

    def __init__(self, plies: int = 1, candidates: int = 8, tables: str = "bearoff", window: float = 0.16) -> None:
        if not isinstance(plies, int) or isinstance(plies, bool) or not 1 <= plies <= 3:
            raise InvalidArgumentError(f"plies {plies!r} must be 1, 2 or 3 for the heuristic evaluator")
        if not isinstance(candidates, int) or candidates < 1:
            raise InvalidArgumentError(f"candidates {candidates!r} must be a positive integer")
        if tables not in ("bearoff", "heuristic"):
            raise InvalidArgumentError(f"tables {tables!r} must be 'bearoff' or 'heuristic'")
        if not isinstance(window, (int, float)) or not window >= 0:
            raise InvalidArgumentError(f"window {window!r} must be a non-negative equity")
        from fevga.bearoff.core_tables import tables_of
        from fevga.search import HEURISTIC_SCALE

        self.plies = plies
        self.candidates = candidates
        self.window = window
        self.name = f"heuristic {plies}-ply" + (" + bear-off tables" if tables == "bearoff" else "")
        self._plain = tables_of(None)
        self._exact = tables_of("default") if tables == "bearoff" else None
        self._scale = HEURISTIC_SCALE

    def _tables(self, position: Position) -> Any:
        """The exact tables if `position` is a covered race already, else the plain heuristic."""
        from fevga_core import rollout as core

        if self._exact is not None and core.race(position._row(), self._exact) is not None:
            return self._exact
        return self._plain

    def _deep(self, position: Position, depth: int, rules: Rules, tables: Any) -> float:
        from fevga_core import rollout as core

        return float(core.expectimax_value(position._row(), depth, rules.flags, tables, self._scale))

    def _after(self, after: Position, depth: int, rules: Rules, tables: Any) -> float:
        final = _finished_equity(after)
        return final if final is not None else -self._deep(after, depth, rules, tables)

    def rank(self, position: Position, dice: tuple[int, int], rules: Rules,
             keep: Sequence[Position] = ()) -> list[tuple[Move, float]]:
        """Every legal move with its equity for the mover, best first."""
        tables = self._tables(position)
        moves = position.legal_moves(dice, rules)
        scored = [(m, self._after(m.position, 0, rules, tables)) for m in moves]
        scored.sort(key=lambda item: -item[1])
        if self.plies == 1 or len(scored) == 1:
            return scored
        keep_ids = set(keep)
        floor = scored[0][1] - self.window
        deep = [(m, self._after(m.position, self.plies - 1, rules, tables)) for i, (m, e) in enumerate(scored)
                if (i < self.candidates and e >= floor) or m.position in keep_ids]
        deep.sort(key=lambda item: -item[1])
        chosen = {m.position for m, _ in deep}
        return deep + [(m, e) for m, e in scored if m.position not in chosen]

    def value(self, position: Position, rules: Rules) -> float:
        """Equity of the side on roll before rolling: expectimax `plies` deep."""
        return self._deep(position, self.plies, rules, self._tables(position))


HintFn = Callable[..., Any]
EvaluateFn = Callable[..., Any]


class _Flipped:
    """An evaluation of the side on roll seen by the player who just moved."""

    def __init__(self, evaluation: Any) -> None:
        self.win = 1.0 - float(evaluation.win) - float(getattr(evaluation, "draw", 0.0))
        self.win_mars = float(evaluation.lose_mars)
        self.lose_mars = float(evaluation.win_mars)
        self.draw = float(getattr(evaluation, "draw", 0.0))
        self.equity = -float(evaluation.equity)


class ApiEvaluator:
    """The trained evaluator through the public API: ``fevga.hint(position, dice, plies=,
    rules=)`` -> [(move, Evaluation, loss)] best first, and ``fevga.evaluate(position,
    plies=, rules=)`` -> Evaluation(win, win_mars, lose_mars, equity) for the side on roll
    (a move's Evaluation is for the mover). Plies count as there: ``rank`` is
    ``hint(plies=plies)``. ``value`` (the luck's "before the roll") is
    ``evaluate(plies=value_plies)``, by default ``plies - 1``: at 1 ply the static
    evaluation of the position before the roll, as gnubg does, one net evaluation instead
    of a search over the 21 rolls; luck then averages to zero over the rolls up to the
    net's own error. ``value_plies=plies`` makes it the exact average of ``rank``'s best
    over the rolls (21 times the work).

    `hint` and `evaluate` default to ``fevga.hint`` / ``fevga.evaluate`` (looked up when
    first used); pass others to analyse with any evaluator of that shape.

    In a match, ``at_score(score, length)`` gives the same evaluator ranking by match
    winning chance (docs/match.md), expressed as normalised equity (EMG): 2 (MWC - L) /
    (W - L) - 1, where W and L are the mover's match winning chances after winning and
    losing a single game, so a single win is +1 and a single loss -1 at every score.
    """

    def __init__(self, plies: int = 1, hint: HintFn | None = None, evaluate: EvaluateFn | None = None,
                 name: str | None = None, *, score: tuple[int, int] | None = None, length: int = 0,
                 table: MatchEquityTable | None = None, value_plies: int | None = None) -> None:
        from fevga.analysis import MAX_PLIES

        high = MAX_PLIES + 1 if hint is None else 2**31  # fevga.hint's range; another hint has its own
        if not isinstance(plies, int) or isinstance(plies, bool) or not 1 <= plies <= high:
            bound = f"in 1..{high}" if hint is None else ">= 1"
            raise InvalidArgumentError(f"plies={plies!r} must be an integer {bound} (1 rates a move by its result)")
        self.plies = plies
        self.value_plies = plies - 1 if value_plies is None else value_plies
        self._hint = hint
        self._evaluate = evaluate
        self.score = score
        self.length = length
        self.table = table
        base = name or (f"net {plies}-ply" if hint is None else f"evaluator {plies}-ply")
        self._base = base
        self.name = base if score is None else f"{base}, match-aware"

    def at_score(self, score: tuple[int, int], length: int) -> ApiEvaluator:
        """This evaluator ranking by match winning chance at `score` in a match to `length`."""
        from fevga.match import match_equity_table

        table = self.table if self.table is not None and self.table.length >= length else \
            match_equity_table(max(length, 1))
        return ApiEvaluator(self.plies, self._hint, self._evaluate, self._base, score=score, length=length,
                            table=table, value_plies=self.value_plies)

    def with_plies(self, plies: int) -> ApiEvaluator:
        """The same evaluator at another depth (the default luck evaluator uses 1 ply)."""
        return ApiEvaluator(plies, self._hint, self._evaluate, None, score=self.score, length=self.length,
                            table=self.table)

    def _functions(self) -> tuple[HintFn, EvaluateFn]:
        import fevga

        hint = self._hint or getattr(fevga, "hint", None)
        evaluate = self._evaluate or getattr(fevga, "evaluate", None)
        if hint is None or evaluate is None:
            raise InvalidArgumentError("this fevga has no fevga.hint / fevga.evaluate yet: pass hint= and evaluate=")
        return hint, evaluate

    def _equity(self, evaluation: Any, side: int) -> float:
        """Money equity, or normalised match equity of `side` when a score is set."""
        if self.score is None or self.table is None:
            return float(evaluation.equity)
        from fevga.match import away_scores, match_winning_chance

        a, b = away_scores(self.score, self.length, side)
        draw = float(getattr(evaluation, "draw", 0.0))
        mwc = match_winning_chance(self.table, (a, b), float(evaluation.win), float(evaluation.win_mars),
                                   float(evaluation.lose_mars), draw)
        return self._normalise(mwc, a, b)

    def _normalise(self, mwc: float, a: int, b: int) -> float:
        assert self.table is not None
        won, lost = self.table.starter(a - 1, b), self.table.receiver(a, b - 1)
        if won - lost < 1e-12:  # degenerate odds: no spread to normalise by
            return 2.0 * mwc - 1.0
        return 2.0 * (mwc - lost) / (won - lost) - 1.0

    def rank(self, position: Position, dice: tuple[int, int], rules: Rules,
             keep: Sequence[Position] = ()) -> list[tuple[Move, float]]:
        """The hint list as (move, equity for the mover), best first.

        The hint's order is kept (moves searched deeper first); in a match the moves are
        re-ordered by match equity within each depth. A move whose result is in `keep` and
        that the hint's filter left at a shallower depth than the best is re-rated at full
        depth (``evaluate`` of its result), so its loss is measured on the best move's scale.
        """
        hint, evaluate = self._functions()
        mover = position.turn
        keep_ids = set(keep)
        ranked: list[tuple[Move, float, int]] = []
        items = list(hint(position, dice, plies=self.plies, rules=rules))
        top = max((int(getattr(item, "plies", self.plies)) for item in items), default=self.plies)
        for item in items:
            # fevga.Hint(move, evaluation, loss, plies), or any (move, evaluation, ...) tuple
            move, evaluation = (item.move, item.evaluation) if hasattr(item, "move") else (item[0], item[1])
            depth = int(getattr(item, "plies", self.plies))
            final = _finished_equity(move.position)
            if final is not None:
                equity = final if self.score is None else (
                    (1.0 if final > 0 else -1.0) if abs(final) == 1.0 else self._mars_value(final > 0, mover))
                depth = top
            else:
                if depth < top and move.position in keep_ids:
                    evaluation = _Flipped(evaluate(move.position, plies=top - 1, rules=rules))
                    depth = top
                equity = self._equity(evaluation, mover)
            ranked.append((move, equity, depth))
        ranked.sort(key=lambda item: (-item[2], -item[1]))
        return [(move, equity) for move, equity, _ in ranked]

    def _mars_value(self, won: bool, side: int) -> float:
        """Normalised match equity of a game just won (or lost) by a mars."""
        from fevga.match import away_scores

        assert self.score is not None and self.table is not None
        a, b = away_scores(self.score, self.length, side)
        mwc = self.table.starter(a - 2, b) if won else self.table.receiver(a, b - 2)
        return self._normalise(mwc, a, b)

    def value(self, position: Position, rules: Rules) -> float:
        """The evaluation's equity of the side on roll."""
        _, evaluate = self._functions()
        final = position.winner()
        if final is not None:
            return float(position.points()) * (1.0 if final == position.turn else -1.0)
        return self._equity(evaluate(position, plies=self.value_plies, rules=rules), position.turn)


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Thresholds:
    """Equity-loss marks and luck marks (all in points)."""

    doubtful: float = 0.04
    bad: float = 0.08
    very_bad: float = 0.16
    lucky: float = 0.3
    very_lucky: float = 0.6

    def __post_init__(self) -> None:
        values = (self.doubtful, self.bad, self.very_bad, self.lucky, self.very_lucky)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in values):
            raise InvalidArgumentError(f"thresholds {values} must be positive numbers")
        if not self.doubtful <= self.bad <= self.very_bad or not self.lucky <= self.very_lucky:
            raise InvalidArgumentError(f"thresholds {values} must increase: doubtful <= bad <= very bad, "
                                       f"lucky <= very lucky")

    def mark(self, loss: float) -> str:
        """The mark of an equity loss ("" if none)."""
        if loss >= self.very_bad:
            return "very bad"
        if loss >= self.bad:
            return "bad"
        return "doubtful" if loss >= self.doubtful else ""

    def luck_mark(self, luck: float) -> str:
        """The mark of a roll's luck ("" if none)."""
        if luck >= self.very_lucky:
            return "very lucky"
        if luck >= self.lucky:
            return "lucky"
        if luck <= -self.very_lucky:
            return "very unlucky"
        return "unlucky" if luck <= -self.lucky else ""


@dataclass(frozen=True)
class MoveEquity:
    """One ranked move: its notation, resulting position and equity for the mover."""

    notation: str
    position: Position
    equity: float


@dataclass(frozen=True)
class PlyAnalysis:
    """One ply of a game: the decision (if any) and the luck of its roll."""

    game: int
    number: int
    turn: int
    position: Position
    dice: tuple[int, int]
    played: MoveEquity
    best: MoveEquity
    loss: float
    mark: str
    legal_moves: int
    luck: float
    luck_mark: str
    ranking: tuple[MoveEquity, ...]
    rank: int
    evaluator_loss: float | None = None  # the evaluator's loss, when a rollout replaced it
    rollout_se: float | None = None      # standard error of the rollout loss
    rollout_games: int = 0
    rollout_cut: int | None = None  # games a re-check played before Ctrl-C cut it short (not used)

    @property
    def forced(self) -> bool:
        """True when the roll had a single legal move (not a decision)."""
        return self.legal_moves <= 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"game": self.game, "ply": self.number, "turn": COLOR_NAMES[self.turn], "position": self.position.id,
                "dice": list(self.dice), "played": _move_dict(self.played), "best": _move_dict(self.best),
                "loss": self.loss, "mark": self.mark, "legal_moves": self.legal_moves, "forced": self.forced,
                "rank": self.rank, "luck": self.luck, "luck_mark": self.luck_mark,
                "ranking": [_move_dict(m) for m in self.ranking],
                "rollout": None if not self.rollout_games else {
                    "games": self.rollout_games, "loss": self.loss, "loss_se": self.rollout_se,
                    "evaluator_loss": self.evaluator_loss},
                **({"rollout_cut_short": {"games": self.rollout_cut, "used": False}}
                   if self.rollout_cut is not None else {})}


def _move_dict(move: MoveEquity) -> dict[str, Any]:
    return {"move": move.notation, "position": move.position.id, "equity": move.equity}


# Rating bands, best first: (upper edge, name). Measured, not chosen (docs/analysis.md, "Rating
# bands"): each edge splits the per-game ratings of two policies of the strength ladder with equal
# error rates, `python benchmarks/ratings.py --games 200` (1-ply analysis by the shipped net).
RATING_BANDS: tuple[tuple[float, str], ...] = (
    (3.9, "world class"),  # plays like the net policies (net2 | net-1)
    (15.9, "expert"),  # like the 600,000-game net (net-1 | lookahead)
    (65.7, "intermediate"),  # like the heuristic and lookahead policies (heuristic | random)
    (math.inf, "beginner"),  # no better than random moves
)


def band_legend() -> str:
    """The bands in words: "world class < 3.9 <= expert < ..."."""
    text = RATING_BANDS[0][1]
    for (edge, _), (_, name) in zip(RATING_BANDS, RATING_BANDS[1:]):
        text += f" < {edge:g} <= {name}"
    return text


def rating_band(rating: float) -> str:
    """The band (`RATING_BANDS`) of a performance rating: "world class", "expert", "intermediate" or "beginner"."""
    if not isinstance(rating, (int, float)) or not math.isfinite(rating) or rating < 0:
        raise InvalidArgumentError(f"performance rating {rating!r} must be a finite number >= 0")
    return next(name for edge, name in RATING_BANDS if rating < edge)


@dataclass(frozen=True)
class PlayerSummary:
    """Totals of one player over the analysed record."""

    color: int
    name: str
    decisions: int
    forced: int
    total_loss: float
    marks: dict[str, int]
    luck: float
    luck_marks: dict[str, int]

    @property
    def mean_loss(self) -> float:
        """Mean equity loss per unforced decision (0 without decisions)."""
        return self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def rating(self) -> float:
        """Performance rating: 500 x mean equity loss per unforced decision (lower is better)."""
        return 500.0 * self.mean_loss

    @property
    def band(self) -> str | None:
        """The rating's band (`rating_band`), None without unforced decisions."""
        return rating_band(self.rating) if self.decisions else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"color": COLOR_NAMES[self.color], "name": self.name, "decisions": self.decisions,
                "forced": self.forced, "total_loss": self.total_loss, "mean_loss": self.mean_loss,
                "rating": self.rating, "band": self.band, "marks": dict(self.marks), "luck": self.luck,
                "luck_marks": dict(self.luck_marks)}


@dataclass(frozen=True)
class GameAnalysis:
    """The analysis of one game: its plies and the score before it."""

    number: int
    score: tuple[int, int]
    result: str
    points: int
    plies: tuple[PlyAnalysis, ...]


@dataclass(frozen=True)
class Analysis:
    """The analysis of a game, match or session."""

    evaluator: str
    luck_evaluator: str
    thresholds: Thresholds
    length: int
    players: tuple[PlayerSummary, PlayerSummary]
    games: tuple[GameAnalysis, ...]
    score: tuple[int, int] = (0, 0)
    player_names: tuple[str, str] = ("White", "Black")
    match_aware: bool = False
    elapsed: float = field(default=0.0, compare=False)
    interrupted: bool = False  # Ctrl-C stopped it: the games and plies here are all that was analysed
    record_games: int = 0  # games in the record (more than len(games) when interrupted)

    def plies(self) -> list[PlyAnalysis]:
        """Every analysed ply in order."""
        return [p for g in self.games for p in g.plies]

    def flagged(self) -> list[PlyAnalysis]:
        """The marked decisions (doubtful or worse), in order."""
        return [p for p in self.plies() if p.mark]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of everything."""
        t = self.thresholds
        return {
            "evaluator": self.evaluator, "luck_evaluator": self.luck_evaluator,
            "thresholds": {"doubtful": t.doubtful, "bad": t.bad, "very_bad": t.very_bad, "lucky": t.lucky,
                           "very_lucky": t.very_lucky},
            "length": self.length, "score": list(self.score), "match_aware": self.match_aware,
            "units": "normalised match equity (EMG)" if self.match_aware else "points (money equity)", "players": [p.to_dict() for p in self.players],
            "games": [{"game": g.number, "score": list(g.score), "result": g.result, "points": g.points,
                       "plies": [p.to_dict() for p in g.plies]} for g in self.games],
            "elapsed": self.elapsed,
            "interrupted": self.interrupted,
            "record_games": self.record_games or len(self.games),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    def to_text(self, all_plies: bool = False) -> str:
        """A readable report: flagged decisions (or every ply), then per-player totals."""
        lines = [f"Analysis by {self.evaluator} (luck: {self.luck_evaluator}); "
                 + (f"{self.length} point match" if self.length else "session") + f", {len(self.games)} game(s); "
                 + ("equities are normalised match equity (EMG)" if self.match_aware else "equities in points")]
        if self.interrupted:
            cut = [p for p in self.plies() if p.rollout_cut is not None]
            lines.append(f"INTERRUPTED (Ctrl-C): {len(self.plies())} plies of {len(self.games)} of "
                         f"{self.record_games or len(self.games)} game(s) analysed; the totals cover those only"
                         + "".join(f"; the re-check of game {p.game} ply {p.number} was cut short after "
                                   f"{p.rollout_cut} games and not used" for p in cut))
        for game in self.games:
            lines.append("")
            lines.append(f"Game {game.number} (score {self.player_names[0]} {game.score[0]}, "
                         f"{self.player_names[1]} {game.score[1]}): {game.result}"
                         + (f", {game.points} point(s)" if game.points else ""))
            for p in game.plies:
                if not (all_plies or p.mark or p.luck_mark.startswith("very")):
                    continue
                who = self.player_names[p.turn]
                text = f"  {p.number:4d}. {who:<10} {p.dice[0]}{p.dice[1]}: {p.played.notation:<24}"
                if p.forced:
                    text += " (forced)"
                elif p.played.position == p.best.position:
                    text += " (best)"
                elif p.mark or all_plies:
                    text += f" best {p.best.notation:<24} loss {p.loss:.3f}" + (f"  {p.mark}" if p.mark else "")
                if p.rollout_games:
                    text += f" (rollout {p.rollout_games} games, +- {p.rollout_se:.3f}; evaluator {p.evaluator_loss:.3f})"
                if p.rollout_cut is not None:
                    text += f" (re-check cut short after {p.rollout_cut} games: not used, the evaluator's verdict stands)"
                if p.luck_mark or all_plies:
                    text += f"  luck {p.luck:+.3f}" + (f" {p.luck_mark}" if p.luck_mark else "")
                lines.append(text)
        lines.append("")
        header = f"{'':<22}" + "".join(f"{p.name:>14}" for p in self.players)
        lines.append(header)
        rows: list[tuple[str, Callable[[PlayerSummary], str]]] = [
            ("unforced decisions", lambda p: f"{p.decisions}"),
            ("forced plies", lambda p: f"{p.forced}"),
            ("doubtful", lambda p: f"{p.marks['doubtful']}"),
            ("bad", lambda p: f"{p.marks['bad']}"),
            ("very bad", lambda p: f"{p.marks['very bad']}"),
            ("total equity loss", lambda p: f"{p.total_loss:.3f}"),
            ("loss per decision", lambda p: f"{p.mean_loss:.4f}"),
            ("performance rating", lambda p: f"{p.rating:.1f}"),
            ("rating band", lambda p: p.band or "-"),
            ("luck total", lambda p: f"{p.luck:+.3f}"),
            ("very lucky / lucky", lambda p: f"{p.luck_marks['very lucky']} / {p.luck_marks['lucky']}"),
            ("unlucky / very unlucky", lambda p: f"{p.luck_marks['unlucky']} / {p.luck_marks['very unlucky']}"),
        ]
        for label, cell in rows:
            lines.append(f"{label:<22}" + "".join(f"{cell(p):>14}" for p in self.players))
        lines.append("performance rating = 500 x mean equity loss per unforced decision (0 = perfect); bands: "
                     + band_legend())
        return "\n".join(lines)

    def to_html(self) -> str:
        """A self-contained HTML report (inline SVG boards, no scripts, no external files)."""
        from fevga.report import analysis_html

        return analysis_html(self)


# ---------------------------------------------------------------------------------------
# The analysis


def _as_match(record: GameRecord | MatchRecord) -> MatchRecord:
    if isinstance(record, MatchRecord):
        return record
    if isinstance(record, GameRecord):
        score = [0, 0]
        if record.winner is not None:
            score[record.winner] += record.points
        return MatchRecord(length=0, games=(record,), score=(score[0], score[1]))
    raise InvalidArgumentError(f"record {type(record).__name__} must be a GameRecord or a MatchRecord")


def _entry(move: Move, equity: float) -> MoveEquity:
    return MoveEquity(move.notation, move.position, equity)


def analyse(
    record: GameRecord | MatchRecord,
    plies: int = 1,
    *,
    evaluator: Evaluator | None = None,
    luck_evaluator: Evaluator | None = None,
    thresholds: Thresholds | None = None,
    keep: int = 5,
    progress: Callable[[int, int], None] | None = None,
    rollouts: int = 0,
    rollout_seed: SeedLike = 0,
    rollout_policy: Policy = "net",
    workers: int | None = 1,
) -> Analysis:
    """Analyse every ply of a game or match record (see the module docstring for the definitions).

    `plies` sets the default decision evaluator, the shipped net (`ApiEvaluator(plies)`);
    `evaluator` replaces it (e.g. ``HeuristicEvaluator(plies)`` for the heuristic). Luck uses
    `luck_evaluator` (default: the decision evaluator at 1 ply). `keep` ranked
    moves are kept per decision for the reports. `progress(done, total)` is called after each game.

    With `rollouts` > 0 every flagged decision is re-checked: the played and the best move
    are rolled out `rollouts` games each with `rollout_policy` (default: the net) on the same dice streams
    (`fevga.rollout_moves`, seed `rollout_seed`, `workers` threads); the rollout's loss then
    replaces the evaluator's (kept in `evaluator_loss`) and sets the mark.

    Ctrl-C returns what was analysed so far with ``interrupted=True``: a re-check it cut short
    is not used (the ply keeps the evaluator's verdict and says so in `rollout_cut`).
    """
    if not isinstance(rollouts, int) or isinstance(rollouts, bool) or rollouts < 0:
        raise InvalidArgumentError(f"rollouts {rollouts!r} must be a non-negative number of games")
    import time

    started = time.perf_counter()
    match = _as_match(record)
    decide: Evaluator = evaluator if evaluator is not None else ApiEvaluator(plies)
    luck_eval: Evaluator = luck_evaluator if luck_evaluator is not None else _default_luck(decide)
    marks = thresholds or Thresholds()
    if not isinstance(marks, Thresholds):
        raise InvalidArgumentError(f"thresholds {marks!r} must be a fevga.analyser.Thresholds")
    games: list[GameAnalysis] = []
    score = [0, 0]
    match_aware = False
    interrupted = False
    for index, game in enumerate(match.games, 1):
        rules = rules_of(game.rules)
        game_decide, game_luck = decide, luck_eval
        if match.length > 0 and max(score) < match.length:
            game_decide = _at_score(decide, (score[0], score[1]), match.length)
            game_luck = game_decide if luck_eval is decide else _at_score(luck_eval, (score[0], score[1]),
                                                                          match.length)
            match_aware = match_aware or game_decide is not decide
        positions = game.positions()
        plies_out = []
        try:  # Ctrl-C ends the analysis with what is done: a partial report, marked as such
            for number, (ply, before) in enumerate(zip(game.plies, positions), 1):
                after = positions[number]
                analysed = _analyse_ply(game_decide, game_luck, marks, rules, index, number, ply.turn, before,
                                        ply.dice, after, keep)
                if rollouts and analysed.mark:
                    at = ((score[0], score[1]), match.length) if game_decide is not decide else None
                    analysed = _rollout_check(analysed, marks, rules, rollouts, rollout_seed, rollout_policy,
                                              workers, at)
                    interrupted = analysed.rollout_cut is not None
                plies_out.append(analysed)
                if interrupted:
                    break
        except KeyboardInterrupt:
            interrupted = True
        if plies_out or not interrupted:
            games.append(GameAnalysis(number=index, score=(score[0], score[1]), result=game.result,
                                      points=game.points, plies=tuple(plies_out)))
        if interrupted:
            break
        if game.winner is not None:
            score[game.winner] += game.points
        if progress is not None:
            progress(index, len(match.games))
    summaries = tuple(_summary(color, match.players[color], games) for color in (0, 1))
    return Analysis(evaluator=decide.name, luck_evaluator=luck_eval.name, thresholds=marks, length=match.length,
                    players=(summaries[0], summaries[1]), games=tuple(games), score=(score[0], score[1]),
                    player_names=match.players, match_aware=match_aware, elapsed=time.perf_counter() - started,
                    interrupted=interrupted, record_games=len(match.games))


def _default_luck(decide: Evaluator) -> Evaluator:
    """The 1-ply version of the decision evaluator (itself at 1 ply: each roll is ranked once)."""
    if isinstance(decide, HeuristicEvaluator):
        return decide if decide.plies == 1 else HeuristicEvaluator(1)
    if isinstance(decide, ApiEvaluator):
        return decide if decide.plies == 1 else decide.with_plies(1)
    return decide


def _at_score(evaluator: Evaluator, score: tuple[int, int], length: int) -> Evaluator:
    """The evaluator ranking by match winning chance at `score`, if it can (else itself)."""
    at_score = getattr(evaluator, "at_score", None)
    if at_score is None:
        return evaluator
    result: Evaluator = at_score(score, length)
    return result


def _rank(evaluator: Evaluator, position: Position, dice: tuple[int, int], rules: Rules,
          played: Position) -> list[tuple[Move, float]]:
    if isinstance(evaluator, (HeuristicEvaluator, ApiEvaluator)):
        return evaluator.rank(position, dice, rules, keep=[played])
    return evaluator.rank(position, dice, rules)


def _analyse_ply(decide: Evaluator, luck_eval: Evaluator, marks: Thresholds, rules: Rules, game: int,
                 number: int, turn: int, before: Position, dice: tuple[int, int], after: Position,
                 keep: int) -> PlyAnalysis:
    ranking = _rank(decide, before, dice, rules, after)
    if not ranking:
        raise InvalidArgumentError(f"evaluator {decide.name} ranked no moves for {dice} in {before.id}")
    best_move, best_equity = ranking[0]
    played_at = next((i for i, (m, _) in enumerate(ranking) if m.position == after), None)
    if played_at is None:
        raise InvalidArgumentError(f"evaluator {decide.name} did not rank the played move in {before.id} {dice}")
    played_move, played_equity = ranking[played_at]
    loss = max(best_equity - played_equity, 0.0) if len(ranking) > 1 else 0.0
    if luck_eval is decide:
        after_roll = best_equity
    else:
        after_roll = _rank(luck_eval, before, dice, rules, after)[0][1]
    luck = after_roll - luck_eval.value(before, rules)
    return PlyAnalysis(
        game=game, number=number, turn=turn, position=before, dice=dice,
        played=_entry(played_move, played_equity), best=_entry(best_move, best_equity), loss=loss,
        mark=marks.mark(loss) if len(ranking) > 1 else "", legal_moves=len(ranking), luck=luck,
        luck_mark=marks.luck_mark(luck), ranking=tuple(_entry(m, e) for m, e in ranking[:keep]),
        rank=played_at + 1,
    )


def _rollout_check(ply: PlyAnalysis, marks: Thresholds, rules: Rules, games: int, seed: SeedLike,
                   policy: Policy, workers: int | None, at: tuple[tuple[int, int], int] | None) -> PlyAnalysis:
    """The decision re-checked by rolling out its played and best moves together
    (`fevga.rollout_moves`: the same dice in game i for both, so the standard error is that of
    their paired difference). In a match (`at` = (score, length)) the moves are compared by
    match winning chance, expressed as normalised equity like the match-aware evaluators."""
    from fevga.match import away_scores, match_equity_table
    from fevga.rollout import rollout_moves

    score, length = at if at is not None else (None, None)
    chosen = [ply.played.position] if ply.best.position == ply.played.position else \
        [ply.played.position, ply.best.position]
    moves = [m for m in ply.position.legal_moves(ply.dice, rules) if m.position in chosen]
    ranking = rollout_moves(ply.position, ply.dice, games=games, seed=seed, workers=workers, policy=policy,
                            rules=rules, progress=False, moves=moves, score=score, length=length)
    if any(m.result.interrupted for m in ranking):
        # Cut short by Ctrl-C: a partial rollout is no verdict. The evaluator's loss and mark
        # stand, and the ply says how far the re-check got (the analysis stops here).
        return replace(ply, rollout_cut=min(m.result.games for m in ranking))
    # Normalised match equity 2 (MWC - L) / (W - L) - 1 (W, L: the mover's match chance after a
    # single win or loss): `scale` converts the rollouts' match-chance differences into it.
    scale, lost = 1.0, 0.0
    if at is not None:
        table = match_equity_table(max(at[1], 1))
        a, b = away_scores(at[0], at[1], ply.turn)
        lost = table.receiver(a, b - 1)
        spread = table.starter(a - 1, b) - lost
        scale = 2.0 / spread if spread > 1e-12 else 2.0

    def value(m: MoveRollout) -> float:
        if m.result.match_chance is None:
            return m.result.raw_equity
        return scale * (m.result.match_chance - lost) - 1.0

    top, played_roll = ranking[0], next(m for m in ranking if m.move.position == ply.played.position)
    loss = -scale * played_roll.diff
    se = scale * played_roll.diff_se
    played = MoveEquity(ply.played.notation, ply.played.position, value(played_roll))
    best_position = top.move.position
    assert isinstance(best_position, Position)  # a Fevga ranking
    best_entry = MoveEquity(top.move.notation if top is not played_roll else ply.played.notation,
                            best_position, value(top))
    return replace(ply, loss=loss, mark=marks.mark(loss), evaluator_loss=ply.loss, rollout_se=se,
                   rollout_games=games, played=played, best=best_entry)


def _summary(color: int, name: str, games: list[GameAnalysis]) -> PlayerSummary:
    mine = [p for g in games for p in g.plies if p.turn == color]
    decisions = [p for p in mine if not p.forced]
    marks = {m: sum(1 for p in decisions if p.mark == m) for m in MARKS}
    luck_marks = {m: sum(1 for p in mine if p.luck_mark == m) for m in LUCK_MARKS}
    return PlayerSummary(color=color, name=name, decisions=len(decisions), forced=len(mine) - len(decisions),
                         total_loss=sum(p.loss for p in decisions), marks=marks,
                         luck=sum(p.luck for p in mine), luck_marks=luck_marks)
