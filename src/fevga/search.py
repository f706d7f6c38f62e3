"""Exhaustive search: expectimax over the 21 rolls, lookahead policies over any evaluator, and
the static evaluator that rollouts use for luck.

>>> from fevga import Position
>>> round(expectimax(Position.initial(), plies=1), 4)  # White's equity over its 21 first rolls
0.0563
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Union

import numpy as np

from fevga.bearoff.core_tables import tables_of, tables_spec
from fevga.checks import check_int, check_position, renamed
from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.gioul import GioulPosition
from fevga.net import Net, net_of
from fevga.policy import HEURISTIC_SCALE, Policy, PolicyFn
from fevga.position import Move, Position
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike
from fevga_core import rollout as core
from fevga_core.search import GIOUL_MAX_PLIES, evaluate_position
from fevga_core.board import ROLL_WEIGHTS, ROLLS
from fevga_core.race import Tables
from fevga.rollout import rollout

if TYPE_CHECKING:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

__all__ = ["HEURISTIC_SCALE", "MAX_DEPTH", "expectimax", "lookahead", "static_value"]

Evaluator = Union[str, Callable[[Position], float]]

MAX_DEPTH: int = core.MAX_EXPECTIMAX_DEPTH  # deepest expectimax, whatever the evaluator (a callable one too)


def static_value(position: Position, evaluator: str = "heuristic", *, bearoff: TwoSidedDB | None = None,
             one_sided: OneSidedDB | None = None) -> float:
    """The static evaluator's equity for the side on roll: tanh(heuristic / 100), or the
    bear-off tables' value of a covered race with ``evaluator="bearoff"``."""
    tables = _evaluator_tables(evaluator, bearoff, one_sided)
    return float(core.value(check_position(position, finished=True)._row(), position.turn, tables, HEURISTIC_SCALE))


def _evaluator_tables(evaluator: str, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None) -> Tables:
    if not isinstance(evaluator, str):
        raise InvalidArgumentError(f"evaluator {repr(evaluator)[:80]} must be 'heuristic' or 'bearoff' here")
    if evaluator == "heuristic":
        return tables_of(None)
    if evaluator == "bearoff":
        spec = tables_spec(bearoff, one_sided)
        return tables_of(spec)
    raise InvalidArgumentError(f"evaluator {evaluator!r} must be 'heuristic', 'bearoff', 'net', 'rollout' or a callable")


def _final_points(position: Position, side: int) -> float | None:
    """The points of a finished game for `side` (positive if it won), or None while the game
    is in play (or drawn: no winner)."""
    winner = position.winner()
    if winner is None:
        return None
    return float(position.points()) * (1.0 if winner == side else -1.0)


def lookahead(evaluator: Callable[[Position], float], rules: Rules | None = None) -> PolicyFn:
    """A 1-ply lookahead policy over any evaluator (equity of a position's side on roll):
    each move is worth the average over the opponent's 21 rolls of its best reply by
    `evaluator`. A Python policy (slow path); ``policy="lookahead"`` is the built-in one."""
    rules = rules_of(rules)

    def value_for_mover(after: Position) -> float:
        final = _final_points(after, 1 - after.turn)
        if final is not None:
            return final
        total = 0.0
        for (a, b), weight in zip(ROLLS, ROLL_WEIGHTS):
            replies = after.legal_moves((a, b), rules)
            best_reply = max(_value_after(r.position, evaluator) for r in replies)
            total += weight * -best_reply
        return total

    def policy(position: Position, dice: tuple[int, int], moves: Sequence[Move]) -> Move:
        return max(moves, key=lambda m: value_for_mover(m.position))

    policy.__name__ = f"lookahead({getattr(evaluator, '__name__', 'evaluator')})"
    return policy


def _value_after(position: Position, evaluator: Callable[[Position], float]) -> float:
    """Value of a move's result for the player who just moved."""
    final = _final_points(position, 1 - position.turn)
    if final is not None:
        return final
    return -leaf_value(evaluator, position)


def leaf_value(evaluator: Callable[[Position], float], position: Position) -> float:
    """A callable evaluator's equity of `position`, checked: a finite real number (what it
    raises itself, it raises; anything else it returns is an InvalidArgumentError, never a
    NaN or infinite search value or a raw TypeError)."""
    value = evaluator(position)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or (isinstance(value, numbers.Integral) and abs(int(value)) > 2**53) or not math.isfinite(value):
        raise InvalidArgumentError(f"evaluator {getattr(evaluator, '__name__', 'callable')} returned "
                                   f"{repr(value)[:60]} for position {position.id}: an equity must be a finite number")
    return float(value)


