"""Evaluation and move choice over the net, for both games (see search.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fevga_core.gioul import CoreGioul, CoreGioulNet
from fevga_core.net import CoreNet, NetModel
from fevga_core.position import CorePosition
from fevga_core.race import Tables

PLIES_LIMIT: int
FILTER_MARGIN: float
FILTER_KEEP: int
GIOUL_MAX_PLIES: int

def evaluate_position(net: NetModel, tables: Tables, position: CorePosition | CoreGioul, plies: int,
                      flags: int) -> tuple[float, float, float]:
    """(win, win_mars, lose_mars) of a Fevga position (a CoreNet) or a Gioul state (a
    CoreGioulNet, flags FLAG_GIOUL) for its side to decide at `plies` plies."""

def evaluate_rows(net: NetModel, tables: Tables, rows: NDArray[np.uint8], out: NDArray[np.float64],
                  flags: int = 0) -> None:
    """0-ply values (table override included) of every row into out (n, 3); FLAG_GIOUL: Gioul state rows."""

def roll_values(net: CoreGioulNet, tables: Tables, position: CoreGioul) -> tuple[list[float], float]:
    """Each roll's equity for the side to roll of a Gioul state once played out by the 1-ply
    choice, and their mean (the luck)."""

def choose_rows(net: CoreNet, tables: Tables, rows: NDArray[np.uint8], dice: NDArray[np.uint8], plies: int,
                flags: int, out: NDArray[np.int32]) -> int:
    """The move index `plies`-ply search picks for each row and roll; returns the moves seen."""

def rank_position(net: NetModel, tables: Tables, position: CorePosition | CoreGioul, d1: int, d2: int, plies: int,
                  flags: int, move_cls: type, every_move: bool = False
                  ) -> tuple[Sequence[Any], NDArray[np.float64], NDArray[np.int8]]:
    """Every legal move of the next decision of either game's position, generated once: its
    legal-move sequence, values (n, 3) for the mover and plies used (n,), in the generator's order
    (`every_move`: every move searched at 2 plies, not only the move filter's, and at
    `plies` >= 3 the best few of those 2-ply values searched at `plies`)."""

def rank_batch(net: NetModel, tables: Tables, rows: NDArray[np.uint8], dice: NDArray[np.uint8], plies: int,
               flags: int, every_move: bool = False
               ) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8],
                          NDArray[np.float64], NDArray[np.int8]]:
    """Every legal move of each pair ranked, generated once: (offsets, results, steps, nsteps,
    values (m, 3), plies used (m,)), in the generator's order (`every_move` as rank_position)."""
