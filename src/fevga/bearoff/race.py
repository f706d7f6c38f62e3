"""Race estimates from one-sided distributions, best moves from the tables, a table policy.

A no-contact position (both armies inside their own points 1..11, which never overlap on the
board) is estimated by treating the two sides' numbers of rolls as independent:

* P(on roll wins) = sum_k P(A needs k) * P(B needs >= k)
* P(on roll wins a mars) = sum_k P(A needs k) * P(B's first checker needs >= k)
* P(on roll loses a mars) = sum_k P(B needs k) * P(A's first checker needs >= k + 1)

The formula lives in the core (fevga_core/race.pyx `race_estimate`, which the evaluators and
the rollouts' truncation use too); `race_estimate` here is its typed wrapper. The error of the
estimate against the exact two-sided table is measured by `estimate_error` (figures in
docs/bearoff.md).
"""

from __future__ import annotations

import random
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from fevga.bearoff.tables import (
    OneSidedDB,
    Side,
    TwoSidedDB,
    check_gioul_race,
    check_position,
    default_one_sided,
    game_of,
    require_game,
    side_counts,
)
from fevga.checks import renamed
from fevga.errors import InvalidArgumentError, MissingBearoffError
from fevga.position import COLOR_NAMES, Position
from fevga_core import bearoff as core, race as core_race

from fevga.gioul import GioulPosition

if TYPE_CHECKING:
    from fevga.gioul import GioulMove
    from fevga.position import Move

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RaceEstimate:
    """Outcome probabilities and equity of the side on roll in a no-contact race."""

    win: float
    win_mars: float
    lose_mars: float

    @property
    def equity(self) -> float:
        """Expected points for the side on roll: win + mars bonus - loss - mars bonus."""
        return 2.0 * self.win - 1.0 + self.win_mars - self.lose_mars  # as the core sums it

    def to_dict(self) -> dict[str, float]:
        """JSON-ready: win, win_mars, lose_mars and equity."""
        return {"win": self.win, "win_mars": self.win_mars, "lose_mars": self.lose_mars, "equity": self.equity}


# The core's view of each one-sided table race_estimate has used (built once per table).
_CORE_TABLES: weakref.WeakKeyDictionary[OneSidedDB, core_race.Tables] = weakref.WeakKeyDictionary()
_CORE_TABLES_LOCK = threading.Lock()


def _core_tables(db: OneSidedDB) -> core_race.Tables:
    with _CORE_TABLES_LOCK:
        tables = _CORE_TABLES.get(db)
        if tables is None:
            tables = core_race.Tables((db.points, db.checkers, dict(db._a)))
            _CORE_TABLES[db] = tables
    return tables


def race_estimate(on_roll: Side, opponent: Side | None = None, one_sided: OneSidedDB | None = None, *,
                  db: OneSidedDB | None = None) -> RaceEstimate:
    """Estimate a no-contact race from one-sided tables (`one_sided`, default: the cached 6x15
    table of the position's game; bare counts are Fevga sides unless it is a Gioul table).
    `db=`, its old name, still works and warns: `one_sided=` as in evaluate, best_move, rollout."""
    table = renamed(one_sided, "one_sided", db, "db", "race_estimate")
    if table is None:
        table = default_one_sided(game=game_of(on_roll) or "fevga")
    if opponent is None:
        if not (hasattr(on_roll, "counts") and hasattr(on_roll, "turn")):
            raise InvalidArgumentError("give both sides, or a Position (its side on roll plays first)")
        check_position(table, on_roll)
        mine = table.counts(on_roll)
        try:
            theirs = table.counts(tuple(on_roll.counts(1 - on_roll.turn)))
        except MissingBearoffError as exc:  # name the side as a side of the position, not as bare counts
            detail = str(exc).split(" has ", 1)[-1].strip("'\"")
            raise MissingBearoffError(f"{COLOR_NAMES[1 - on_roll.turn]}'s side (not on roll) in position "
                                      f"{getattr(on_roll, 'id', on_roll)} has {detail}") from None
    else:
        mine, theirs = table.counts(on_roll), table.counts(opponent)
    _, win, win_mars, lose_mars = core_race.estimate(_core_tables(table), mine, theirs)
    return RaceEstimate(win, win_mars, lose_mars)


def estimate_matrix(one_sided: OneSidedDB, checkers: int) -> FloatArray:
    """Estimated win probability for every pair of sides with <= `checkers` on the table's points."""
    n = int(core.count(one_sided.points, checkers))
    dense = one_sided.dense_distributions()[:n]
    survival = np.cumsum(dense[:, ::-1], axis=1)[:, ::-1]
    win: FloatArray = dense @ survival.T
    return win


