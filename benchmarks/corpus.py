"""The shared benchmark corpus: mid-game positions from seeded random self-play.

`midgame_positions()` takes the positions after plies 20, 30, ..., 60 of random games
seeded 0, 1, 2, ... (skipping finished ones) until it has `count` of them. Benchmarks pair
every corpus position with all 21 rolls and assert the known total of legal moves first.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from fevga import Position, batch
from fevga.game import play_game
from fevga_core import board

CORPUS_SIZE = 1000
PLIES = (20, 30, 40, 50, 60)
ROLLS = list(board.ROLLS)  # the core's one roll order: 1-1, 1-2, ..., 6-6


@cache
def midgame_positions(count: int = CORPUS_SIZE) -> tuple[Position, ...]:
    """`count` mid-game positions from seeded random self-play (deterministic)."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        positions = play_game(seed=seed).positions()
        found += [positions[p] for p in PLIES if p < len(positions) and not positions[p].is_game_over()]
        seed += 1
    return tuple(found[:count])


@cache
def position_roll_pairs(count: int = CORPUS_SIZE) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Every corpus position paired with each of the 21 rolls: (rows, dice) arrays."""
    rows = batch.to_array(midgame_positions(count))
    return np.repeat(rows, len(ROLLS), axis=0), np.tile(np.array(ROLLS, dtype=np.uint8), (len(rows), 1))
