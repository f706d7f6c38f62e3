"""Argument checks of the public API: each value is validated once, at the boundary, with an
error that names it; the core then trusts it."""

from __future__ import annotations

from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.limits import MAX_THREADS, check_int
from fevga.position import Position

__all__ = ["check_int", "check_position", "check_threads"]


def check_position(position: object, *, finished: bool = False) -> Position:
    """`position` if it is a Position, and (unless `finished` is allowed) a game still in play."""
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position")
    if not finished and position.winner() is not None:
        raise InvalidPositionError(f"position {position.id} is already finished")
    return position


def check_threads(name: str, value: object, high: int = MAX_THREADS) -> int:
    """A thread or worker count: an integer in 1..`high` (the documented limit)."""
    return check_int(name, value, 1, high)
