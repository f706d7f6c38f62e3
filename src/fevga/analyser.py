"""Analysis of recorded games and matches: every decision's error, every roll's luck, per-player ratings.

The analysis runs against a small evaluator interface (`Evaluator`): ``rank(position, dice,
rules)`` returns the legal moves with their equity for the mover, best first, and
``value(position, rules)`` the equity of the side on roll before it rolls. The default,
`ApiEvaluator`, is the shipped net through ``fevga.hint`` / ``fevga.evaluate``;
`HeuristicEvaluator`, the core's expectimax over the heuristic with exact bear-off tables in
covered races, is the old one (``evaluator=HeuristicEvaluator(plies)``, ``--evaluator
heuristic``); any object with `rank` and `value` drops in the same way.

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
* Gioul records (`GioulGameRecord`, `GioulMatchRecord`) are analysed decision by decision (a
  roll's chain blocks and dice handed over are decisions of their own) by the shipped Gioul
  net at 1 ply; a roll's luck = its value minus the mean over the 21 rolls, every decision of
  the roll played as the net plays it (`fevga.analysis.gioul_roll_values`), given to the
  roll's first decision. Gioul is judged for money only: a match record's games are not
  match-aware, and the rollout re-check is for Fevga.
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from fevga.errors import InvalidArgumentError
from fevga.limits import MAX_ITEMS, check_flag, check_int
from fevga.records import GameRecord, MatchRecord
from fevga.records import GioulGameRecord, GioulMatchRecord, session_of
from fevga.gioul import GioulPosition
from fevga.policy import HEURISTIC_SCALE, Policy
from fevga.position import COLOR_NAMES, WHITE, Move, Position
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike
from fevga.match import away_scores, match_equity_table, match_winning_chance
from fevga.rollout import rollout_moves
from fevga.bearoff.core_tables import tables_of
from fevga_core import rollout as core
from fevga.analysis import MAX_PLIES, deepest_plies, evaluate, every_move_of, gioul_roll_values, hint, search_name
import io
from fevga.rollout.jobs import MAX_GAMES
from fevga.checks import check_workers
import time

if TYPE_CHECKING:
    from fevga.rollout import MoveRollout
    from fevga.match import MatchEquityTable

AnyPosition = Position | GioulPosition
MARKS = ("doubtful", "bad", "very bad")
LUCK_MARKS = ("very unlucky", "unlucky", "lucky", "very lucky")


class Evaluator(Protocol):
    """What the analysis needs from an evaluator (equities in points, mars = 2). A Gioul
    record also needs ``roll_values(state, rules)`` (as `ApiEvaluator.roll_values`), and
    ``rank`` is given the roll's dice for its first decision, None for pending dice."""

    name: str

    def rank(self, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules) -> list[tuple[Any, float]]:
        """Every legal move with its equity for the mover, best first."""

    def value(self, position: Position, rules: Rules) -> float:
        """The equity of the side on roll before it rolls."""


def _evaluator(name: str, evaluator: object) -> Evaluator:
    """`evaluator` if it has what the analysis calls (a name, rank and value)."""
    if not (isinstance(getattr(evaluator, "name", None), str) and callable(getattr(evaluator, "rank", None))
            and callable(getattr(evaluator, "value", None))):
        raise InvalidArgumentError(f"{name} {repr(evaluator)[:60]} must be an analysis evaluator (a name, rank() "
                                   "and value(): ApiEvaluator, HeuristicEvaluator, ...)")
    return evaluator  # type: ignore[return-value]


def _finished_equity(after: Position) -> float | None:
    """Points for the player who just moved, if its move ended the game."""
    winner = after.winner()
    if winner is None:
        return None
    return float(after.points()) if winner != after.turn else -float(after.points())


