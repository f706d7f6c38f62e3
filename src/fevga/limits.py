"""The explicit size limits of the public API, each checked before any work starts
(docs/limits.md lists them with the limits of the file formats), and the two checks every
boundary uses: `check_int` for a count, a size or a depth, `check_real` for a probability or
another bounded number, `check_flag` for a switch, `as_array` for an array argument.

>>> from fevga import batch, Position
>>> batch.count_legal_moves(batch.to_array([Position.initial()]), [[6, 5]], workers=MAX_WORKERS + 1)
Traceback (most recent call last):
...
fevga.errors.InvalidArgumentError: workers=257 must be an integer in 1..256
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError

T = TypeVar("T")

MAX_WORKERS = 256  # worker threads (or Dask workers) of one batch call, table build, rollout, duel or training run
MAX_NESTED_THREADS = 1024  # tasks run at once times each one's worker threads (an error-rate truth's decisions)
MAX_BATCH_ROWS = 1 << 24  # rows (positions, states, games) of one batch call: 16,777,216
MAX_ITEMS = 1 << 24  # items taken from any iterable argument (a list of positions, moves, ...)
MAX_GAMES = 100_000_000  # games one call plays: a duel, a measure of the game odds, a training run
MAX_RATED_GAMES = 1_000_000  # games of strength.rate_policy (it keeps two ratings a game)
MAX_MATCH_GAMES = 100_000  # games of one match, played (max_games) or read from a record
MAX_LENGTH = 255  # points of a match (a record's length 0 is a session without a target)
MAX_GAME_PLIES = 4_096  # plies of one game, played (max_plies) or read from a record


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """`value` if it is an integer (not a bool) of at least `low` (and at most `high`)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < low \
            or (high is not None and value > high):
        shown = repr(value) if not isinstance(value, int) or value.bit_length() < 256 else f"an integer of {value.bit_length()} bits"
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise InvalidArgumentError(f"{name}={shown[:80]} must be an integer {bound}")
    return int(value)


@overload
def check_flag(name: str, value: object) -> bool: ...
@overload
def check_flag(name: str, value: object, *, none: bool) -> bool | None: ...
def check_flag(name: str, value: object, *, none: bool = False) -> bool | None:
    """`value` as a bool if it is True or False (or None, when `none` allows it): never the
    truth value of something else (an array raises NumPy's ValueError, a string is always true)."""
    if value is None and none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{name}={repr(value)[:60]} must be True or False" + (" or None" if none else ""))
    return bool(value)


def check_real(name: str, value: object, low: float = -math.inf, high: float = math.inf) -> float:
    """`value` as a float if it is a finite real number (not a bool), in [low, high] if given."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or (isinstance(value, int) and value.bit_length() > 64) or not math.isfinite(value) \
            or not low <= float(value) <= high:
        bound = "" if (low, high) == (-math.inf, math.inf) else f" in [{low:g}, {high:g}]"
        raise InvalidArgumentError(f"{name}={repr(value)[:60]} must be a finite number{bound}")
    return float(value)


def as_array(value: object, name: str, kinds: str = "", what: str = "an integer array") -> npt.NDArray[Any]:
    """np.asarray(value), or InvalidArgumentError naming `name` for what NumPy cannot make a
    numeric array of: ragged lists, strings, None, Python objects (integers of 2^70, endless
    iterators) are not arrays. With `kinds` (NumPy dtype kinds, "iu" or "fiu"), an array of
    another kind is refused too."""
    if value is None or isinstance(value, (str, bytes)):
        raise InvalidArgumentError(f"{name} {repr(value)[:60]} must be {what}")
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidArgumentError(f"{name} cannot be read as {what}: {str(exc)[:200]}") from None
    if array.dtype.kind == "O":
        raise InvalidArgumentError(f"{name} must be {what}, not an array of Python objects")
    if kinds and array.dtype.kind not in kinds:
        raise InvalidArgumentError(f"{name} must be {what}, not an array of {array.dtype}")
    return array


def bounded(items: Iterable[T], name: str, limit: int = MAX_ITEMS) -> list[T]:
    """The items of an iterable argument as a list, refusing more than `limit` of them (an
    endless iterator such as itertools.repeat(6) raises instead of filling the memory)."""
    if not isinstance(items, Iterable):
        raise InvalidArgumentError(f"{name} {items!r} must be an iterable")
    taken = list(itertools.islice(items, limit + 1))
    if len(taken) > limit:
        raise InvalidArgumentError(f"{name} holds more than {limit} items (the limit)")
    return taken