def _gioul_expectimax(state: GioulPosition, plies: int, evaluator: Evaluator, rules: Rules | None,
                      bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None,
                      net: Net | str | os.PathLike[str] | None) -> float:
    """expectimax of a Gioul state: the equity of the core's search of it (evaluate_position)."""
    rules = rules_of(rules, "gioul")
    if not isinstance(evaluator, str) or evaluator != "net":
        raise InvalidArgumentError(f"evaluator {repr(evaluator)[:80]}: a Gioul state is searched with 'net' only")
    if state.winner() is not None:
        raise InvalidPositionError(f"Gioul state {state.id} is already finished")
    depth = check_int("expectimax plies", plies, 0, int(GIOUL_MAX_PLIES))
    tables = tables_of(tables_spec(bearoff, one_sided, "gioul"))
    win, win_mars, lose_mars = evaluate_position(net_of(net, "gioul")._core, tables, state, depth, rules.flags)
    return 2.0 * win - 1.0 + win_mars - lose_mars


def expectimax(
    position: Position | GioulPosition,
    plies: int = 1,
    evaluator: Evaluator = "heuristic",
    *,
    rules: Rules | None = None,
    bearoff: TwoSidedDB | None = None,
    one_sided: OneSidedDB | None = None,
    games: int = 1296,
    seed: SeedLike = 0,
    workers: int | None = None,
    policy: Policy | None = None,
    net: Net | str | os.PathLike[str] | None = None,
    depth: int | None = None,
) -> float:
    """Exact expected equity of the side on roll over all 21 rolls, `plies` plies deep
    (`depth=`, its old name, still works and warns: `plies=` as in evaluate and hint).

    Each ply takes the mover's best move (by the value below it); leaves are scored by
    `evaluator`: "heuristic" (tanh of the heuristic), "bearoff" (exact tables in covered
    races, heuristic elsewhere), "net" (the net's equity, `net` or the shipped one, exact
    tables in covered races), a callable ``evaluator(position) -> equity of its side on
    roll``, or "rollout": exhaustive first plies, Monte Carlo after (each leaf rolled out
    `games` times with `policy`, by default the rollouts' default (the net, `net` or the
    shipped one), and the same seed). Finished games score their points and
    dead positions 0 at any depth.

    A `GioulPosition` is searched with `evaluator="net"` (`net`, a Gioul net; the Gioul
    tables, `bearoff` / `one_sided` or the Gioul defaults, exact in covered races) to
    `plies` 0..2 for its side to decide, by the core's Gioul search (docs/net.md "Gioul
    net"): over the 21 rolls with chains and hand-overs followed through, the candidates
    filtered as the "net2" policy does; a decision in hand is always searched
    (`fevga.evaluate` of the same state and plies).
    """
    if isinstance(position, GioulPosition):
        return _gioul_expectimax(position, renamed(plies, "plies", depth, "depth", "expectimax"), evaluator, rules,
                                 bearoff, one_sided, net)
    start = check_position(position)
    depth = check_int("expectimax plies", renamed(plies, "plies", depth, "depth", "expectimax"), 0, MAX_DEPTH)
    rules = rules_of(rules)
    if not (isinstance(evaluator, str) or callable(evaluator)):  # compared as text below, never as an array
        raise InvalidArgumentError(f"evaluator {repr(evaluator)[:80]} must be 'heuristic', 'bearoff', 'net', "
                                   "'rollout' or a callable")
    if evaluator == "net":
        tables = tables_of(tables_spec(bearoff, one_sided))
        return float(core.expectimax_value(start._row(), depth, rules.flags, tables, HEURISTIC_SCALE, net_of(net)._core))
    if isinstance(evaluator, str) and evaluator != "rollout":
        tables = _evaluator_tables(evaluator, bearoff, one_sided)
        return float(core.expectimax_value(start._row(), depth, rules.flags, tables, HEURISTIC_SCALE))
    leaf: Callable[[Position], float]
    if isinstance(evaluator, str):  # "rollout": the other names returned above

        def leaf(p: Position) -> float:
            result = rollout(p, games=games, seed=seed, workers=workers, policy=policy, rules=rules,
                             bearoff=bearoff, one_sided=one_sided, progress=False, net=net)
            if result.interrupted:  # Ctrl-C stops the search: a partial leaf is no value
                raise KeyboardInterrupt
            return result.equity
    elif callable(evaluator):
        def leaf(p: Position) -> float:
            return leaf_value(evaluator, p)
    else:
        raise InvalidArgumentError(f"evaluator {evaluator!r} must be 'heuristic', 'bearoff', 'net', 'rollout' or a callable")

    def row_leaf(row: bytes) -> float:
        return float(leaf(Position._from_row(row)))

    # the core's search over the 21 rolls, calling back into Python at the leaves only
    return float(core.expectimax_value(start._row(), depth, rules.flags, tables_of(None), HEURISTIC_SCALE, None,
                                       row_leaf))