class HeuristicEvaluator:
    """The heuristic evaluator (the analysis default before the net): expectimax over the core's evaluation, counting plies as
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
        if not isinstance(tables, str) or tables not in ("bearoff", "heuristic"):
            raise InvalidArgumentError(f"tables {tables!r} must be 'bearoff' or 'heuristic'")
        if not isinstance(window, (int, float)) or not window >= 0:
            raise InvalidArgumentError(f"window {window!r} must be a non-negative equity")

        self.plies = plies
        self.candidates = candidates
        self.window = window
        self.name = f"heuristic {plies}-ply" + (" + bear-off tables" if tables == "bearoff" else "")
        self._plain = tables_of(None)
        self._exact = tables_of("default") if tables == "bearoff" else None
        self._scale = HEURISTIC_SCALE

    def _tables(self, position: Position) -> Any:
        """The exact tables if `position` is a covered race already, else the plain heuristic."""
        if self._exact is not None and core.race(position._row(), self._exact) is not None:
            return self._exact
        return self._plain

    def _deep(self, position: Position, depth: int, rules: Rules, tables: Any) -> float:
        return float(core.expectimax_value(position._row(), depth, rules.flags, tables, self._scale))

    def _after(self, after: Position, depth: int, rules: Rules, tables: Any) -> float:
        final = _finished_equity(after)
        return final if final is not None else -self._deep(after, depth, rules, tables)

    def rank(self, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules,
             keep: Sequence[AnyPosition] = ()) -> list[tuple[Any, float]]:
        """Every legal move with its equity for the mover, best first (Fevga positions)."""
        assert isinstance(position, Position) and dice is not None  # the Analyser refuses it a Gioul record
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

    ``every_move`` is passed to ``fevga.hint`` (only): True searches every move of a decision
    at 2 plies, not only the move filter's (named "net 2-ply every move"), False the filter,
    None the game's default (``fevga.analysis.every_move_of``: every move in Gioul, the
    stronger judge there, docs/error_rate.md). With None the search depends on the record's
    game, so the name does too: ``name`` says "net 2-ply" until ``for_game(game)`` (which the
    analysis calls) gives the evaluator of that game, named for its search.

    In a match, ``at_score(score, length)`` gives the same evaluator ranking by match
    winning chance (docs/match.md), expressed as normalised equity (EMG): 2 (MWC - L) /
    (W - L) - 1, where W and L are the mover's match winning chances after winning and
    losing a single game, so a single win is +1 and a single loss -1 at every score.
    """

    def __init__(self, plies: int = 1, hint: HintFn | None = None, evaluate: EvaluateFn | None = None,
                 name: str | None = None, *, score: tuple[int, int] | None = None, length: int = 0,
                 table: MatchEquityTable | None = None, value_plies: int | None = None,
                 every_move: bool | None = None) -> None:
        high = MAX_PLIES + 1 if hint is None else 2**31  # fevga.hint's range; another hint has its own
        if not isinstance(plies, int) or isinstance(plies, bool) or not 1 <= plies <= high:
            bound = f"in 1..{high}" if hint is None else ">= 1"
            raise InvalidArgumentError(f"plies={plies!r} must be an integer {bound} (1 rates a move by its result)")
        self.every_move = check_flag("every_move", every_move, none=True)
        if hint is not None:
            if self.every_move:
                raise InvalidArgumentError("every_move chooses what fevga.hint searches: another hint function has its own")
            self.every_move = None  # nothing to pass to another hint function
        self.plies = plies
        self.value_plies = plies - 1 if value_plies is None else value_plies
        self._hint = hint
        self._evaluate = evaluate
        self.score = score
        self.length = length
        self.table = table
        base = name or (f"net {search_name(plies, bool(self.every_move))}" if hint is None else f"evaluator {plies}-ply")
        self._named = name
        self.name = base if score is None else f"{base}, match-aware"

    def at_score(self, score: tuple[int, int], length: int) -> ApiEvaluator:
        """This evaluator ranking by match winning chance at `score` in a match to `length`."""
        table = self.table if self.table is not None and self.table.length >= length else \
            match_equity_table(max(length, 1))
        return ApiEvaluator(self.plies, self._hint, self._evaluate, self._named, score=score, length=length,
                            table=table, value_plies=self.value_plies, every_move=self.every_move)

    def with_plies(self, plies: int) -> ApiEvaluator:
        """The same evaluator at another depth (the default luck evaluator uses 1 ply)."""
        return ApiEvaluator(plies, self._hint, self._evaluate, None, score=self.score, length=self.length,
                            table=self.table, every_move=self.every_move)

    def for_game(self, game: str) -> ApiEvaluator:
        """This evaluator as it judges a record of `game`: the game's default search
        (every_move None) made explicit, and named so (Gioul's: "net 2-ply every move")."""
        if self.every_move is not None or self._hint is not None:
            return self
        return ApiEvaluator(self.plies, None, self._evaluate, self._named, score=self.score, length=self.length,
                            table=self.table, value_plies=self.value_plies, every_move=every_move_of(game, None))

    def _functions(self) -> tuple[HintFn, EvaluateFn]:
        return self._hint or hint, self._evaluate or evaluate

    def _equity(self, evaluation: Any, side: int) -> float:
        """Money equity, or normalised match equity of `side` when a score is set."""
        if self.score is None or self.table is None:
            return float(evaluation.equity)

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

    def rank(self, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules,
             keep: Sequence[AnyPosition] = ()) -> list[tuple[Any, float]]:
        """The hint list as (move, equity for the mover), best first.

        The hint's order is kept (moves searched deeper first); in a match the moves are
        re-ordered by match equity within each depth. A move whose result is in `keep` and
        that the hint's filter left at a shallower depth than the best is re-rated at full
        depth (``evaluate`` of its result), so its loss is measured on the best move's scale.
        """
        hint, evaluate = self._functions()
        mover = position.turn
        keep_ids = set(keep)
        ranked: list[tuple[Any, float, int]] = []
        every: dict[str, bool] = {} if self.every_move is None else {"every_move": self.every_move}
        items = list(hint(position, dice, plies=self.plies, rules=rules, **every))
        top = max((int(getattr(item, "plies", self.plies)) for item in items), default=self.plies)
        for item in items:
            # fevga.Hint(move, evaluation, loss, plies), or any (move, evaluation, ...) tuple
            move, evaluation = (item.move, item.evaluation) if hasattr(item, "move") else (item[0], item[1])
            depth = int(getattr(item, "plies", self.plies))
            final = _finished_equity(move.position) if isinstance(move.position, Position) else None
            if final is not None:  # (a Gioul hint already scores a finished game exactly)
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
        assert self.score is not None and self.table is not None
        a, b = away_scores(self.score, self.length, side)
        mwc = self.table.starter(a - 2, b) if won else self.table.receiver(a, b - 2)
        return self._normalise(mwc, a, b)

    def roll_values(self, state: GioulPosition, rules: Rules) -> tuple[dict[tuple[int, int], float], float]:
        """Each roll's value for the side to roll in a Gioul `state` and their mean
        (`fevga.analysis.gioul_roll_values` over the shipped Gioul net): what a roll's luck is measured by."""
        rules_of(rules, "gioul")
        return gioul_roll_values(state)

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
    position: AnyPosition
    equity: float