def estimate_error(one_sided: OneSidedDB, exact: TwoSidedDB) -> dict[str, float]:
    """Max and mean absolute error of the estimated win probability against an exact table."""
    if (one_sided.points, exact.points) != (exact.points, one_sided.points) or exact.checkers > one_sided.checkers:
        raise InvalidArgumentError(f"{one_sided!r} does not cover {exact!r}")
    require_game(exact, one_sided.game, f"compared with {one_sided!r}")
    estimate = estimate_matrix(one_sided, exact.checkers)[1:, 1:]
    truth = exact.win_matrix()[1:, 1:]
    error = np.abs(estimate - truth)
    return {
        "max_abs_error": float(error.max()),
        "mean_abs_error": float(error.mean()),
        "max_abs_equity_error": float(2.0 * error.max()) if exact.checkers < exact.total else float("nan"),
        "pairs": float(error.size),
    }


def _covered_value(
    on_roll: Sequence[int],
    opponent: Sequence[int],
    bearoff: TwoSidedDB | None,
    one_sided: OneSidedDB | None,
    game: str = "fevga",
) -> float:
    """Equity of the side on roll: exact from the two-sided table when it covers, else estimated."""
    if bearoff is not None:
        value = bearoff.get_equity(on_roll, opponent)
        if value is not None:
            return float(value)
    table = one_sided if one_sided is not None else default_one_sided(game=game)
    return race_estimate(on_roll, opponent, table).equity


def _check_race_position(position: object) -> None:
    """A Position or a GioulPosition, else InvalidArgumentError naming the argument."""
    if not isinstance(position, (Position, GioulPosition)):
        raise InvalidArgumentError(f"position {repr(position)[:80]} must be a fevga.Position or a GioulPosition")


def _game_tables(
    position: Any, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None
) -> str:
    """The position's game, after checking that the tables given are of that game
    (BearoffFileError) and, for Gioul, that the tables' assumptions hold (MissingBearoffError)."""
    _check_race_position(position)
    game = game_of(position) or "fevga"
    require_game(bearoff, game, f"for the position {position.id}")
    require_game(one_sided, game, f"for the position {position.id}")
    if game == "gioul":
        check_gioul_race(position)
    return game


def evaluate(
    position: Position | GioulPosition, *, bearoff: TwoSidedDB | None = None, one_sided: OneSidedDB | None = None
) -> float:
    """Equity of the side on roll of a no-contact bear-off position, from the tables of its game.

    A Gioul position in the middle of a chain (dice pending) is valued by playing the rest of
    the chain best, block by block, through the engine's moves: the player holding the dice
    maximises its equity over the later blocks.
    """
    game = _game_tables(position, bearoff, one_sided)
    if isinstance(position, GioulPosition) and position.pending:
        mover = position.turn
        return max(_value(move.position, mover, bearoff, one_sided, game) for move in position.legal_moves())
    me = position.counts(position.turn)
    them = position.counts(1 - position.turn)
    return _covered_value(me, them, bearoff, one_sided, game)


def _value(after: Any, me: int, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None, game: str) -> float:
    """Equity for `me` of the state after a decision (a Gioul chain's later blocks played best)."""
    winner = after.winner()
    if winner is not None:
        return float(after.points()) if winner == me else -float(after.points())
    value = evaluate(after, bearoff=bearoff, one_sided=one_sided)
    return value if after.turn == me else -value


def _no_contact(position: Position | GioulPosition) -> bool:
    """Every checker of both sides on its own points 1..12 (or off): the armies never meet again."""
    return not any(any(position.counts(color)[13:]) for color in (0, 1))


def _judges(table: Any, side: Sequence[int]) -> bool:
    try:
        side_counts(side, table.points, table.checkers)
    except MissingBearoffError:
        return False
    return True


def _choice_tables(
    position: Position | GioulPosition, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None
) -> tuple[TwoSidedDB | None, OneSidedDB | None]:
    """The table that judges the mover's choice, as the core's "bearoff" policy decides
    (fevga_core/rollout.pyx `_bearoff_choice`): the two-sided table when it covers both
    sides, else the one-sided table when it covers the mover; (None, None) when neither
    does or the armies can still meet (or, in Gioul, a side has not reached its fourth roll).
    Tables of another game than the position's raise BearoffFileError."""
    _check_race_position(position)
    game = game_of(position) or "fevga"
    require_game(bearoff, game, f"for the position {position.id}")
    require_game(one_sided, game, f"for the position {position.id}")
    if not _no_contact(position):
        return None, None
    if game == "gioul":
        try:
            check_gioul_race(position)
        except MissingBearoffError:
            return None, None
    me, them = position.counts(position.turn), position.counts(1 - position.turn)
    if bearoff is not None and _judges(bearoff, me) and _judges(bearoff, them):
        return bearoff, None
    one = one_sided if one_sided is not None else default_one_sided(game=game)
    return (None, one) if _judges(one, me) else (None, None)


def covers(
    position: Position | GioulPosition, *, bearoff: TwoSidedDB | None = None, one_sided: OneSidedDB | None = None
) -> bool:
    """True when the tables judge the mover's choice in this position (see `best_move`)."""
    two, one = _choice_tables(position, bearoff, one_sided)
    return two is not None or one is not None


