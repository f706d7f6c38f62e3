"""Argument checks of the public API: each value is validated once, at the boundary, with an
error that names it; the core then trusts it."""

from __future__ import annotations

import numpy as np

from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.limits import MAX_THREADS
from fevga.position import Position

__all__ = ["check_int", "check_position", "check_threads"]


def check_position(position: object, *, finished: bool = False) -> Position:
    """`position` if it is a Position, and (unless `finished` is allowed) a game still in play."""
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position")
    if not finished and position.winner() is not None:
        raise InvalidPositionError(f"position {position.id} is already finished")
    return position


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """`value` if it is an integer (not a bool) of at least `low` (and at most `high`)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < low \
            or (high is not None and value > high):
        shown = repr(value) if not isinstance(value, int) or value.bit_length() < 256 else f"an integer of {value.bit_length()} bits"
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise InvalidArgumentError(f"{name}={shown} must be an integer {bound}")
    return int(value)


def check_threads(name: str, value: object, high: int = MAX_THREADS) -> int:
    """A thread or worker count: an integer in 1..`high` (the documented limit)."""
    return check_int(name, value, 1, high)