@dataclass(frozen=True)
class PlyAnalysis:
    """One ply of a game: the decision (if any) and the luck of its roll."""

    game: int
    number: int
    turn: int
    position: AnyPosition
    dice: tuple[int, ...]  # Fevga: the roll; Gioul: the decision's dice (a pair, a block, leftover dice)
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
    move: int = 0  # the record's move number: its turn line, as the text match format numbers it
    kind: str = ""  # Gioul: "roll" (a roll's first decision), "block" (a chain's next block) or "hand-over"

    @property
    def dice_text(self) -> str:
        """The dice as the reports print them: "6-5" for a pair, "5 5 5 5" for a block or leftover dice."""
        if len(self.dice) == 2 and (self.dice[0] != self.dice[1] or not self.kind):
            return f"{self.dice[0]}-{self.dice[1]}"
        return " ".join(map(str, self.dice))

    @property
    def forced(self) -> bool:
        """True when the roll had a single legal move (not a decision)."""
        return self.legal_moves <= 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"game": self.game, "ply": self.number, "move": self.move, "turn": COLOR_NAMES[self.turn],
                "position": self.position.id,
                "dice": list(self.dice), "played": _move_dict(self.played), "best": _move_dict(self.best),
                "loss": self.loss, "mark": self.mark, "legal_moves": self.legal_moves, "forced": self.forced,
                "rank": self.rank, "luck": self.luck, "luck_mark": self.luck_mark,
                "ranking": [_move_dict(m) for m in self.ranking],
                "rollout": None if not self.rollout_games else {
                    "games": self.rollout_games, "loss": self.loss, "loss_se": self.rollout_se,
                    "evaluator_loss": self.evaluator_loss},
                **({"rollout_cut_short": {"games": self.rollout_cut, "used": False}}
                   if self.rollout_cut is not None else {}),
                **({"kind": self.kind} if self.kind else {})}


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


