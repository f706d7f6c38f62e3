"""Argument checks of the public API: each value is validated once, at the boundary, with an
error that names it; the core then trusts it."""

from __future__ import annotations

import warnings
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from fevga.errors import InvalidArgumentError, InvalidDiceError, InvalidPositionError
import os

from fevga.limits import MAX_BATCH_ROWS, MAX_WORKERS, as_array, check_int
from fevga.position import Position

T = TypeVar("T")

__all__ = ["check_int", "check_position", "check_workers", "row_array", "validate_dice"]


def check_position(position: object, *, finished: bool = False) -> Position:
    """`position` if it is a Position, and (unless `finished` is allowed) a game still in play."""
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position")
    if not finished and position.winner() is not None:
        raise InvalidPositionError(f"position {position.id} is already finished")
    return position


def check_workers(workers: object, name: str = "workers") -> int:
    """A count of worker threads (or Dask workers): an integer in 1..MAX_WORKERS, every core for None."""
    if workers is None:
        return min(os.cpu_count() or 1, MAX_WORKERS)
    return check_int(name, workers, 1, MAX_WORKERS)


def validate_dice(dice: object, n: int) -> NDArray[np.uint8]:
    """The (n, 2) uint8 dice array, or InvalidDiceError naming the bad row."""
    array = as_array(dice, "dice")
    if array.shape != (n, 2):
        raise InvalidDiceError(f"dice must have shape ({n}, 2), not {array.shape}")
    if array.dtype.kind not in "iu":
        raise InvalidDiceError(f"dice must be an integer array, not {array.dtype}")
    bad = np.flatnonzero(((array < 1) | (array > 6)).any(axis=1))
    if bad.size:
        raise InvalidDiceError(f"dice row {int(bad[0])} is {array[bad[0]].tolist()}: values must be 1-6")
    return np.ascontiguousarray(array, dtype=np.uint8)


def row_array(rows: object, name: str, width: int, high: int, values: str) -> NDArray[np.uint8]:
    """The (n, `width`) C-contiguous uint8 array of batch `rows` (positions or Gioul states),
    before the core judges each row: its shape, at most MAX_BATCH_ROWS rows, and integers 0..`high`
    (`values` says what the rows hold when they are not)."""
    array = as_array(rows, name)
    if array.ndim != 2 or array.shape[1] != width:
        raise InvalidPositionError(f"{name} must have shape (n, {width}), not {array.shape}")
    if array.shape[0] > MAX_BATCH_ROWS:
        raise InvalidArgumentError(f"{name} hold {array.shape[0]} rows, over the limit of {MAX_BATCH_ROWS} per call "
                                   "(fevga.limits.MAX_BATCH_ROWS): split the batch")
    if array.dtype.kind not in "iu" and array.size:
        raise InvalidPositionError(f"{name} must be an integer array, not {array.dtype}")
    if array.size and (array.min() < 0 or array.max() > high):
        raise InvalidPositionError(values)
    return np.ascontiguousarray(array, dtype=np.uint8)


def renamed(value: T, name: str, old_value: T | None, old_name: str, where: str) -> T:
    """`value`, or the value a caller gave under a parameter's old name (with a
    DeprecationWarning), for a public parameter renamed to the name every other call uses."""
    if old_value is None:
        return value
    warnings.warn(f"{where}({old_name}=) is now {where}({name}=)", DeprecationWarning, stacklevel=3)
    return old_value
