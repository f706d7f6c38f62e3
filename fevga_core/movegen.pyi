"""Legal-move generation over NumPy arrays (rows trusted: fevga.batch validates)."""

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

class MoveList(Sequence[Any]):
    """The legal moves of one request, read-only; each Move is made when first asked for."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...

def count_moves(
    positions: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int, out_counts: NDArray[np.int32]
) -> None:
    """Number of distinct legal moves of each (position row, dice row) pair, GIL released."""

class BatchHook:
    """What generate_batch calls after each pair's moves (a core subclass overrides it)."""

def generate_batch(
    positions: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int, hook: BatchHook | None = None
) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """All legal moves of each pair: (offsets, results, steps, nsteps)."""

def steps_notation(steps: Sequence[tuple[int, int]]) -> str:
    """Short notation of a step sequence (fevga.notation.format_steps): ``24/13``, ``6/off(2)``, ``pass``."""
