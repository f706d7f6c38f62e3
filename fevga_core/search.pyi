"""Evaluation and move choice over the net (see search.pyx)."""

import numpy as np
from numpy.typing import NDArray

from fevga_core.net import CoreNet
from fevga_core.race import Tables

PLIES_LIMIT: int
FILTER_MARGIN: float
FILTER_KEEP: int

def evaluate_row(net: CoreNet, tables: Tables, row: bytes, plies: int, flags: int) -> tuple[float, float, float]:
    """(win, win_mars, lose_mars) of a row for its side on roll at `plies` plies."""

def evaluate_rows(net: CoreNet, tables: Tables, rows: NDArray[np.uint8], out: NDArray[np.float64]) -> None:
    """0-ply values (table override included) of every row into out (n, 3)."""

def choose_rows(net: CoreNet, tables: Tables, rows: NDArray[np.uint8], dice: NDArray[np.uint8], plies: int,
                flags: int, out: NDArray[np.int32]) -> int:
    """The move index `plies`-ply search picks for each row and roll; returns the moves seen."""

def rank_row(net: CoreNet, tables: Tables, row: bytes, d1: int, d2: int, plies: int,
             flags: int) -> tuple[NDArray[np.uint8], NDArray[np.float64], NDArray[np.int8]]:
    """Every legal move's result row, value for the mover and plies used."""