def signed(value: float, digits: int = 3) -> str:
    """`value` with its sign to `digits` decimals, never "-0.000" (a value that rounds to zero is +0.000)."""
    rounded = round(value, digits)
    return f"{rounded + 0.0 if rounded != 0 else 0.0:+.{digits}f}"


def unsigned(value: float, digits: int = 3) -> str:
    """`value` to `digits` decimals without a sign for a value that rounds to zero ("0.000", never "-0.000")."""
    rounded = round(value, digits)
    return f"{rounded if rounded != 0 else 0.0:.{digits}f}"


def points_text(points: int) -> str:
    """ "1 point", "2 points"."""
    return f"{points} point{'' if points == 1 else 's'}"


@dataclass(frozen=True)
class GameAnalysis:
    """The analysis of one game: its plies and the score before it."""

    number: int
    score: tuple[int, int]
    result: str
    points: int
    plies: tuple[PlyAnalysis, ...]
    resigned: bool = False

    def result_text(self, names: tuple[str, str] = ("White", "Black")) -> str:
        """The result in words: "Alice wins 1 point", "Bob wins 2 points (mars)", "a draw (dead
        position)", "unfinished"."""
        if self.result in COLOR_NAMES:
            winner = names[COLOR_NAMES.index(self.result)]
            how = " by resignation" if self.resigned else (" (mars)" if self.points == 2 else "")
            return f"{winner} wins {points_text(self.points)}{how}"
        return {"draw": "a draw (dead position)", "truncated": "unfinished"}.get(self.result, self.result)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"game": self.number, "score": list(self.score), "result": self.result, "points": self.points,
                **({"resigned": True} if self.resigned else {}), "plies": [p.to_dict() for p in self.plies]}


@dataclass
class Totals:
    """A player's totals, added up game by game (what `PlayerSummary` reports), so that a
    streamed analysis keeps no more than one game in memory."""

    color: int
    name: str
    decisions: int = 0
    forced: int = 0
    total_loss: float = 0.0
    marks: dict[str, int] = field(default_factory=lambda: {m: 0 for m in MARKS})
    luck: float = 0.0
    luck_marks: dict[str, int] = field(default_factory=lambda: {m: 0 for m in LUCK_MARKS})

    def add(self, game: GameAnalysis) -> None:
        """Add this player's plies of `game`, in order."""
        for p in game.plies:
            if p.turn != self.color:
                continue
            if p.forced:
                self.forced += 1
            else:
                self.decisions += 1
                self.total_loss += p.loss
                if p.mark:
                    self.marks[p.mark] += 1
            self.luck += p.luck
            if p.luck_mark:
                self.luck_marks[p.luck_mark] += 1

    def merge(self, other: PlayerSummary | Totals) -> None:
        """Add another summary's totals (the same player in another record)."""
        self.decisions += other.decisions
        self.forced += other.forced
        self.total_loss += other.total_loss
        self.luck += other.luck
        for m in MARKS:
            self.marks[m] += other.marks[m]
        for m in LUCK_MARKS:
            self.luck_marks[m] += other.luck_marks[m]

    def summary(self) -> PlayerSummary:
        """The PlayerSummary of these totals."""
        return PlayerSummary(color=self.color, name=self.name, decisions=self.decisions, forced=self.forced,
                             total_loss=self.total_loss, marks=dict(self.marks), luck=self.luck,
                             luck_marks=dict(self.luck_marks))


