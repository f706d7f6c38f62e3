"""No-contact race values from the bear-off tables (see race.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

class Tables:
    """Bear-off tables in the layout the kernels read."""

    def __init__(self, one: tuple[int, int, dict[str, Any]] | None = None,
                 two: tuple[int, int, int, NDArray[np.float64], NDArray[np.float64] | None] | None = None) -> None: ...
    @property
    def one_sided(self) -> tuple[int, int]: ...
    @property
    def two_sided(self) -> tuple[int, int]: ...
