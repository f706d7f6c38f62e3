"""Zobrist hashing and the flat 51-byte row layout of positions."""

ZOBRIST_SEED: int
ROLLS: tuple[tuple[int, int], ...]
"""The 21 distinct rolls (d1, d2), d1 <= d2, in the core's one order: 1-1, 1-2, ..., 6-6."""
ROLL_WEIGHTS: tuple[float, ...]
"""The probability of each roll of ROLLS: 1/36 for a double, 2/36 otherwise."""

def zobrist_entry(color: int, slot: int, count: int) -> int:
    """One entry of the Zobrist table (for tests and documentation)."""

def zobrist_turn_key() -> int:
    """The key toggled when Black is on roll."""

from numpy.typing import NDArray
import numpy as np

def first_invalid_row(rows: NDArray[np.uint8]) -> tuple[int, int]:
    """(index, code) of the first invalid row (1 counts, 2 turn, 3 shared point, 4 both off), or (-1, 0)."""