@dataclass(frozen=True)
class AnalysisHeader:
    """What every game of an analysis shares: how it was judged, and of what record."""

    evaluator: str
    luck_evaluator: str
    thresholds: Thresholds
    length: int
    player_names: tuple[str, str] = ("White", "Black")
    match_aware: bool = False
    games: int = 0

    @property
    def units(self) -> str:
        """The units of every equity in the analysis."""
        return "normalised match equity (EMG)" if self.match_aware else "points (money equity)"


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

    def header(self) -> AnalysisHeader:
        """What the games share (the reports' opening)."""
        return AnalysisHeader(self.evaluator, self.luck_evaluator, self.thresholds, self.length, self.player_names,
                              self.match_aware, len(self.games))

    def plies(self) -> list[PlyAnalysis]:
        """Every analysed ply in order."""
        return [p for g in self.games for p in g.plies]

    def flagged(self) -> list[PlyAnalysis]:
        """The marked decisions (doubtful or worse), in order."""
        return [p for p in self.plies() if p.mark]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of everything (the same as `to_json`, which the CLI streams game by game)."""
        result: dict[str, Any] = json.loads(self.to_json())
        return result

    def _write(self, report: Any) -> None:
        report.begin(self.header())
        for game in self.games:
            report.game(game)
        if self.interrupted:
            report.interrupted(interruption_note(len(self.plies()), len(self.games), self.record_games,
                                                 self.games[-1] if self.games else None))
        report.end(self.players, self.score, self.elapsed)

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text (fevga.report.JsonReport: the form `fevga analyse --json` streams)."""
        from fevga.report import JsonReport

        out = io.StringIO()
        self._write(JsonReport(out, indent))
        return out.getvalue()

    def to_text(self, all_plies: bool = False) -> str:
        """A readable report: flagged decisions (or every ply), then per-player totals."""
        from fevga.report import TextReport

        out = io.StringIO()
        self._write(TextReport(out, all_plies))
        return out.getvalue().rstrip("\n")

    def to_html(self) -> str:
        """A self-contained HTML report (inline SVG boards and graphs, no scripts, no external files)."""
        from fevga.report import HtmlReport

        out = io.StringIO()
        report = HtmlReport(out)
        report.begin_page(f"fevga analysis: {self.player_names[0]} - {self.player_names[1]}")
        self._write(report)
        report.end_page()
        return out.getvalue()


# ---------------------------------------------------------------------------------------
# The analysis


def _as_match(record: object) -> MatchRecord | GioulMatchRecord:
    if isinstance(record, (MatchRecord, GioulMatchRecord)):
        return record
    if isinstance(record, (GameRecord, GioulGameRecord)):
        return session_of(record)
    raise InvalidArgumentError(f"record {type(record).__name__} must be a game or match record (Fevga or Gioul)")


class _Step(NamedTuple):
    """One recorded decision as the ply loop reads it (`_steps`)."""

    mover: int
    roller: int  # whose roll it is (the text format's turn line)
    roll: tuple[int, int] | None  # the roll this decision begins (ranked with it), else None: dice pending
    dice: tuple[int, ...]  # the decision's own dice
    kind: str  # "" (Fevga) or the Gioul decision's kind


