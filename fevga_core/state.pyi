"""A game state of either game, its rows and the batch kernels over them (see state.pyx)."""

import numpy as np
from numpy.typing import NDArray

def count_moves(rows: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int, out_counts: NDArray[np.int32]) -> None:
    """Legal moves of the next decision of each (row, dice) pair into out_counts; FLAG_GIOUL: Gioul state rows."""

class BatchHook:
    """What generate_batch calls after each pair's moves (a core subclass overrides it)."""

def generate_batch(
    rows: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int, hook: BatchHook | None = None
) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """All legal moves of the next decision of each pair: (offsets, results, steps, nsteps)."""
