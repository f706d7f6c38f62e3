"""Argument checks of the public API: each value is validated once, at the boundary, with an
error that names it; the core then trusts it."""

from __future__ import annotations

from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.position import Position

__all__ = ["check_int", "check_position"]


def check_position(position: object, *, finished: bool = False) -> Position:
    """`position` if it is a Position, and (unless `finished` is allowed) a game still in play."""
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position")
    if not finished and position.winner() is not None:
        raise InvalidPositionError(f"position {position.id} is already finished")
    return position


def check_int(name: str, value: object, low: int) -> int:
    """`value` if it is an integer (not a bool) of at least `low`."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InvalidArgumentError(f"{name}={value!r} must be an integer >= {low}")
    return value