def _steps(game: GameRecord | GioulGameRecord) -> list[_Step]:
    """Each decision of a game: a Fevga ply is a roll; a Gioul decision begins a roll or plays
    the dice pending (a chain's next block, dice handed over)."""
    if isinstance(game, GameRecord):
        return [_Step(ply.turn, ply.turn, ply.dice, ply.dice, "") for ply in game.plies]
    return [_Step(d.mover, d.roller, d.roll, d.dice, d.kind) for d in game.decisions]


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
    on_game: Callable[[int, int], None] | None = None,
    rollouts: int = 0,
    rollout_seed: SeedLike = 0,
    rollout_policy: Policy = "net",
    workers: int | None = 1,
) -> Analysis:
    """Analyse every ply of a game or match record (see the module docstring for the definitions).

    `plies` sets the default decision evaluator, the shipped net (`ApiEvaluator(plies)`);
    `evaluator` replaces it (e.g. ``HeuristicEvaluator(plies)`` for the heuristic). Luck uses
    `luck_evaluator` (default: the decision evaluator at 1 ply). `keep` ranked
    moves are kept per decision for the reports. `on_game(done, total)` is called after each game (as `fevga.rollout`'s
    `on_block` after each block; `progress=` is a progress bar's switch everywhere).

    With `rollouts` > 0 every flagged decision is re-checked: the played and the best move
    are rolled out `rollouts` games each with `rollout_policy` (default: the net) on the same dice streams
    (`fevga.rollout_moves`, seed `rollout_seed`, `workers` threads); the rollout's loss then
    replaces the evaluator's (kept in `evaluator_loss`) and sets the mark.

    Ctrl-C returns what was analysed so far with ``interrupted=True``: a re-check it cut short
    is not used (the ply keeps the evaluator's verdict and says so in `rollout_cut`).

    The whole analysis is kept in the result; `Analyser` gives it game by game instead (what
    `fevga analyse` streams, so that its memory does not grow with the record).
    """
    analyser = Analyser(record, plies, evaluator=evaluator, luck_evaluator=luck_evaluator, thresholds=thresholds,
                        keep=keep, rollouts=rollouts, rollout_seed=rollout_seed, rollout_policy=rollout_policy,
                        workers=workers)
    games = []
    for game in analyser.games():
        games.append(game)
        if on_game is not None:
            on_game(game.number, analyser.header.games)
    return analyser.analysis(tuple(games))


