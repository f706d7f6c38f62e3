"""Batch move generation over NumPy arrays: validated once, then run with the GIL released.

Array layout (one row per position, ``uint8``, 51 columns, C order):

====== =====================================================================
column meaning
====== =====================================================================
0-24   White's counts in White's own numbering (column 0 = borne off)
25-49  Black's counts in Black's own numbering (column 25 = borne off)
50     side on roll: 0 = White, 1 = Black
====== =====================================================================

Gioul states are rows of 58 columns (`fevga.gioul.to_array`: the same 51, then the roll
counts made and the pending dice); the width tells the game, and every function here takes
either (a Gioul pair's moves are those of its next decision; the dice of a state with dice
pending are ignored; `hint` ranks them by the Gioul net at 1..2 plies).

Dice are a ``uint8`` array of shape ``(n, 2)``, values 1-6. Positions come from
`to_array`; results of `legal_moves` use the same layout. One call takes at most
`fevga.limits.MAX_BATCH_ROWS` rows and `fevga.limits.MAX_WORKERS` worker threads; Ctrl-C stops it.

>>> import numpy as np
>>> rows = to_array([Position.initial()] * 2)
>>> count_legal_moves(rows, np.array([[6, 5], [5, 5]], dtype=np.uint8)).tolist()
[1, 2]
>>> count_legal_moves(to_array([GioulPosition.initial()] * 2), [[6, 5], [5, 5]]).tolist()
[2, 5]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from fevga.checks import check_workers, row_array, validate_dice
from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.limits import MAX_BATCH_ROWS, bounded
from fevga.analysis import core_judge, deepest_plies, every_move_of
from fevga.net import Net
from fevga.parallel import CHUNK_ROWS, run_chunks
from fevga import gioul
from fevga.gioul import GioulPosition
from fevga.position import Position
from fevga.rules import Rules, rules_of
from fevga_core import constants, search, state
from fevga_core.board import first_invalid_row

POSITION_WIDTH = constants.POSITION_WIDTH
_ROW_PROBLEMS = {
    1: f"does not hold {constants.NUM_CHECKERS} checkers per side",
    2: "has a turn other than 0 or 1",
    3: "has a point held by both colours",
    4: "has both sides borne off",
}


def to_array(positions: Iterable[Position] | Iterable[GioulPosition]) -> NDArray[np.uint8]:
    """Stack positions into the (n, 51) layout, or Gioul states into the (n, 58) state layout
    (`fevga.gioul.to_array`); at most MAX_BATCH_ROWS of them, all of one game."""
    items: list[Any] = bounded(positions, "positions", MAX_BATCH_ROWS)
    if items and isinstance(items[0], GioulPosition):
        return gioul.to_array(items)
    for i, p in enumerate(items):
        if not isinstance(p, Position):
            raise InvalidArgumentError(f"positions[{i}] = {repr(p)[:80]} is not a fevga.Position")
    rows = [p._row() for p in items]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), POSITION_WIDTH).copy()


def from_array(rows: NDArray[np.uint8]) -> list[Position] | list[GioulPosition]:
    """Positions of an (n, 51) array, or Gioul states of an (n, 58) one (validated)."""
    if _is_gioul(rows):
        return gioul.from_array(rows)
    checked = validate_positions(rows)
    return [Position._from_row(bytes(row)) for row in checked]


def validate_positions(rows: object) -> NDArray[np.uint8]:
    """The (n, 51) C-contiguous uint8 array of `rows`, or InvalidPositionError naming the bad row."""
    array = row_array(rows, "positions", POSITION_WIDTH, constants.NUM_CHECKERS,
                      f"position arrays hold counts 0-{constants.NUM_CHECKERS} and a turn of 0 or 1")
    index, code = first_invalid_row(array)
    if index >= 0:
        raise InvalidPositionError(f"position row {index} {_ROW_PROBLEMS[code]}: {array[index].tolist()}")
    return array


def _is_gioul(rows: object) -> bool:
    """Whether `rows` are Gioul state rows: 58 columns (a Fevga row has 51)."""
    try:
        shape = np.shape(rows) if isinstance(rows, (np.ndarray, list, tuple)) else ()
    except ValueError:  # ragged nested lists: validate_positions says what is wrong
        return False
    return len(shape) == 2 and shape[1] == gioul.GIOUL_WIDTH


def _game_rows(positions: object, rules: Rules | None) -> tuple[Rules, NDArray[np.uint8]]:
    """The rules and the validated rows of either game's batch: Gioul state rows (58 columns)
    or Fevga's (51); `rules` must be that game's (InvalidRulesError)."""
    if isinstance(positions, Sequence) and positions and isinstance(positions[0], (Position, GioulPosition)):
        positions = to_array(positions)
    if _is_gioul(positions):
        return rules_of(rules, "gioul"), gioul.validate_states(positions)
    return rules_of(rules), validate_positions(positions)


def count_legal_moves(positions: object, dice: object, rules: Rules | None = None, workers: int = 1) -> NDArray[np.int32]:
    """Number of distinct legal moves of each (position, dice) row; 0 for finished games.

    `workers` > 1 splits the rows across threads (the core releases the GIL).
    """
    workers = check_workers(workers)
    rules, rows = _game_rows(positions, rules)
    rolls = validate_dice(dice, rows.shape[0])
    flags = rules.flags
    out = np.zeros(rows.shape[0], dtype=np.int32)
    run_chunks(rows.shape[0], workers, lambda a, b: state.count_moves(rows[a:b], rolls[a:b], flags, out[a:b]))
    return out


B = TypeVar("B", bound="BatchMoves")


@dataclass(frozen=True)
class BatchMoves:
    """All legal moves of many (position, dice) pairs; pair i owns rows offsets[i]:offsets[i+1].

    ``results``: (m, 51) resulting positions (opponent on roll), or for Gioul rows (m, 58) the
    states after each move (the next decision's holder on turn); ``steps``: (m, 4, 2) the
    (from, to) steps of each move, unused entries 0; ``nsteps``: (m,) steps used (0 = pass).
    """

    offsets: NDArray[np.int64]
    results: NDArray[np.uint8]
    steps: NDArray[np.uint8]
    nsteps: NDArray[np.uint8]

    def counts(self) -> NDArray[np.int64]:
        """Number of legal moves of each pair."""
        return np.diff(self.offsets)

    def positions(self, pair: int) -> list[Position] | list[GioulPosition]:
        """The positions (Gioul: states) after each legal move of pair `pair`."""
        return from_array(self.results[self.offsets[pair]:self.offsets[pair + 1]])

    @classmethod
    def join(cls: type[B], parts: Sequence[B]) -> B:
        """The results of consecutive runs of pairs as one (at least one part)."""
        if not parts:
            raise InvalidArgumentError(f"{cls.__name__}.join needs at least one part")
        return cls(*_join([tuple(getattr(part, f.name) for f in fields(part)) for part in parts]))


def evaluate(positions: object, net: Net | str | None = None, workers: int = 1) -> NDArray[np.float64]:
    """0-ply evaluations (win, win_mars, lose_mars) for the side on roll of each row, shape
    (n, 3): the net, overridden by the exact bear-off tables and by finished games, as
    `fevga.evaluate(position)` computes one at a time. Gioul state rows are valued by the
    Gioul net (`net`, default the shipped one) for the side to decide, as
    `fevga.evaluate(state)` values them (a decision in hand searched at 1 ply).

    >>> evaluate(to_array([Position.initial()])).shape
    (1, 3)
    """
    count = check_workers(workers)
    rules, rows = _game_rows(positions, None)
    out = np.empty((len(rows), 3), dtype=np.float64)
    core, tables = core_judge(rules.game, net)
    # a Gioul decision in hand is searched at 1 ply: chunks as small as a 1-ply hint's
    chunk = _HINT_CHUNK_ROWS[1] if rules.game == "gioul" else CHUNK_ROWS
    run_chunks(len(rows), count, lambda a, b: search.evaluate_rows(core, tables, rows[a:b], out[a:b], rules.flags),
               chunk)
    return out


def legal_moves(positions: object, dice: object, rules: Rules | None = None, workers: int = 1) -> BatchMoves:
    """Every legal move of each (position, dice) row, as flat arrays (no moves for finished games).

    >>> legal_moves(to_array([Position.initial()]), np.array([[5, 5]], dtype=np.uint8)).counts().tolist()
    [2]
    """
    rules, rows = _game_rows(positions, rules)
    rolls = validate_dice(dice, rows.shape[0])
    flags = rules.flags
    offsets, results, steps, nsteps = _flat_moves(rows, rolls, check_workers(workers),
                                                  lambda r, d: state.generate_batch(r, d, flags))
    return BatchMoves(offsets, results, steps, nsteps)


@dataclass(frozen=True)
class BatchHints(BatchMoves):
    """Every legal move of many (position, dice) pairs ranked as `fevga.hint` ranks them: pair
    i's moves are rows offsets[i]:offsets[i+1], best first.

    ``values``: (m, 3) float64 (win, win_mars, lose_mars) for the mover after each move;
    ``equities``: (m,) float64, 2 win - 1 + win_mars - lose_mars; ``plies``: (m,) int8, the
    plies each value was searched at (the moves a deeper search kept come first).
    """

    values: NDArray[np.float64]
    equities: NDArray[np.float64]
    plies: NDArray[np.int8]

    def best(self) -> NDArray[np.int64]:
        """Flat index of each pair's best move, -1 for a finished game (no moves)."""
        return np.where(self.counts() > 0, self.offsets[:-1], -1)


def hint(positions: object, dice: object, plies: int = 1, rules: Rules | None = None, *,
         net: Net | str | None = None, workers: int = 1, every_move: bool | None = None) -> BatchHints:
    """`fevga.hint` of each (position, dice) row (money play), as flat arrays: the same moves,
    values and order, the moves generated once and ranked in the core with the GIL released.
    Rows of either game: Fevga positions (plies 1..PLIES_LIMIT + 1), or Gioul states (their
    next decision's moves, plies 1..GIOUL_MAX_PLIES + 1, the Gioul net). `every_move` as
    `fevga.hint` takes it: every move of a row searched at 2 plies, not only the filter's (None:
    the game's default, every move in Gioul).

    >>> hints = hint(to_array([Position.initial()]), np.array([[1, 1]], dtype=np.uint8))
    >>> hints.counts().tolist(), hints.nsteps[hints.best()].tolist()
    ([1], [4])
    """
    rules, rows = _game_rows(positions, rules)
    deepest = deepest_plies(rules.game, True)
    if not isinstance(plies, int) or isinstance(plies, bool) or not 1 <= plies <= deepest:
        raise InvalidArgumentError(f"plies={plies!r} must be an integer from 1 to {deepest} ({rules.game})")
    every_move = every_move_of(rules.game, every_move)
    rolls = validate_dice(dice, rows.shape[0])
    flags = rules.flags
    core, tables = core_judge(rules.game, net)
    offsets, results, steps, nsteps, values, used = _flat_moves(
        rows, rolls, check_workers(workers),
        lambda r, d: search.rank_batch(core, tables, r, d, plies, flags, every_move),
        1 if every_move and plies > 1 else _HINT_CHUNK_ROWS.get(plies, 1))
    equities = 2.0 * values[:, 0] - 1.0 + values[:, 1] - values[:, 2]  # Evaluation.equity, term by term
    pair = np.repeat(np.arange(rows.shape[0]), np.diff(offsets))
    # as fevga.hint orders one pair: deeper evaluations first, then by equity, then generator order
    order = np.lexsort((np.arange(pair.size), -equities, -used, pair))
    return BatchHints(offsets, results[order], steps[order], nsteps[order], values[order], equities[order],
                      used[order])


FlatMoves = tuple[NDArray[Any], ...]
# rows a thread ranks at a time: about 10-50 ms of work (a 1-ply hint of a mid-game pair takes
# ~20 us, each ply deeper 10-50 times that), so Ctrl-C waits for little (parallel.run_chunks)
_HINT_CHUNK_ROWS = {1: 1024, 2: 64, 3: 2, 4: 1}


def _flat_moves(rows: NDArray[np.uint8], rolls: NDArray[np.uint8], workers: int,
                kernel: Callable[[NDArray[np.uint8], NDArray[np.uint8]], FlatMoves], chunk: int = CHUNK_ROWS) -> FlatMoves:
    """`kernel`'s (offsets, per-move arrays ...) of the rows (a finished game has no moves), split
    over `workers` threads and joined."""
    parts: dict[int, FlatMoves] = {}

    def work(start: int, stop: int) -> None:
        parts[start] = kernel(rows[start:stop], rolls[start:stop])

    try:
        run_chunks(rows.shape[0], workers, work, chunk)
    except MemoryError:  # the output grows with the moves, not only the rows: say what to do
        raise InvalidArgumentError(f"the legal moves of {rows.shape[0]} rows do not fit in memory: split the "
                                   "batch") from None
    return _join([parts[start] for start in sorted(parts)] or [kernel(rows[:0], rolls[:0])])


def _join(parts: Sequence[FlatMoves]) -> FlatMoves:
    """The flat move arrays of consecutive runs of pairs as one."""
    counts = np.concatenate([np.diff(part[0]) for part in parts])
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return (offsets, *(np.concatenate([part[k] for part in parts]) for k in range(1, len(parts[0]))))
