"""Rollouts of both games and exhaustive search over the core's move generator (see rollout.pyx)."""

from collections.abc import Callable
from typing import Any

import numpy as np
from fevga_core.gioul import CoreGioul
from fevga_core.net import CoreNet, NetModel
from fevga_core.race import Tables
from numpy.typing import NDArray

SUM_FIELDS: tuple[str, ...]
MATCH_WEIGHTS: int
STRATA: int
MAX_LENGTH: int
MAX_EXPECTIMAX_DEPTH: int
KNOWN_POLICIES: tuple[int, ...]
GIOUL_POLICIES: tuple[int, ...]

def run_block(
    rows: bytes, color: int, flags: int, white_policy: int, black_policy: int,
    callback: Callable[[bytes, int, int], int] | None, tables: Tables, white_net: NetModel | None,
    black_net: NetModel | None, truncate: bool, luck: bool, scale: float,
    stratify: bool, master: int, first_index: int, games: int, sums: NDArray[np.float64],
    first: NDArray[np.float64], cross: NDArray[np.float64], lengths: NDArray[np.int64], stop: NDArray[np.int32],
    match_weights: NDArray[np.float64] | None = None,
) -> int:
    """Games first_index .. first_index + games - 1 of a job, added into the sums (FLAG_GIOUL: a Gioul job)."""

def expectimax_value(row: bytes, depth: int, flags: int, tables: Tables, scale: float,
                     net: CoreNet | None = None, leaf: Callable[[bytes], float] | None = None) -> float:
    """Expectimax value of a row for its side on roll (leaves: the core's value, or `leaf(row)`)."""

def value(row: bytes, color: int, tables: Tables, scale: float, net: CoreNet | None = None, flags: int = 0) -> float:
    """The rollout evaluator's equity of a row for `color` (FLAG_GIOUL: of a Gioul state row)."""

def roll_values(row: bytes, flags: int, tables: Tables, scale: float) -> tuple[list[float], float]:
    """The luck's values: each roll's value for the side to roll once played, and their mean."""

def race(row: bytes, tables: Tables) -> tuple[float, float, float, float] | None:
    """(equity, win, win_mars, lose_mars) of a covered no-contact race, or None."""


def play_recorded(
    row: bytes, flags: int, white_policy: int, black_policy: int,
    callback: Callable[[bytes, int, int], int] | None, seed: int, opening: bool, max_plies: int,
    tables: Tables | None = None, scale: float = 1.0, net: CoreNet | None = None,
) -> tuple[int, int, int, bool, tuple[int, int] | None, NDArray[np.uint8], bytes]:
    """One self-play game with its record."""

def gioul_games(master: int, first: int, n: int, opening_dice: bool, white_policy: int = 0, black_policy: int = 0,
                white_net: NetModel | None = None, black_net: NetModel | None = None,
                tables: Tables | None = None) -> tuple[NDArray[np.int8], int]:
    """Play Gioul games first .. first+n-1 of a seeded job; (White's points per game, decisions)."""

def record_gioul_game(master: int, index: int, opening_dice: bool, white_policy: int = 0, black_policy: int = 0,
                      start: CoreGioul | None = None, white_net: NetModel | None = None,
                      black_net: NetModel | None = None,
                      tables: Tables | None = None) -> tuple[int, list[tuple[int, int, int, int, int, int, int, tuple[tuple[int, int], ...], int]]]:
    """Game `index` of gioul_games, recorded decision by decision (from `start` if given)."""
