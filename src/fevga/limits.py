"""The explicit size limits of the public API, each checked before any work starts
(docs/limits.md lists them with the limits of the file formats).

>>> from fevga import batch, Position
>>> batch.count_legal_moves(batch.to_array([Position.initial()]), [[6, 5]], threads=MAX_THREADS + 1)
Traceback (most recent call last):
...
fevga.errors.InvalidArgumentError: threads=257 must be an integer in 1..256
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TypeVar

from fevga.errors import InvalidArgumentError

T = TypeVar("T")

MAX_WORKERS = 256  # worker threads or Dask workers of one rollout, duel or training run
MAX_THREADS = 256  # threads of one batch call or bear-off build
MAX_BATCH_ROWS = 1 << 24  # rows (positions, states, games) of one batch call: 16,777,216
MAX_ITEMS = 1 << 24  # items taken from any iterable argument (a list of positions, moves, ...)


def bounded(items: Iterable[T], name: str, limit: int = MAX_ITEMS) -> list[T]:
    """The items of an iterable argument as a list, refusing more than `limit` of them (an
    endless iterator such as itertools.repeat(6) raises instead of filling the memory)."""
    if not isinstance(items, Iterable):
        raise InvalidArgumentError(f"{name} {items!r} must be an iterable")
    taken = list(itertools.islice(items, limit + 1))
    if len(taken) > limit:
        raise InvalidArgumentError(f"{name} holds more than {limit} items (the limit)")
    return taken