def best_move(
    position: Position | GioulPosition,
    dice: Any,
    *,
    bearoff: TwoSidedDB | None = None,
    one_sided: OneSidedDB | None = None,
    rules: Any = None,
) -> Move | GioulMove:
    """The table-optimal move of a no-contact race, by the one measure the core's "bearoff"
    policy also uses: the mover's exact equity where the two-sided table covers both sides,
    else the fewest expected rolls of the mover's side (the strategy the one-sided table is
    built for, under which the race estimate is exact). The first best move wins ties.

    For a Gioul position the move is the first decision of the roll (`dice`; None for the
    pending decision of a chain), judged by playing the chain's later blocks best.

    A race beyond the tables (a checker above the one-sided table's points) is judged by the
    race estimate of the mover's expected rolls, `expected_rolls_beyond`; a position where the
    armies can still meet raises MissingBearoffError."""
    _check_race_position(position)
    moves: Sequence[Move | GioulMove] = position.legal_moves(dice, rules)
    if not covers(position, bearoff=bearoff, one_sided=one_sided):
        if game_of(position) == "gioul":
            check_gioul_race(position)
        if not _no_contact(position):
            raise MissingBearoffError(f"position {position.id} is not a race: the armies can still meet")
        return _best_beyond(position, moves, one_sided)
    return _best_of(position, moves, bearoff, one_sided)


# Mean pips of a roll (a double counts four times; in a Gioul race every double is a chain of
# four of each number from it up to six, docs/rules.md 11.3): 294/36 and 574/36.
PIPS_PER_ROLL = {"fevga": 294 / 36, "gioul": 574 / 36}


def expected_rolls_beyond(side: Sequence[int], one: OneSidedDB, game: str = "fevga") -> float:
    """The race estimate of a side's expected rolls to bear off when it has checkers above the
    one-sided table's points (25 own-numbering counts): the table's expected rolls with those
    checkers brought to its top point P, plus the pips that costs over the mean pips of a roll
    (an effective pip count). Exact for sides the table covers."""
    counts = list(side[1:])
    top = one.points
    outside = sum((point - top) * count for point, count in enumerate(counts[top:], top + 1))
    inside = counts[:top]
    inside[top - 1] += sum(counts[top:])
    return float(one.mean_rolls(inside)) + outside / PIPS_PER_ROLL[game]


def _best_beyond(position: Any, moves: Sequence[M], one_sided: OneSidedDB | None) -> M:
    """best_move in a race beyond the tables: the fewest estimated rolls (`expected_rolls_beyond`),
    a finished game first; the first best move wins ties."""
    game = game_of(position) or "fevga"
    one = one_sided if one_sided is not None else default_one_sided(game=game)
    mover = position.turn

    def rolls(move: Any) -> float:
        after = move.position
        if after.winner() == mover:
            return 0.0
        if getattr(after, "pending", ()) and after.turn == mover:
            return min(rolls(m) for m in after.legal_moves())
        return expected_rolls_beyond(after.counts(mover), one, game)

    values = [rolls(m) for m in moves]
    return moves[values.index(min(values))]


def _measure(after: Any, mover: int, two: TwoSidedDB | None, one: OneSidedDB | None) -> float:
    """How good `after` is for `mover` by the choosing table's measure; a Gioul state with the
    mover's later chain blocks pending is worth its best continuation (a race never hands
    dice over, docs/rules.md 11.7)."""
    if two is not None and after.winner() is not None:
        return float(after.points()) if after.winner() == mover else -float(after.points())
    if getattr(after, "pending", ()) and after.turn == mover:
        return max(_measure(move.position, mover, two, one) for move in after.legal_moves())
    if two is not None:
        value = two.equity(after.counts(after.turn), after.counts(1 - after.turn))
        return value if after.turn == mover else -value
    assert one is not None  # covers() held
    return -one.mean_rolls(after.counts(mover))


M = TypeVar("M")


def _best_of(position: Any, moves: Sequence[M], bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None) -> M:
    two, one = _choice_tables(position, bearoff, one_sided)
    mover = position.turn
    best: M | None = None
    best_value = -np.inf
    for move in moves:
        value = _measure(move.position, mover, two, one)  # type: ignore[attr-defined]
        if value > best_value:
            best, best_value = move, value
    assert best is not None  # legal_moves always holds at least the pass
    return best


class BearoffPolicy:
    """A game policy ``policy(position, dice, moves) -> Move``: table-optimal whenever covered.

    Uncovered positions go to `fallback` (a policy callable), or a seeded random choice.
    """

    def __init__(
        self,
        *,
        bearoff: TwoSidedDB | None = None,
        one_sided: OneSidedDB | None = None,
        fallback: Callable[[Position, tuple[int, int], Sequence[Move]], Move] | None = None,
        seed: int = 0,
    ) -> None:
        self.bearoff = bearoff
        self.one_sided = one_sided
        self.fallback = fallback
        self._random = random.Random(seed)

    def __call__(self, position: Position, dice: tuple[int, int], moves: Sequence[Move]) -> Move:
        if covers(position, bearoff=self.bearoff, one_sided=self.one_sided):
            return _best_of(position, moves, self.bearoff, self.one_sided)
        if self.fallback is not None:
            return self.fallback(position, dice, moves)
        return self._random.choice(moves)
