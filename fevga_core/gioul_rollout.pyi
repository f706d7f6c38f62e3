"""Gioul rollouts in the core: the block runner of fevga_core.rollout's output contract over Gioul states."""

import numpy as np
from fevga_core.race import Tables
from numpy.typing import NDArray

GIOUL_ROW: int
POLICIES: tuple[int, ...]

def run_block(
    rows: bytes, color: int, white_policy: int, black_policy: int, tables: Tables, truncate: bool, luck: bool,
    scale: float, stratify: bool, master: int, first_index: int, games: int, sums: NDArray[np.float64],
    first: NDArray[np.float64], cross: NDArray[np.float64], lengths: NDArray[np.int64], stop: NDArray[np.int32],
    match_weights: NDArray[np.float64] | None = None,
) -> int:
    """Games first_index .. first_index + games - 1 of a Gioul job, added into the sums."""

def roll_values(row: bytes, tables: Tables, scale: float) -> tuple[list[float], float]:
    """Each roll's value for the side to roll after the heuristic policy plays it, and their mean."""

def value(row: bytes, color: int, tables: Tables, scale: float) -> float:
    """The Gioul evaluator's equity of a Gioul row for `color`."""
