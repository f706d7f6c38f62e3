"""Batch move generation over NumPy arrays: validated once, then run with the GIL released.

Array layout (one row per position, ``uint8``, 51 columns, C order):

====== =====================================================================
column meaning
====== =====================================================================
0-24   White's counts in White's own numbering (column 0 = borne off)
25-49  Black's counts in Black's own numbering (column 25 = borne off)
50     side on roll: 0 = White, 1 = Black
====== =====================================================================

Dice are a ``uint8`` array of shape ``(n, 2)``, values 1-6. Positions come from
`to_array`; results of `legal_moves` use the same layout. One call takes at most
`fevga.limits.MAX_BATCH_ROWS` rows and `fevga.limits.MAX_WORKERS` worker threads; Ctrl-C stops it.

>>> import numpy as np
>>> rows = to_array([Position.initial()] * 2)
>>> count_legal_moves(rows, np.array([[6, 5], [5, 5]], dtype=np.uint8)).tolist()
[1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from fevga.checks import check_workers, row_array, validate_dice
from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.limits import MAX_BATCH_ROWS, bounded
from fevga.net import Net, net_of
from fevga.parallel import run_chunks
from fevga.position import Position
from fevga.rules import Rules, rules_of
from fevga_core import constants, movegen, search
from fevga_core.board import first_invalid_row
from fevga.bearoff.core_tables import tables_of

POSITION_WIDTH = constants.POSITION_WIDTH
_ROW_PROBLEMS = {
    1: f"does not hold {constants.NUM_CHECKERS} checkers per side",
    2: "has a turn other than 0 or 1",
    3: "has a point held by both colours",
    4: "has both sides borne off",
}


def to_array(positions: Iterable[Position]) -> NDArray[np.uint8]:
    """Stack positions into the (n, 51) layout (at most MAX_BATCH_ROWS of them)."""
    items = bounded(positions, "positions", MAX_BATCH_ROWS)
    for i, p in enumerate(items):
        if not isinstance(p, Position):
            raise InvalidArgumentError(f"positions[{i}] = {repr(p)[:80]} is not a fevga.Position")
    rows = [p._row() for p in items]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), POSITION_WIDTH).copy()


def from_array(rows: NDArray[np.uint8]) -> list[Position]:
    """Positions of an (n, 51) array (validated)."""
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


def _finished_rows(positions: NDArray[np.uint8]) -> NDArray[np.intp]:
    off = constants.NUM_CHECKERS
    return np.flatnonzero((positions[:, 0] == off) | (positions[:, constants.NUM_POINTS + 1] == off))


def count_legal_moves(positions: object, dice: object, rules: Rules | None = None, workers: int = 1) -> NDArray[np.int32]:
    """Number of distinct legal moves of each (position, dice) row; 0 for finished games.

    `workers` > 1 splits the rows across threads (the core releases the GIL).
    """
    workers = check_workers(workers)
    rows = validate_positions(positions)
    rolls = validate_dice(dice, rows.shape[0])
    flags = rules_of(rules).flags
    out = np.zeros(rows.shape[0], dtype=np.int32)
    run_chunks(rows.shape[0], workers, lambda a, b: movegen.count_moves(rows[a:b], rolls[a:b], flags, out[a:b]))
    out[_finished_rows(rows)] = 0
    return out


@dataclass(frozen=True)
class BatchMoves:
    """All legal moves of many (position, dice) pairs; pair i owns rows offsets[i]:offsets[i+1].

    ``results``: (m, 51) resulting positions (opponent on roll); ``steps``: (m, 4, 2) the
    (from, to) steps of each move, unused entries 0; ``nsteps``: (m,) steps used (0 = pass).
    """

    offsets: NDArray[np.int64]
    results: NDArray[np.uint8]
    steps: NDArray[np.uint8]
    nsteps: NDArray[np.uint8]

    def counts(self) -> NDArray[np.int64]:
        """Number of legal moves of each pair."""
        return np.diff(self.offsets)


def evaluate(positions: object, net: Net | str | None = None, workers: int = 1) -> NDArray[np.float64]:
    """0-ply evaluations (win, win_mars, lose_mars) for the side on roll of each row, shape
    (n, 3): the net, overridden by the exact bear-off tables and by finished games, as
    `fevga.evaluate(position)` computes one at a time.

    >>> evaluate(to_array([Position.initial()])).shape
    (1, 3)
    """
    count = check_workers(workers)
    rows = validate_positions(positions)
    core = net_of(net)._core
    tables = tables_of("default")
    out = np.empty((len(rows), 3), dtype=np.float64)
    run_chunks(len(rows), count, lambda a, b: search.evaluate_rows(core, tables, rows[a:b], out[a:b]))
    return out


def legal_moves(positions: object, dice: object, rules: Rules | None = None) -> BatchMoves:
    """Every legal move of each (position, dice) row, as flat arrays (no moves for finished games)."""
    rows = validate_positions(positions)
    rolls = validate_dice(dice, rows.shape[0])
    finished = _finished_rows(rows)
    if finished.size:
        live = np.ones(rows.shape[0], dtype=bool)
        live[finished] = False
        sub = legal_moves(rows[live], rolls[live], rules)
        counts = np.zeros(rows.shape[0], dtype=np.int64)
        counts[live] = sub.counts()
        return BatchMoves(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), sub.results, sub.steps, sub.nsteps)
    try:
        offsets, results, steps, nsteps = movegen.generate_batch(rows, rolls, rules_of(rules).flags)
    except MemoryError:  # the output grows with the moves, not only the rows: say what to do
        raise InvalidArgumentError(f"the legal moves of {rows.shape[0]} rows do not fit in memory: split the "
                                   "batch") from None
    return BatchMoves(offsets, results, steps, nsteps)
