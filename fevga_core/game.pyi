"""Seeded randomness, policies and the game loop."""

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

def play_recorded(
    row: bytes, flags: int, white_policy: int, black_policy: int,
    callback: Callable[[bytes, int, int], int] | None, seed: int, opening: bool, max_plies: int,
) -> tuple[int, int, int, bool, tuple[int, int] | None, NDArray[np.uint8], bytes]:
    """One game with its record."""

def play_many(
    row: bytes, games: int, master_seed: int, first_index: int, white_policy: int, black_policy: int,
    flags: int, opening: bool, max_plies: int,
    winners: NDArray[np.int8], points: NDArray[np.int8], plies: NDArray[np.int32],
) -> None:
    """Games first_index .. first_index+games-1 of a job, GIL released."""

def evaluate(row: bytes, color: int) -> float:
    """heuristic_eval of a flat row for `color`."""

def rng_outputs(seed: int, n: int) -> list[int]:
    """The first `n` raw outputs of the generator seeded with `seed`."""

def game_seed_of(master: int, index: int) -> int:
    """The seed of game `index` in a job with master seed `master`."""