class Analyser:
    """The analysis of a record game by game: `games()` yields each `GameAnalysis` as it is
    done and keeps only the players' running totals, so a report written as the games come
    (fevga.report) holds one game in memory whatever the record's size. Arguments as in `analyse`.

    >>> from fevga.game import play_game
    >>> analyser = Analyser(play_game(seed=3, policy="heuristic"))
    >>> [g.number for g in analyser.games()], analyser.summaries()[0].decisions > 0
    ([1], True)
    """

    def __init__(self, record: object, plies: int = 1, *, evaluator: Evaluator | None = None,
                 luck_evaluator: Evaluator | None = None, thresholds: Thresholds | None = None, keep: int = 5,
                 rollouts: int = 0, rollout_seed: SeedLike = 0, rollout_policy: Policy = "net",
                 workers: int | None = 1) -> None:
        if check_int("rollouts", rollouts, 0, MAX_GAMES - 36):  # the re-checks' limits, before the analysis starts
            check_workers(workers)
        self.match = _as_match(record)
        self.gioul = isinstance(self.match, GioulMatchRecord)
        game = "gioul" if self.gioul else "fevga"
        self.decide = _for_game(_evaluator("evaluator", evaluator) if evaluator is not None else ApiEvaluator(plies),
                                game)
        self.luck = _for_game(_evaluator("luck_evaluator", luck_evaluator), game) if luck_evaluator is not None \
            else _default_luck(self.decide)
        marks = Thresholds() if thresholds is None else thresholds
        if not isinstance(marks, Thresholds):
            raise InvalidArgumentError(f"thresholds {repr(marks)[:60]} must be a fevga.analyser.Thresholds")
        self.marks = marks
        self.keep = check_int("keep", keep, 0, MAX_ITEMS)
        if self.gioul:
            _check_gioul(self.decide, self.luck, rollouts)
        self.rollouts, self.rollout_seed, self.rollout_policy, self.workers = (rollouts, rollout_seed,
                                                                               rollout_policy, workers)
        match = self.match
        aware = match.length > 0 and not self.gioul and bool(match.games) and \
            _at_score(self.decide, (0, 0), match.length) is not self.decide
        self.header = AnalysisHeader(self.decide.name, self.luck.name, marks, match.length, match.players, aware,
                                     len(match.games))
        self.score = [0, 0]
        self.totals = (Totals(0, match.players[0]), Totals(1, match.players[1]))
        self.elapsed = 0.0
        self.interrupted = False  # set when Ctrl-C (or a re-check it cut short) ended games()

    def games(self) -> Iterator[GameAnalysis]:
        """Each game's analysis in order (the totals and the score advance as they come)."""
        match = self.match
        score = self.score
        games: Sequence[GameRecord | GioulGameRecord] = match.games
        for index, game in enumerate(games, 1):
            started = time.perf_counter()
            rules = rules_of(game.rules, game.rules.game)
            game_decide, game_luck = self.decide, self.luck
            if self.header.match_aware and max(score) < match.length:
                game_decide = _at_score(self.decide, (score[0], score[1]), match.length)
                game_luck = game_decide if self.luck is self.decide else _at_score(self.luck, (score[0], score[1]),
                                                                                   match.length)
            positions: Sequence[AnyPosition] = game.positions()
            plies_out = []
            steps = _steps(game)
            moves = _move_numbers(steps)
            try:  # Ctrl-C ends the analysis with what is done: a partial game, marked as such
                for number, (step, before) in enumerate(zip(steps, positions), 1):
                    after = positions[number]
                    analysed = _analyse_ply(game_decide, game_luck, self.marks, rules, index, number, step,
                                            before, after, self.keep)
                    if self.rollouts and analysed.mark:
                        at = ((score[0], score[1]), match.length) if game_decide is not self.decide else None
                        analysed = _rollout_check(analysed, self.marks, rules, self.rollouts, self.rollout_seed,
                                                  self.rollout_policy, self.workers, at)
                        self.interrupted = analysed.rollout_cut is not None
                    plies_out.append(replace(analysed, move=moves[number - 1]))
                    if self.interrupted:
                        break
            except KeyboardInterrupt:
                self.interrupted = True
            if self.interrupted and not plies_out:
                return
            analysed_game = GameAnalysis(number=index, score=(score[0], score[1]), result=game.result,
                                         points=game.points, plies=tuple(plies_out), resigned=game.resigned)
            for totals in self.totals:
                totals.add(analysed_game)
            if game.winner is not None and not self.interrupted:
                score[game.winner] += game.points
            self.elapsed += time.perf_counter() - started
            yield analysed_game
            if self.interrupted:
                return

    def summaries(self) -> tuple[PlayerSummary, PlayerSummary]:
        """Both players' totals over the games analysed so far."""
        return (self.totals[0].summary(), self.totals[1].summary())

    def analysis(self, games: tuple[GameAnalysis, ...]) -> Analysis:
        """The Analysis of the analysed `games` (all of them, once `games()` is exhausted)."""
        h = self.header
        return Analysis(evaluator=h.evaluator, luck_evaluator=h.luck_evaluator, thresholds=h.thresholds,
                        length=h.length, players=self.summaries(), games=games,
                        score=(self.score[0], self.score[1]), player_names=h.player_names, match_aware=h.match_aware,
                        elapsed=self.elapsed, interrupted=self.interrupted, record_games=h.games)


def interruption_note(plies: int, games: int, record_games: int, last: GameAnalysis | None) -> str:
    """What an interrupted analysis covers, in words (the reports print it): `plies` of `games`
    games analysed of the record's `record_games`; the re-check cut short in the `last` game."""
    cut = [p for p in (last.plies if last is not None else ()) if p.rollout_cut is not None]
    return (f"{plies} plies of {games} of {record_games} game(s) analysed; the totals cover those only"
            + "".join(f"; the re-check of game {p.game} ply {p.number} (move {p.move}) was cut short after "
                      f"{p.rollout_cut} games and not used" for p in cut))


def _move_numbers(steps: Sequence[_Step]) -> list[int]:
    """Each decision's move number as the text match format (records.write_match) numbers its
    turn lines: a line holds White's roll then Black's, so White's roll always opens one (a
    Gioul roll's later decisions share its line)."""
    numbers: list[int] = []
    line, black_free = 0, False
    for k, step in enumerate(steps):
        if step.roll is not None or k == 0:
            if step.roller == WHITE or not black_free:
                line += 1
            black_free = step.roller == WHITE
        numbers.append(line)
    return numbers


