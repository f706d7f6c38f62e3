"""Judgment over the neural evaluator: a position's evaluation and the ranking of a roll's moves.

Plies count as gnubg and the policies count them (docs/net.md, "Plies"): ``evaluate(p, 0)``
is the net's static value (exact bear-off tables override it where they cover the race;
finished games are scored), ``evaluate(p, n)`` averages over the 21 rolls the mover's best
move at n plies. ``hint(p, dice, plies=1)`` rates every move by its result's static value,
``plies=2`` searches the candidates that survive gnubg-style filtering one ply deeper (as the
"net2" policy does) or, with ``every_move`` (Gioul's default, `every_move_of`), every move.

Gioul states (`GioulPosition`) are judged by a Gioul net (docs/net.md "Gioul net"; default:
the shipped one): ``evaluate(state)`` is the net's value for the side to decide
when a new roll is due, and the best of the pending decision's moves when dice are pending
(each result rated as the "net" policy rates it: by the net for whoever decides next, a
chain's next block included, and exactly once the game is over); ``hint(state, dice)`` ranks
those moves at 1 ply. Deeper plies (evaluate 0..2, hint 1..3) are the core's Gioul search
(a hint's root over every move by default; the "net2" policy's filter inside): over the 21
rolls, chains and hand-overs followed through.
`gioul_roll_values` values each of the 21 rolls of a state with its roll due, every decision
of the roll played as the net plays it (the luck of fevga.analyser).

>>> import fevga
>>> e = fevga.evaluate(fevga.Position.initial())
>>> 0 < e.win < 1 and e.win_mars <= e.win and e.lose_mars <= 1 - e.win
True
>>> best = fevga.hint(fevga.Position.initial(), (6, 5))[0]
>>> best.move.notation, best.loss
('24/13', 0.0)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import numpy as np

from fevga.bearoff.core_tables import DEFAULT_SPECS, tables_of
from fevga.checks import check_position
from fevga.errors import InvalidArgumentError
from fevga.limits import check_flag
from fevga.gioul import GioulMove, GioulPosition
from fevga.match import MatchScore, match_score
from fevga.net import Net, net_of
from fevga.notation import parse_dice
from fevga.position import Move, Position
from fevga.rules import Rules, rules_of
from fevga_core import search as core
from fevga_core.board import ROLLS

MAX_PLIES: int = core.PLIES_LIMIT  # deepest evaluate(); hint() goes one deeper
GIOUL_MAX_PLIES: int = core.GIOUL_MAX_PLIES  # a Gioul state's deepest evaluate(); hint() goes one deeper


def deepest_plies(game: str, choice: bool) -> int:
    """The deepest plies of `evaluate` (`choice` False) or of a move choice, `hint` (True: one
    ply more), for a position of `game`.

    >>> deepest_plies("fevga", True), deepest_plies("gioul", False), deepest_plies("gioul", True)
    (4, 2, 3)
    """
    return (GIOUL_MAX_PLIES if game == "gioul" else MAX_PLIES) + int(choice)


def every_move_of(game: str, every_move: object) -> bool:
    """Whether a hint of `game` searches every move: `every_move` itself (True or False), or
    for None the game's default: every move in Gioul, whose move filter drops the best 2-ply
    move too often (docs/error_rate.md, "The move filter in Gioul"), the filter in Fevga.

    >>> every_move_of("gioul", None), every_move_of("fevga", None), every_move_of("gioul", False)
    (True, False, False)
    """
    flag = check_flag("every_move", every_move, none=True)
    return game == "gioul" if flag is None else flag


def search_name(plies: int, every_move: bool) -> str:
    """How a hint's search is named everywhere (analysis, HTTP, UBGI, truths, play): at 1 ply
    every move is valued anyway, so only a deeper every-move search says so.

    >>> search_name(2, True), search_name(1, True), search_name(3, False)
    ('2-ply every move', '1-ply', '3-ply')
    """
    return f"{plies}-ply{' every move' if every_move and plies > 1 else ''}"


@dataclass(frozen=True)
class Evaluation:
    """Probabilities for the side on roll; `equity` in points (a mars counts 2, a draw 0);
    `match_chance`, P(win the match), when evaluated at a match score (else None)."""

    win: float
    win_mars: float
    lose_mars: float
    match_chance: float | None = None

    @property
    def lose(self) -> float:
        """P(lose), a draw counted as half a win and half a loss."""
        return 1.0 - self.win

    @property
    def equity(self) -> float:
        """Expected points: 2 win - 1 + win_mars - lose_mars."""
        return 2.0 * self.win - 1.0 + self.win_mars - self.lose_mars

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form: win, win_mars, lose_mars, lose and equity (and match_chance at a score)."""
        out = {"win": self.win, "win_mars": self.win_mars, "lose_mars": self.lose_mars, "lose": self.lose,
               "equity": self.equity}
        return out if self.match_chance is None else {**out, "match_chance": self.match_chance}

    def flipped(self) -> Evaluation:
        """The same value from the other side's point of view."""
        chance = None if self.match_chance is None else 1.0 - self.match_chance
        return Evaluation(1.0 - self.win, self.lose_mars, self.win_mars, chance)

    def __str__(self) -> str:
        text = (f"win {100 * self.win:.1f}% (mars {100 * self.win_mars:.1f}%), "
                f"lose {100 * self.lose:.1f}% (mars {100 * self.lose_mars:.1f}%), equity {self.equity:+.3f}")
        return text if self.match_chance is None else f"{text}, match {100 * self.match_chance:.1f}%"


