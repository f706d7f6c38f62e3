"""No-contact race values from the bear-off tables (see race.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

def estimate(tables: Tables, on_roll: Sequence[int], opponent: Sequence[int]) -> tuple[float, float, float, float]:
    """(equity, win, win_mars, lose_mars) of the one-sided race estimate for the side on roll."""

class Tables:
    """Bear-off tables in the layout the kernels read."""

    def __init__(self, one: tuple[int, int, dict[str, Any]] | None = None,
                 two: tuple[int, int, int, NDArray[np.float64], NDArray[np.float64] | None] | None = None) -> None: ...
    @property
    def one_sided(self) -> tuple[int, int]: ...
    @property
    def two_sided(self) -> tuple[int, int]: ...