def _check_gioul(decide: Evaluator, luck: Evaluator, rollouts: int) -> None:
    """InvalidArgumentError, before the analysis starts, for what a Gioul record cannot be
    analysed with: the heuristic evaluator (Fevga's), plies past the Gioul net's, an evaluator
    without roll values for the luck, rollout re-checks (Gioul rollouts do not play the net)."""
    if isinstance(decide, HeuristicEvaluator) or isinstance(luck, HeuristicEvaluator):
        raise InvalidArgumentError("the heuristic evaluator judges Fevga positions: analyse a Gioul record with the "
                                   "Gioul net (the default)")
    if isinstance(decide, ApiEvaluator) and decide._hint is None and decide.plies > deepest_plies("gioul", True):
        raise InvalidArgumentError(f"plies={decide.plies}: Gioul decisions are judged at "
                                   f"1..{deepest_plies('gioul', True)} plies")
    if not callable(getattr(luck, "roll_values", None)):
        raise InvalidArgumentError(f"luck evaluator {luck.name} has no roll_values(): Gioul luck needs each roll's "
                                   "value (ApiEvaluator.roll_values)")
    if rollouts:
        raise InvalidArgumentError("rollouts= re-checks decisions with net rollouts, which Gioul does not have yet: "
                                   "analyse a Gioul record without them")


def _for_game(evaluator: Evaluator, game: str) -> Evaluator:
    """`evaluator` as it judges a record of `game` (an ApiEvaluator: the game's default search named)."""
    return evaluator.for_game(game) if isinstance(evaluator, ApiEvaluator) else evaluator


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


def _rank(evaluator: Evaluator, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules,
          played: AnyPosition) -> list[tuple[Any, float]]:
    if isinstance(evaluator, (HeuristicEvaluator, ApiEvaluator)):
        return evaluator.rank(position, dice, rules, keep=[played])
    return evaluator.rank(position, dice, rules)


def _luck(luck_eval: Evaluator, rules: Rules, before: AnyPosition, roll: tuple[int, int] | None,
          best_equity: float, decide: Evaluator, after: AnyPosition) -> float:
    """The luck of the roll a decision begins (0 for a Gioul decision that begins none): its
    value minus the value before it (Fevga, module docstring), or minus the mean over the 21
    rolls (Gioul, `ApiEvaluator.roll_values`)."""
    if roll is None:
        return 0.0
    if isinstance(before, GioulPosition):
        values, mean = luck_eval.roll_values(before, rules)  # type: ignore[attr-defined]
        return float(values[(min(roll), max(roll))]) - float(mean)
    after_roll = best_equity if luck_eval is decide else _rank(luck_eval, before, roll, rules, after)[0][1]
    return after_roll - luck_eval.value(before, rules)


def _analyse_ply(decide: Evaluator, luck_eval: Evaluator, marks: Thresholds, rules: Rules, game: int,
                 number: int, step: _Step, before: AnyPosition, after: AnyPosition, keep: int) -> PlyAnalysis:
    dice, turn = step.roll, step.mover
    ranking = _rank(decide, before, dice, rules, after)
    if not ranking:
        raise InvalidArgumentError(f"evaluator {decide.name} ranked no moves for {dice} in {before.id}")
    best_move, best_equity = ranking[0]
    played_at = next((i for i, (m, _) in enumerate(ranking) if m.position == after), None)
    if played_at is None:
        raise InvalidArgumentError(f"evaluator {decide.name} did not rank the played move in {before.id} {dice}")
    played_move, played_equity = ranking[played_at]
    loss = max(best_equity - played_equity, 0.0) if len(ranking) > 1 else 0.0
    luck = _luck(luck_eval, rules, before, dice, best_equity, decide, after)
    return PlyAnalysis(
        game=game, number=number, turn=turn, position=before, dice=step.dice, kind=step.kind,
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
