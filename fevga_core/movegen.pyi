"""Legal-move generation over NumPy arrays (rows trusted: fevga.batch validates)."""

import numpy as np
from numpy.typing import NDArray

def count_moves(
    positions: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int, out_counts: NDArray[np.int32]
) -> None:
    """Number of distinct legal moves of each (position row, dice row) pair, GIL released."""

def generate_batch(
    positions: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int
) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """All legal moves of each pair: (offsets, results, steps, nsteps)."""
