"""Types of the compiled bear-off kernels (fevga_core/bearoff.pyx); layout in bearoff.pxd."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

GAMES: tuple[str, ...]

def rank(counts: Sequence[int]) -> int: ...
def unrank(index: int, points: int) -> tuple[int, ...]: ...
def count(points: int, checkers: int) -> int: ...
def successors(counts: Sequence[int], d1: int, d2: int, game: str = ...) -> list[int]: ...
def rank_batch(counts: npt.NDArray[np.uint8], checkers: int, out: npt.NDArray[np.int64]) -> int: ...
def mean_batch(
    counts: npt.NDArray[np.uint8], checkers: int, mean: npt.NDArray[np.float64], out: npt.NDArray[np.float64], strict: bool
) -> int: ...
def pair_batch(
    on_roll: npt.NDArray[np.uint8],
    opponent: npt.NDArray[np.uint8],
    checkers: int,
    positions: int,
    table: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
    strict: bool,
) -> int: ...

def check_tables(one_sided: dict[str, Any], points: int, checkers: int, sides: list[Sequence[int]]) -> list[tuple[float, float]]: ...
def check_two_sided(
    arrays: dict[str, Any], points: int, checkers: int, total: int, on_roll: Sequence[int], opponent: Sequence[int]
) -> tuple[float, float]: ...

class OneSidedBuilder:
    points: int
    checkers: int
    entries: int
    first_base: int
    done: int
    game: int
    def __init__(self, points: int, checkers: int, game: str = ...) -> None: ...
    def run(self, stop: int) -> None: ...
    def arrays(self) -> dict[str, npt.NDArray[Any]]: ...

class TwoSidedBuilder:
    points: int
    checkers: int
    total: int
    positions: int
    done: int
    has_win: bool
    game: int
    def __init__(self, points: int, checkers: int, total: int, game: str = ...) -> None: ...
    def run(self, stop: int) -> None: ...
    def arrays(self) -> dict[str, npt.NDArray[np.float64]]: ...