M = TypeVar("M", Move, GioulMove)


@dataclass(frozen=True)
class Hint(Generic[M]):
    """One legal move of a roll (of a Gioul decision) with its evaluation for the mover."""

    move: M
    evaluation: Evaluation
    loss: float  # given up against the best move (0 for the best): equity, or match chance at a score
    plies: int  # the depth this move was evaluated at (filtered-out moves keep 1)

    @property
    def equity(self) -> float:
        """The mover's equity after this move."""
        return self.evaluation.equity

    @property
    def value(self) -> float:
        """What the ranking compares: the match chance at a score, else the equity."""
        e = self.evaluation
        return e.equity if e.match_chance is None else e.match_chance

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the move's notation, the plies it was evaluated at, its loss and its
        evaluation (the position after it is ``move.position``; its ID costs more to encode than
        ranking the move at 1 ply, so callers add it when they want it)."""
        return {"move": self.move.notation, "plies": self.plies, "loss": self.loss, **self.evaluation.to_dict()}


def _plies(plies: object, low: int, high: int) -> int:
    if not isinstance(plies, int) or isinstance(plies, bool) or not low <= plies <= high:
        why = " (1 rates a move by its result)" if low == 1 else ""
        raise InvalidArgumentError(f"plies={plies!r} must be an integer in {low}..{high}{why}")
    return plies


def _judged(position: object, plies: object, low: int, rules: Rules | None, score: tuple[int, int] | None,
            length: int | None) -> tuple[Position | GioulPosition, int, Rules, MatchScore | None]:
    """(position, plies, its game's rules, the match) checked for evaluate (low 0) and hint
    (low 1): either game's position, plies up to its game's deepest (deepest_plies), a match
    score for Fevga only."""
    if isinstance(position, GioulPosition):
        rules = rules_of(rules, "gioul")
        deepest = deepest_plies("gioul", low == 1)
        if not isinstance(plies, int) or isinstance(plies, bool) or not low <= plies <= deepest:
            raise InvalidArgumentError(f"plies={plies!r}: a Gioul state is judged at {low}..{deepest} plies")
        if score is not None or length is not None:
            raise InvalidArgumentError("a Gioul state is judged for money only (no match score) for now")
        return position, plies, rules, None
    position = check_position(position, finished=True)
    return position, _plies(plies, low, deepest_plies("fevga", low == 1)), rules_of(rules), match_score(score, length)


def core_judge(game: str, net: Net | str | os.PathLike[str] | None = None) -> tuple[Any, Any]:
    """(the core net, the core bear-off tables) that judge a position of `game`: `net` (default
    the game's shipped net) and the game's exact tables (evaluate, hint and fevga.batch)."""
    return net_of(net, game)._core, tables_of(DEFAULT_SPECS[game])


def evaluate(position: Position | GioulPosition, plies: int = 0, rules: Rules | None = None, *,
             net: Net | str | os.PathLike[str] | None = None, score: tuple[int, int] | None = None,
             length: int | None = None) -> Evaluation:
    """The evaluation of `position` for its side on roll at `plies` plies (0..MAX_PLIES).

    `net` is a fevga.Net or a net file (default: the shipped net of the position's game). A
    finished game scores its result; a dead position is a draw (win 0.5, equity 0) from 1 ply
    on. With a match `score` (White's, Black's points) and `length`, the evaluation also
    carries the side on roll's chance of winning the match (fevga.match, docs/match.md). A
    Gioul state is evaluated for its side to decide (0..GIOUL_MAX_PLIES plies).
    """
    position, depth, rules, match = _judged(position, plies, 0, rules, score, length)
    win, win_mars, lose_mars = core.evaluate_position(*core_judge(rules.game, net), position, depth, rules.flags)
    chance = None if match is None else match.chance(position.turn, win, win_mars, lose_mars)
    return Evaluation(win, win_mars, lose_mars, chance)


@overload
def hint(position: Position, dice: object, plies: int = 1, rules: Rules | None = None, *,
         net: Net | str | os.PathLike[str] | None = None, score: tuple[int, int] | None = None,
         length: int | None = None, every_move: bool | None = None) -> list[Hint[Move]]: ...


@overload
def hint(position: GioulPosition, dice: object, plies: int = 1, rules: Rules | None = None, *,
         net: Net | str | os.PathLike[str] | None = None, score: tuple[int, int] | None = None,
         length: int | None = None, every_move: bool | None = None) -> list[Hint[GioulMove]]: ...


def hint(position: Position | GioulPosition, dice: object, plies: int = 1, rules: Rules | None = None, *,
         net: Net | str | os.PathLike[str] | None = None, score: tuple[int, int] | None = None,
         length: int | None = None, every_move: bool | None = None) -> list[Hint[Move]] | list[Hint[GioulMove]]:
    """Every legal move of `position` with `dice`, best first, for the mover (plies 1..MAX_PLIES + 1).

    From 2 plies on, the move filter (gnubg's) searches only the moves best at 1 ply (the best
    6 within 0.16 equity of the best); the others keep their 1-ply values and rank after them
    (`Hint.plies` says which). With `every_move`, every move is searched at 2 plies, and from 3
    plies on the filter is drawn from those 2-ply values instead: slower (a 2-ply Gioul hint
    looks at all its moves instead of about 5), and its best may be one the 1-ply filter drops.
    `every_move=None` is the game's default (`every_move_of`): every move in Gioul, where the
    filter drops the best too often (docs/error_rate.md, "The move filter in Gioul"); the
    filter in Fevga, where searching every move does not pick measurably better.

    With a match `score` and `length` the moves are ranked by the mover's chance of winning
    the match (and `loss` is in match chance), not by money equity: at double match point a
    mars is worth nothing, at other scores it decides the match. A Gioul state's moves are
    those of its next decision (its pending one, or the first of `dice`), at 1..GIOUL_MAX_PLIES + 1
    plies. The moves are generated once, by the core's ranking.

    >>> [h.move.notation for h in hint(Position.initial(), "1-1")]
    ['24/20']
    """
    position, depth, rules, match = _judged(position, plies, 1, rules, score, length)
    every_move = every_move_of(rules.game, every_move)
    if position.winner() is not None:
        raise InvalidArgumentError(f"position {position.id} is already finished")
    d1, d2 = position._dice_args(dice) if isinstance(position, GioulPosition) else parse_dice(dice)
    move_cls = GioulMove if isinstance(position, GioulPosition) else Move
    moves, values, used = core.rank_position(*core_judge(rules.game, net), position, d1, d2, depth, rules.flags, move_cls,
                                             every_move)
    evaluations = []
    for win, win_mars, lose_mars in values.tolist():
        chance = None if match is None else match.chance(position.turn, win, win_mars, lose_mars)
        evaluations.append(Evaluation(win, win_mars, lose_mars, chance))
    plies_used = used.tolist()
    ranked = [e.equity if e.match_chance is None else e.match_chance for e in evaluations]  # Hint.value
    # deeper evaluations first (they are the search's verdict), then by value, then generator order
    order = sorted(range(len(evaluations)), key=lambda k: (-plies_used[k], -ranked[k], k))
    best = ranked[order[0]]
    return [Hint(moves[k], evaluations[k], best - ranked[k], plies_used[k]) for k in order]


def gioul_roll_values(state: GioulPosition, *, net: Net | str | os.PathLike[str] | None = None
                      ) -> tuple[dict[tuple[int, int], float], float]:
    """The value of each of the 21 rolls, keyed (low, high), for the side to roll in `state` (no dice pending),
    every decision of the roll (its chain's blocks, dice handed over) played as the "net"
    policy plays it, each side maximising its own equity by the Gioul net (`net`, default the
    shipped one; the Gioul bear-off tables in covered races), until the roll is done, and the
    state it ends in valued as the net values it; and their mean over the 36 rolls. The luck of a roll
    (fevga.analyser) is its value minus that mean: zero on average over the rolls.

    >>> values, mean = gioul_roll_values(GioulPosition.initial())
    >>> len(values), max(values, key=values.__getitem__), abs(mean) < 1
    (21, (5, 5), True)
    """
    if not isinstance(state, GioulPosition) or state.pending or state.winner() is not None:
        raise InvalidArgumentError(f"roll values need a Gioul state whose roll is due, not {state!r}")
    values, mean = core.roll_values(*core_judge("gioul", net), state)
    return dict(zip(ROLLS, values)), mean
